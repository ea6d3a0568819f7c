package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Dense stores written by the published loaderx 1.7.7 (tests/data/reference_1_7_7, see
 * tests/oracle/make_store_fixture.py) open and read through the Java API, values
 * checked. The fixture is copied to a scratch directory
 * first: opening a store takes its lock read-write.
 */
public class ReferenceFixtureTest {
  // Bazel runs the test from the runfiles tree, where the fixture sits at its source path.
  private static final Path FIXTURE = Paths.get("tests/data/reference_1_7_7");

  private static String copyOf(String store) {
    try {
      Path target = Files.createTempDirectory("reference_1_7_7").resolve(store);
      Files.createDirectories(target);
      try (Stream<Path> files = Files.list(FIXTURE.resolve(store))) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.copy(file, target.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      return target.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ByteBuffer little(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  public void denseZstdReadsItsRecords() {
    try (Vfs disk = Vfs.posix();
        DenseStore store = DenseStore.open(disk, copyOf("dense_zstd"))) {
    assertEquals("<f4", store.dtype());
    assertArrayEquals(new long[] {2, 3}, store.itemShape());
    assertEquals("zstd", store.codec());
    assertFalse(store.hasDictionary());
    assertEquals(10, store.size());
    ByteBuffer records = ByteBuffer.allocateDirect(3 * 24).order(ByteOrder.LITTLE_ENDIAN);
    store.gather(new long[] {9, 0, 4}, records);
    records.flip();
    for (int i : new int[] {9, 0, 4}) {
      for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 3; ++k) {
          assertEquals(i * 10 + j * 3 + k, records.getFloat(), 0.0f);
        }
      }
    }
    assertEquals(10, store.stats().records());
    }
  }

  @Test
  public void denseStructuredRawReadsItsRecords() {
    try (Vfs disk = Vfs.posix();
        DenseStore store = DenseStore.open(disk, copyOf("dense_struct_raw"))) {
    assertEquals("[('id', '<i4'), ('x', '<f4', (2,))]", store.dtype());
    assertEquals(12, store.recordBytes());
    assertArrayEquals(new long[] {}, store.itemShape());
    ByteBuffer records = little(store.gather(0, 1, 2, 3, 4, 5));
    for (int i = 0; i < 6; ++i) {
      assertEquals(100 + i, records.getInt());
      assertEquals(i / 2.0f, records.getFloat(), 0.0f);
      assertEquals(-i, records.getFloat(), 0.0f);
    }
    // Appends continue 1.7.7's store.
    byte[] more = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN)
        .putInt(106).putFloat(3.0f).putFloat(-6.0f).array();
    assertEquals(6, store.append(more));
    assertArrayEquals(more, store.gather(6));
    }
  }

  @Test
  public void raggedRawReadsItsShapes() {
    try (Vfs disk = Vfs.posix();
        RaggedStore store = RaggedStore.open(disk, copyOf("ragged_raw"))) {
      assertEquals("ragged", store.kind());
      assertEquals("|u1", store.dtype());
      long[][] shapes = {{3}, {2, 2}, {}, {5}, {1, 1, 2}};
      assertEquals(shapes.length, store.size());
      ShapedBatch batch = store.read(4, 0, 1, 2, 3);
      for (int b = 0; b < 5; b++) {
        int i = (b + 4) % 5;
        assertArrayEquals(shapes[i], batch.shape(b));
        ByteBuffer record = batch.record(b);
        assertEquals(batch.recordBytes(b), record.remaining());
        for (int n = 0; n < record.remaining(); n++) {
          assertEquals((7 * i + n) % 256, record.get(n) & 0xff);
        }
      }
    }
  }
}
