package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.Test;

/** The ragged store through the Java API: each record with its own shape. */
public class RaggedStoreTest {
  private static ByteBuffer floats(int count, float start) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder());
    for (int i = 0; i < count; i++) buffer.putFloat(start + i);
    return buffer.flip();
  }

  @Test
  public void recordsKeepTheirShapes() {
    try (Vfs fs = Vfs.memory();
        RaggedStore store = RaggedStore.open(fs, "/r", new StoreRequest().dtype("<f4"))) {
      assertEquals("ragged", store.kind());
      assertEquals(4, store.itemSize());
      assertEquals(0, store.append(floats(6, 0), 2, 3));
      assertEquals(1, store.append(floats(1, 100), 1));
      assertEquals(2, store.append(floats(5, 200), 5, 1));
      ShapedBatch batch = store.read(2, 0, 2);
      assertEquals(3, batch.size());
      assertArrayEquals(new long[] {5, 1}, batch.shape(0));
      assertArrayEquals(new long[] {2, 3}, batch.shape(1));
      assertEquals(20, batch.recordBytes(0));
      assertEquals(24, batch.recordBytes(1));
      assertTrue(batch.data().isDirect());
      for (int i = 0; i < 5; i++) assertEquals(200 + i, batch.record(0).getFloat(4 * i), 0);
      for (int i = 0; i < 6; i++) assertEquals(i, batch.record(1).getFloat(4 * i), 0);
      assertEquals(204, batch.record(2).getFloat(16), 0);
      store.delete(0);
      assertEquals(2, store.size());
      assertArrayEquals(new long[] {5, 1}, store.read(0).shape(0));
    }
  }

  @Test
  public void badRecordsAndIndicesChangeNothing() {
    try (Vfs fs = Vfs.memory();
        RaggedStore store = RaggedStore.open(fs, "/r", new StoreRequest().dtype("<i2"))) {
      store.append(new byte[] {1, 0, 2, 0}, 2);
      // Bytes that are not prod(shape) items, an empty record, a heap buffer.
      assertThrows(IllegalArgumentException.class, () -> store.append(new byte[] {1, 0}, 2));
      assertThrows(IllegalArgumentException.class, () -> store.append(new byte[0], 0));
      assertThrows(
          IllegalArgumentException.class, () -> store.append(ByteBuffer.allocate(4), 2));
      assertThrows(IndexOutOfBoundsException.class, () -> store.read(1));
      assertThrows(IndexOutOfBoundsException.class, () -> store.read(-1));
      assertEquals(1, store.size());
      assertEquals(0, store.read().size());
    }
  }

  @Test
  public void kindsAreChecked() {
    try (Vfs fs = Vfs.memory()) {
      try (DenseStore dense =
          DenseStore.open(fs, "/d", new StoreRequest().dtype("<i4").itemShape(2))) {
        dense.append(new byte[8]);
      }
      IllegalStateException mismatch =
          assertThrows(IllegalStateException.class, () -> RaggedStore.open(fs, "/d"));
      assertTrue(mismatch.getMessage(), mismatch.getMessage().contains("'dense' store"));
      RaggedStore closed = RaggedStore.open(fs, "/q", new StoreRequest().dtype("|u1"));
      closed.close();
      assertThrows(IllegalStateException.class, () -> closed.read(0));
    }
  }
}
