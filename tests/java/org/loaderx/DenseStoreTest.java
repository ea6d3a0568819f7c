package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.Test;

/** The dense store through the Java binding: records as little-endian bytes. */
public class DenseStoreTest {
  private static byte[] ints(int... values) {
    ByteBuffer buffer = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (int value : values) {
      buffer.putInt(value);
    }
    return buffer.array();
  }

  @Test
  public void appendGatherDeleteAndReopen() {
    Filesystem fs = new Filesystem("memory");
    DenseStoreHandle store =
        new DenseStoreHandle(fs, "/pairs", "<i4", new long[] {2}, "zstd", new byte[0]);
    assertEquals(8, store.recordBytes());
    assertArrayEquals(new long[] {2}, store.itemShape());
    assertEquals(0, store.appendBytes(ints(0, 1, 10, 11, 20, 21)));
    assertArrayEquals(ints(20, 21, 0, 1), store.gather(new long[] {2, 0}));
    store.deleteIndices(new long[] {0});  // record 2 moves to 0
    assertEquals(2, store.size());
    assertArrayEquals(ints(20, 21), store.gather(new long[] {0}));
    StoreStatistics stats = store.stats();
    assertEquals(2, stats.getRecords());
    assertTrue(stats.getReclaimable() > 0);
    store.close();
    DenseStoreHandle reopened = new DenseStoreHandle(fs, "/pairs");
    assertEquals("<i4", reopened.dtype());
    assertEquals("zstd", reopened.codec());
    assertArrayEquals(ints(10, 11), reopened.gather(new long[] {1}));
  }

  @Test
  public void openRequestOpensOrCreatesAsTheReference() {
    Filesystem fs = new Filesystem("memory");
    OpenRequest create = new OpenRequest();
    create.setDtype("<i4");
    create.setItemShape(new long[] {2});
    create.setCodec("raw");
    DenseStoreHandle store = new DenseStoreHandle(fs, "/a/b", create);  // parents created
    store.appendBytes(ints(1, 2));
    store.close();
    DenseStoreHandle reopened = new DenseStoreHandle(fs, "/a/b", create);  // opens it
    assertEquals(1, reopened.size());
    reopened.close();
    OpenRequest wrong = new OpenRequest();
    wrong.setDtype("<f4");
    assertThrows(IllegalArgumentException.class, () -> new DenseStoreHandle(fs, "/a/b", wrong));
    assertThrows(
        UncheckedIOException.class, () -> new DenseStoreHandle(fs, "/none", new OpenRequest()));
  }

  @Test
  public void badInputGetsTheIdiomaticExceptions() {
    Filesystem fs = new Filesystem("memory");
    DenseStoreHandle store =
        new DenseStoreHandle(fs, "/s", "<i4", new long[] {}, "raw", new byte[0]);
    store.appendBytes(ints(5));
    assertThrows(IllegalArgumentException.class, () -> store.appendBytes(new byte[3]));
    assertThrows(IndexOutOfBoundsException.class, () -> store.gather(new long[] {1}));
    assertThrows(StoreBusyException.class, () -> new DenseStoreHandle(fs, "/s"));
    UncheckedIOException missing =
        assertThrows(UncheckedIOException.class, () -> new DenseStoreHandle(fs, "/none"));
    assertTrue(missing.getCause() instanceof FileNotFoundException);
    assertThrows(
        IllegalArgumentException.class,
        () -> new DenseStoreHandle(fs, "/t", "|O8", new long[] {}, "raw", new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> new DenseStoreHandle(
        fs, "/t", "<i4", new long[] {1}, "lz4", new byte[0]));
    assertThrows(IndexOutOfBoundsException.class, () -> store.gather(new long[] {-1}));
    store.close();
    assertThrows(IllegalStateException.class, store::size);
  }

  @Test
  public void theCompressionLevelReachesTheCodec() {
    Filesystem fs = new Filesystem("memory");
    OpenRequest strong = new OpenRequest();
    strong.setDtype("|u1");
    strong.setItemShape(new long[] {64});
    strong.setCodec("zstd");
    strong.setLevel(19);
    DenseStoreHandle store = new DenseStoreHandle(fs, "/z", strong);
    byte[] records = new byte[128];
    for (int i = 0; i < records.length; ++i) {
      records[i] = (byte) (i % 7);
    }
    store.appendBytes(records);
    store.close();
    DenseStoreHandle reopened = new DenseStoreHandle(fs, "/z");  // not persisted
    assertArrayEquals(records, reopened.gather(new long[] {0, 1}));
    reopened.close();
    OpenRequest tooStrong = new OpenRequest();
    tooStrong.setDtype("|u1");
    tooStrong.setItemShape(new long[] {64});
    tooStrong.setCodec("zstd");
    tooStrong.setLevel(99);
    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> new DenseStoreHandle(fs, "/y", tooStrong));
    assertTrue(refused.getMessage().contains("level"));
  }

  @Test
  public void theSharedThreadPoolIsSizedFromJava() {
    int before = LoaderxNative.numThreads();
    assertTrue(before >= 1);
    try {
      LoaderxNative.setNumThreads(1);
      assertEquals(1, LoaderxNative.numThreads());
      Filesystem fs = new Filesystem("memory");
      DenseStoreHandle store =
          new DenseStoreHandle(fs, "/p", "<i4", new long[] {}, "zstd", new byte[0]);
      store.appendBytes(ints(4, 5, 6));
      assertArrayEquals(ints(6, 4), store.gather(new long[] {2, 0}));
      store.close();
      assertThrows(IllegalArgumentException.class, () -> LoaderxNative.setNumThreads(0));
      assertEquals(1, LoaderxNative.numThreads());
    } finally {
      LoaderxNative.setNumThreads(before);
    }
  }

  @Test
  public void storeHandleOpensAStoreOfAnyKind() {
    Filesystem fs = new Filesystem("memory");
    DenseStoreHandle dense =
        new DenseStoreHandle(fs, "/d", "<i4", new long[] {2}, "raw", new byte[0]);
    dense.appendBytes(ints(1, 2, 3, 4));
    dense.close();
    StoreHandle any = new StoreHandle(fs, "/d", "", new OpenRequest());
    assertEquals("dense", any.kind());
    assertTrue(any.fixedWidth());
    assertArrayEquals(ints(3, 4), any.gather(new long[] {1}));
    any.close();
    IllegalStateException mismatch =
        assertThrows(IllegalStateException.class, () -> new StoreHandle(fs, "/d", "ragged", new OpenRequest()));
    assertTrue(mismatch.getMessage().contains("'dense' store"));
  }
}
