package org.loaderx;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * A batch's buffers in every order of closes: the batch's methods throw once it is closed, its
 * buffers (and their views) stay readable memory after the batch, the loader and the store are
 * closed and the ring has grown past them, and the batch goes back to the ring at its close
 * whatever buffers are still referenced. The buffers are large (1 MiB), so their allocations are
 * mappings of their own that freeing unmaps: a read of freed memory crashes this JVM.
 */
public class BatchLifetimeTest {
  private static final int RECORDS = 64;
  private static final int RECORD_BYTES = 128 << 10; // 128 KiB: a batch of 8 is 1 MiB.

  /** A dense store of RECORDS records of RECORD_BYTES, every long of record i equal to i. */
  private static DenseStore store(Vfs fs) {
    DenseStore store =
        DenseStore.open(
            fs, "/d", new StoreRequest().dtype("<i8").itemShape(RECORD_BYTES / 8).codec("raw"));
    ByteBuffer records =
        ByteBuffer.allocateDirect(RECORDS * RECORD_BYTES).order(ByteOrder.nativeOrder());
    for (long i = 0; i < RECORDS; i++) {
      for (int k = 0; k < RECORD_BYTES / 8; k++) records.putLong(i);
    }
    store.append(records.flip());
    return store;
  }

  private static long sum(ByteBuffer buffer) {
    LongBuffer longs = buffer.order(ByteOrder.nativeOrder()).asLongBuffer();
    long total = 0;
    while (longs.hasRemaining()) total += longs.get();
    return total;
  }

  private static void collectGarbage() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(20);
    }
  }

  @Test
  public void methodsOfAClosedBatchThrow() {
    try (Vfs fs = Vfs.memory();
        DenseStore dense = store(fs);
        DataLoader loader = new DataLoader(Map.of("x", dense), 8, SamplerMode.SEQUENTIAL, 1, 2)) {
      Batch batch = loader.next();
      batch.close();
      batch.close(); // Idempotent.
      assertThrows(IllegalStateException.class, () -> batch.stream("x"));
      assertThrows(IllegalStateException.class, () -> batch.stream(0));
      assertThrows(IllegalStateException.class, () -> batch.record("x", 0));
      assertThrows(IllegalStateException.class, batch::indices);
      assertThrows(IllegalStateException.class, batch::step);
      assertThrows(IllegalStateException.class, () -> batch.shape("x", 0));
    }
  }

  @Test
  public void buffersStayReadableAfterTheBatchTheLoaderAndTheStoreClose() throws Exception {
    List<ByteBuffer> kept = new ArrayList<>();
    try (Vfs fs = Vfs.memory()) {
      DenseStore dense = store(fs);
      DataLoader loader = new DataLoader(Map.of("x", dense), 8, SamplerMode.SEQUENTIAL, 1, 2);
      for (int step = 0; step < 20; step++) {
        try (Batch batch = loader.next()) {
          ByteBuffer whole = batch.stream("x");
          // Sequential: step s holds records 8s .. 8s + 7 (mod RECORDS).
          long first = (8L * step) % RECORDS;
          assertEquals(first, whole.getLong(0));
          assertEquals((8 * first + 28) * (RECORD_BYTES / 8), sum(whole.duplicate()));
          kept.add(whole);
          kept.add(batch.record("x", 7));
          kept.add(whole.slice(RECORD_BYTES, RECORD_BYTES));
        }
        // Read after close: memory of some step, never freed memory.
        for (ByteBuffer buffer : kept) sum(buffer.duplicate());
      }
      loader.close();
      dense.close();
    }
    collectGarbage();
    // Everything native is closed: the buffers still read (and write) without a crash.
    for (ByteBuffer buffer : kept) {
      sum(buffer.duplicate());
      buffer.putLong(0, -1);
      assertEquals(-1, buffer.getLong(0));
    }
  }

  @Test
  public void aViewAloneKeepsItsMemory() throws Exception {
    LongBuffer view;
    try (Vfs fs = Vfs.memory();
        DenseStore dense = store(fs);
        DataLoader loader = new DataLoader(Map.of("x", dense), 8, SamplerMode.SEQUENTIAL, 1, 2)) {
      try (Batch batch = loader.next()) {
        view = batch.stream("x").asLongBuffer(); // The buffer itself is dropped at once.
      }
    }
    collectGarbage();
    assertEquals(8 * RECORD_BYTES / 8, view.remaining());
    long total = 0;
    while (view.hasRemaining()) total += view.get();
    assertTrue(total >= 0);
  }

  @Test
  public void aBatchClosedAfterItsLoaderAndStoreStillReads() {
    Batch batch;
    try (Vfs fs = Vfs.memory();
        DenseStore dense = store(fs);
        DataLoader loader = new DataLoader(Map.of("x", dense), 8, SamplerMode.SEQUENTIAL, 1, 2)) {
      loader.seek(3);
      batch = loader.next();
    }
    try (Batch closing = batch) {
      assertEquals(3, closing.step());
      assertEquals(24, closing.stream("x").getLong(0));
      assertEquals((8 * 24 + 28) * (RECORD_BYTES / 8), sum(closing.stream("x")));
    }
  }

  @Test
  public void keptBuffersDoNotKeepBatchesOutOfTheRing() {
    List<ByteBuffer> kept = new ArrayList<>();
    try (Vfs fs = Vfs.memory();
        DenseStore dense = store(fs);
        DataLoader loader = new DataLoader(Map.of("x", dense), 8, SamplerMode.SEQUENTIAL, 1, 2)) {
      for (int step = 0; step < 50; step++) {
        try (Batch batch = loader.next()) {
          kept.add(batch.stream("x"));
        }
      }
      // The ring holds at most prefetch + 1 batches; the consumer held one at a time.
      assertTrue(loader.stats().batchesCreated() <= 4);
    }
  }
}
