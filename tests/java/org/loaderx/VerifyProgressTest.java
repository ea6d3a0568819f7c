package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Test;

/**
 * {@code verify(VerifyProgress)}: the engine's progress reports reach the callback (from the pool's
 * native threads too, attached to the JVM for each report and detached after it), {@code done}
 * grows to {@code total} (the records the report counts), an exception the callback throws stops
 * its calls and comes out of {@code verify} once the verification has finished, and the store
 * stays usable; {@code verify()} without progress is unchanged.
 */
public class VerifyProgressTest {
  // More than the 4,096 records after which each shard reports.
  private static final int DENSE_RECORDS = 20_000;
  private static final int RAGGED_RECORDS = 5_000;

  /** Every report, the thread it came on, and whether two ever overlapped. */
  private static final class Calls implements VerifyProgress {
    final List<long[]> calls = new ArrayList<>();
    final Set<Thread> threads = new HashSet<>();
    final AtomicBoolean inside = new AtomicBoolean();
    volatile boolean overlapped;

    @Override
    public void report(long done, long total) {
      if (!inside.compareAndSet(false, true)) {
        overlapped = true;
        return;
      }
      try {
        synchronized (this) {
          calls.add(new long[] {done, total});
          threads.add(Thread.currentThread());
        }
      } finally {
        inside.set(false);
      }
    }

    synchronized void check(VerifyReport report) {
      assertFalse("two reports overlapped", overlapped);
      assertTrue("reports: " + calls.size(), calls.size() >= 2);
      long previous = 0;
      for (long[] call : calls) {
        assertTrue("done went down", call[0] >= previous);
        assertEquals(report.records(), call[1]);
        previous = call[0];
      }
      assertArrayEquals(
          new long[] {report.records(), report.records()}, calls.get(calls.size() - 1));
    }
  }

  private static void createDense(Vfs fs, String path, String codec) {
    try (DenseStore store =
        DenseStore.open(fs, path, new StoreRequest().dtype("|u1").itemShape(4).codec(codec))) {
      byte[] records = new byte[DENSE_RECORDS * 4];
      for (int i = 0; i < records.length; i++) records[i] = (byte) i;
      store.append(records);
    }
  }

  @Test
  public void progressGrowsToTheRecordsExaminedInADenseStore() {
    for (String codec : new String[] {"raw", "zstd"}) {
      try (Vfs fs = Vfs.memory()) {
        createDense(fs, "/d", codec);
        try (DenseStore store = DenseStore.open(fs, "/d", new StoreRequest().readOnly(true))) {
          Calls calls = new Calls();
          VerifyReport report = store.verify(calls);
          assertTrue(report.ok());
          assertEquals(DENSE_RECORDS, report.records());
          assertEquals(DENSE_RECORDS, report.verified());
          calls.check(report);
        }
      }
    }
  }

  @Test
  public void progressGrowsToTheRecordsExaminedInARaggedStore() {
    try (Vfs fs = Vfs.memory();
        RaggedStore store =
            RaggedStore.open(fs, "/r", new StoreRequest().dtype("|u1").codec("zstd"))) {
      for (int i = 0; i < RAGGED_RECORDS; i++) store.append(new byte[1 + i % 7], 1 + i % 7);
      Calls calls = new Calls();
      VerifyReport report = store.verify(calls);
      assertTrue(report.ok());
      assertEquals(RAGGED_RECORDS, report.records());
      calls.check(report);
    }
  }

  @Test
  public void anEmptyStoreReportsOnce() {
    try (Vfs fs = Vfs.memory();
        DenseStore store =
            DenseStore.open(fs, "/e", new StoreRequest().dtype("<f4").itemShape(3))) {
      List<long[]> calls = new ArrayList<>();
      VerifyReport report = store.verify((done, total) -> calls.add(new long[] {done, total}));
      assertEquals(0L, report.records());
      assertEquals(1, calls.size());
      assertArrayEquals(new long[] {0, 0}, calls.get(0));
    }
  }

