package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.Test;

/** The dense store through the Java API: records as little-endian bytes in direct buffers. */
public class DenseStoreTest {
  static byte[] ints(int... values) {
    ByteBuffer buffer = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int value : values) buffer.putInt(value);
    return buffer.array();
  }

  static ByteBuffer direct(byte[] bytes) {
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
  }

  private static StoreRequest pairs(String codec) {
    return new StoreRequest().dtype("<i4").itemShape(2).codec(codec);
  }

  @Test
  public void appendGatherDeleteAndReopen() {
    try (Vfs fs = Vfs.memory()) {
      try (DenseStore store = DenseStore.open(fs, "/pairs", pairs("zstd"))) {
        assertEquals(8, store.recordBytes());
        assertArrayEquals(new long[] {2}, store.itemShape());
        assertEquals(0, store.append(direct(ints(0, 1, 10, 11, 20, 21))));
        assertArrayEquals(ints(20, 21, 0, 1), store.gather(2, 0));
        store.delete(0); // record 2 moves to 0
        assertEquals(2, store.size());
        assertArrayEquals(ints(20, 21), store.gather(0));
        StoreStats stats = store.stats();
        assertEquals(2, stats.records());
        assertTrue(stats.reclaimable() > 0);
      }
      try (DenseStore reopened = DenseStore.open(fs, "/pairs")) {
        assertEquals("<i4", reopened.dtype());
        assertEquals("zstd", reopened.codec());
        assertEquals("dense", reopened.kind());
        assertArrayEquals(ints(10, 11), reopened.gather(1));
      }
    }
  }

  @Test
  public void fingerprintFollowsTheCommittedStateAndAgreesAcrossOpens() {
    try (Vfs fs = Vfs.memory()) {
      long empty;
      long one;
      try (DenseStore store = DenseStore.open(fs, "/f", pairs("raw"))) {
        empty = store.fingerprint();
        store.append(ints(1, 2));
        one = store.fingerprint();
        assertNotEquals(empty, one);
        store.append(ints(3, 4));
        long two = store.fingerprint();
        assertNotEquals(one, two);
        assertEquals(two, store.fingerprint()); // reading it changes nothing
        store.delete(1);
        assertEquals(1, store.size());
        assertNotEquals(two, store.fingerprint());
        one = store.fingerprint();
      }
      try (DenseStore reopened = DenseStore.open(fs, "/f")) {
        assertEquals(one, reopened.fingerprint());
      }
    }
  }

  @Test
  public void gatherFillsADirectBufferInPlaceAtItsPosition() {
    try (Vfs fs = Vfs.memory();
        DenseStore store = DenseStore.open(fs, "/g", pairs("raw"))) {
      store.append(ints(1, 2, 3, 4, 5, 6));
      ByteBuffer out = ByteBuffer.allocateDirect(4 + 16).order(ByteOrder.LITTLE_ENDIAN);
      out.position(4);
      store.gather(new long[] {2, 1}, out);
      assertEquals(20, out.position());
      assertEquals(5, out.getInt(4));
      assertEquals(6, out.getInt(8));
      assertEquals(3, out.getInt(12));
      assertEquals(4, out.getInt(16));
      // Too small, heap and read-only buffers: IllegalArgumentException, nothing written.
      ByteBuffer small = ByteBuffer.allocateDirect(15);
      IllegalArgumentException tooSmall =
          assertThrows(IllegalArgumentException.class, () -> store.gather(new long[] {0, 1}, small));
      assertTrue(tooSmall.getMessage(), tooSmall.getMessage().contains("16"));
      assertEquals(0, small.position());
      assertThrows(
          IllegalArgumentException.class,
          () -> store.gather(new long[] {0}, ByteBuffer.allocate(8)));
      assertThrows(
          IllegalArgumentException.class,
          () -> store.gather(new long[] {0}, ByteBuffer.allocateDirect(8).asReadOnlyBuffer()));
      // Appends read the buffer from its position and leave the position alone.
      ByteBuffer more = direct(ints(0, 0, 7, 8));
      more.position(8);
      assertEquals(3, store.append(more));
      assertEquals(8, more.position());
      assertArrayEquals(ints(7, 8), store.gather(3));
      assertThrows(IllegalArgumentException.class, () -> store.append(ByteBuffer.wrap(ints(1, 2))));
    }
  }

  @Test
  public void openRequestOpensOrCreatesAsTheReference() {
    try (Vfs fs = Vfs.memory()) {
      StoreRequest create = pairs("raw");
      try (DenseStore store = DenseStore.open(fs, "/a/b", create)) { // parents created
        store.append(ints(1, 2));
      }
      try (DenseStore reopened = DenseStore.open(fs, "/a/b", create)) { // opens it
        assertEquals(1, reopened.size());
      }
      assertThrows(
          IllegalArgumentException.class,
          () -> DenseStore.open(fs, "/a/b", new StoreRequest().dtype("<f4")));
      assertThrows(UncheckedIOException.class, () -> DenseStore.open(fs, "/none"));
    }
  }

  @Test
  public void readOnlyOpensReadAndRefuseWrites() {
    try (Vfs fs = Vfs.memory()) {
      try (DenseStore store = DenseStore.open(fs, "/r", pairs("zstd"))) {
        store.append(ints(1, 2, 3, 4));
      }
      StoreRequest readOnly = new StoreRequest().readOnly(true);
      try (DenseStore first = DenseStore.open(fs, "/r", readOnly);
          DenseStore second = DenseStore.open(fs, "/r", readOnly)) { // shared lock
        assertTrue(first.readOnly());
        assertArrayEquals(ints(3, 4), second.gather(1));
        assertThrows(IllegalStateException.class, () -> first.append(ints(5, 6)));
        assertThrows(IllegalStateException.class, () -> first.delete(0));
        assertEquals(2, first.size());
        assertThrows(StoreBusyException.class, () -> DenseStore.open(fs, "/r"));
      }
      // Never creates.
      assertThrows(
          UncheckedIOException.class, () -> DenseStore.open(fs, "/new", pairs("raw").readOnly(true)));
      assertFalse(fs.exists("/new/meta.zr"));
    }
  }

  @Test
  public void verifyReportsEveryRecordChecked() {
    try (Vfs fs = Vfs.memory();
        DenseStore store = DenseStore.open(fs, "/v", pairs("zstd"))) {
      store.append(ints(1, 2, 3, 4, 5, 6));
      VerifyReport report = store.verify();
      assertTrue(report.ok());
      assertEquals(3, report.records());
      assertEquals(3, report.verified());
      assertEquals(0, report.unverified());
      assertEquals(0, report.damaged().length);
      assertTrue(report.metadataVerified());
    }
  }

  @Test
  public void badInputGetsTheIdiomaticExceptions() {
    try (Vfs fs = Vfs.memory();
        DenseStore store =
            DenseStore.open(fs, "/s", new StoreRequest().dtype("<i4").itemShape().codec("raw"))) {
      store.append(ints(5));
      assertThrows(IllegalArgumentException.class, () -> store.append(new byte[3]));
      assertThrows(IllegalArgumentException.class, () -> store.append(new byte[0]));
      assertThrows(IndexOutOfBoundsException.class, () -> store.gather(1));
      assertThrows(IndexOutOfBoundsException.class, () -> store.gather(-1));
      assertThrows(IndexOutOfBoundsException.class, () -> store.delete(-1));
      assertEquals(1, store.size());
      assertThrows(StoreBusyException.class, () -> DenseStore.open(fs, "/s"));
      UncheckedIOException missing =
          assertThrows(UncheckedIOException.class, () -> DenseStore.open(fs, "/none"));
      assertTrue(missing.getCause() instanceof FileNotFoundException);
      assertThrows(
          IllegalArgumentException.class,
          () -> DenseStore.open(fs, "/t", new StoreRequest().dtype("|O8").itemShape()));
      assertThrows(
          IllegalArgumentException.class,
          () -> DenseStore.open(fs, "/t", new StoreRequest().dtype("<i4").itemShape(1).codec("lz4")));
    }
  }

  @Test
  public void aClosedStoreIsIllegalStateAndReleasesItsLock() {
    try (Vfs fs = Vfs.memory()) {
      DenseStore store = DenseStore.open(fs, "/c", pairs("raw"));
      store.append(ints(1, 2));
      store.close();
      store.close(); // idempotent
      assertThrows(IllegalStateException.class, store::size);
      assertThrows(IllegalStateException.class, () -> store.gather(0));
      assertThrows(IllegalStateException.class, () -> store.append(ints(1, 2)));
      assertThrows(IllegalStateException.class, store::stats);
      try (DenseStore again = DenseStore.open(fs, "/c")) {
        assertEquals(1, again.size());
      }
    }
  }

  @Test
  public void theCompressionLevelReachesTheCodec() {
    try (Vfs fs = Vfs.memory()) {
      StoreRequest strong = new StoreRequest().dtype("|u1").itemShape(64).codec("zstd").level(19);
      byte[] records = new byte[128];
      for (int i = 0; i < records.length; ++i) records[i] = (byte) (i % 7);
      try (DenseStore store = DenseStore.open(fs, "/z", strong)) {
        store.append(records);
      }
      try (DenseStore reopened = DenseStore.open(fs, "/z")) { // not persisted
        assertArrayEquals(records, reopened.gather(0, 1));
      }
      IllegalArgumentException refused =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  DenseStore.open(
                      fs, "/y", new StoreRequest().dtype("|u1").itemShape(64).level(99)));
      assertTrue(refused.getMessage().contains("level"));
    }
  }

  @Test
  public void zstdDictionariesTrainAndCompress() {
    java.util.List<byte[]> samples = new java.util.ArrayList<>();
    for (int i = 0; i < 400; i++) {
      samples.add(("{\"user\": " + i + ", \"kind\": \"event\", \"value\": " + (i * 31 % 97) + "}")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    byte[] dictionary = ZstdDictionary.train(samples, 4096);
    assertTrue(dictionary.length > 0 && dictionary.length <= 4096);
    try (Vfs fs = Vfs.memory()) {
      StoreRequest request =
          new StoreRequest().dtype("|u1").itemShape(16).codec("zstd_dict").dictionary(dictionary);
      try (DenseStore store = DenseStore.open(fs, "/d", request)) {
        assertTrue(store.hasDictionary());
        byte[] record = java.util.Arrays.copyOf(samples.get(3), 16);
        store.append(record);
        assertArrayEquals(record, store.gather(0));
      }
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> ZstdDictionary.train(java.util.List.of(new byte[] {1}), 4096));
    assertThrows(IllegalArgumentException.class, () -> ZstdDictionary.train(samples, 0));
  }

  @Test
  public void theSharedThreadPoolIsSizedFromJava() {
    int before = ThreadPool.defaultThreadCount();
    assertTrue(before >= 1);
    try {
      ThreadPool.setDefaultThreadCount(1);
      assertEquals(1, ThreadPool.defaultThreadCount());
      try (Vfs fs = Vfs.memory();
          DenseStore store =
              DenseStore.open(fs, "/p", new StoreRequest().dtype("<i4").itemShape())) {
        store.append(ints(4, 5, 6));
        assertArrayEquals(ints(6, 4), store.gather(2, 0));
      }
      assertThrows(IllegalArgumentException.class, () -> ThreadPool.setDefaultThreadCount(0));
      assertEquals(1, ThreadPool.defaultThreadCount());
    } finally {
      ThreadPool.setDefaultThreadCount(before);
    }
  }
}
