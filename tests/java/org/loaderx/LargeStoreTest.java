package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Test;

/**
 * A store over 4 GiB without 4 GiB of disk: a record moved into chunk 1 behind a sparse, full
 * chunk 0 (src/store_format.h: chunks hold 2^32 bytes, the frontier is (tail_chunk,
 * tail_offset)). Its statistics are the engine's, past every 32-bit range, in Java longs.
 */
public class LargeStoreTest {
  private static void putU32(Path file, long offset, long value) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      byte[] bytes =
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) value).array();
      f.seek(offset);
      f.write(bytes);
    }
  }

  @Test
  public void statsOfAStoreOver4GiBAreFullLongs() throws Exception {
    String tmp = System.getenv("TEST_TMPDIR");
    Path root =
        Files.createTempDirectory(Path.of(tmp != null ? tmp : System.getProperty("java.io.tmpdir")), "large");
    Path store = root.resolve("s");
    byte[] record = new byte[16];
    for (int i = 0; i < 16; i++) record[i] = (byte) (i + 1);
    try (Vfs vfs = Vfs.posix();
        DenseStore dense =
            DenseStore.open(
                vfs, store.toString(), new StoreRequest().dtype("|u1").itemShape(16).codec("raw"))) {
      dense.append(record);
    }
    // Chunk 0's bytes become chunk 1; chunk 0 is a full, sparse 4 GiB.
    Files.move(store.resolve("0.chunk"), store.resolve("1.chunk"));
    try (RandomAccessFile chunk = new RandomAccessFile(store.resolve("0.chunk").toFile(), "rw")) {
      chunk.setLength(1L << 32);
    }
    putU32(store.resolve("meta.zr"), 6, 1); // tail_chunk
    putU32(store.resolve("0.loc"), 12, 1); // record 0's chunk_id
    try (Vfs vfs = Vfs.posix();
        DenseStore dense = DenseStore.open(vfs, store.toString())) {
      StoreStats stats = dense.stats();
      assertEquals(1, stats.records());
      assertEquals(16, stats.liveBytes());
      assertEquals((1L << 32) + 16, stats.chunkBytes());
      assertEquals(1L << 32, stats.reclaimable());
      assertArrayEquals(record, dense.gather(0));
    }
  }
}