  private static void checkTheThrowableComesOut(Throwable thrown) {
    try (Vfs fs = Vfs.memory()) {
      createDense(fs, "/d", "raw");
      try (DenseStore store = DenseStore.open(fs, "/d")) {
        List<long[]> calls = new ArrayList<>();
        Throwable caught =
            assertThrows(
                thrown.getClass(),
                () ->
                    store.verify(
                        (done, total) -> {
                          synchronized (calls) {
                            calls.add(new long[] {done, total});
                          }
                          if (thrown instanceof Error) throw (Error) thrown;
                          throw (RuntimeException) thrown;
                        }));
        assertSame(thrown, caught);
        synchronized (calls) {
          assertEquals("called again after it threw", 1, calls.size());
        }
        // The store is untouched and fully usable.
        assertEquals(DENSE_RECORDS, store.size());
        assertArrayEquals(new byte[] {4, 5, 6, 7}, store.gather(1));
        store.append(new byte[4]);
        Calls again = new Calls();
        VerifyReport report = store.verify(again);
        assertTrue(report.ok());
        assertEquals(DENSE_RECORDS + 1, report.records());
        again.check(report);
      }
    }
  }

  @Test
  public void aRuntimeExceptionFromProgressComesOutOfVerify() {
    checkTheThrowableComesOut(new IllegalStateException("stop here"));
  }

  @Test
  public void anErrorFromProgressComesOutOfVerify() {
    checkTheThrowableComesOut(new AssertionError("stop here"));
  }

  @Test
  public void verifyWithoutProgressIsUnchanged() {
    try (Vfs fs = Vfs.memory()) {
      createDense(fs, "/d", "raw");
      try (DenseStore store = DenseStore.open(fs, "/d")) {
        VerifyReport report = store.verify();
        assertTrue(report.ok());
        assertEquals(DENSE_RECORDS, report.records());
        assertEquals(DENSE_RECORDS, report.verified());
        assertThrows(NullPointerException.class, () -> store.verify(null));
        assertEquals(DENSE_RECORDS, store.verify().records());
      }
    }
  }

  @Test
  public void poolThreadsReportAttachedAndAreDetachedAfter() throws Exception {
    // With workers in the pool, reports come from native threads the JVM
    // does not know. The caller's first report waits a moment, so a worker
    // has claimed its shard by then; a few attempts make a scheduling fluke
    // harmless.
    int saved = ThreadPool.defaultThreadCount();
    ThreadPool.setDefaultThreadCount(3);
    try (Vfs fs = Vfs.memory()) {
      createDense(fs, "/d", "raw");
      Thread caller = Thread.currentThread();
      Set<Thread> workers = new HashSet<>();
      for (int attempt = 0; attempt < 20 && workers.isEmpty(); attempt++) {
        Calls calls = new Calls();
        AtomicBoolean waited = new AtomicBoolean();
        try (DenseStore store = DenseStore.open(fs, "/d", new StoreRequest().readOnly(true))) {
          VerifyReport report =
              store.verify(
                  (done, total) -> {
                    if (Thread.currentThread() == caller && !waited.getAndSet(true)) {
                      try {
                        Thread.sleep(50);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }
                    calls.report(done, total);
                  });
          calls.check(report);
        }
        synchronized (calls) {
          for (Thread thread : calls.threads) {
            if (thread != caller) workers.add(thread);
          }
        }
      }
      assertFalse("every report came from the calling thread", workers.isEmpty());
      for (Thread worker : workers) {
        assertEquals("loaderx-verify", worker.getName());
        assertTrue(worker.isDaemon());
        worker.join(60_000); // Detached: the Thread has ended.
        assertFalse("a pool thread was left attached", worker.isAlive());
      }
    } finally {
      ThreadPool.setDefaultThreadCount(saved);
    }
  }
}
