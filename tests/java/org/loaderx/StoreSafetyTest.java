package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;

/**
 * Read-only opens, verify, and the objects' safety: a call on a closed object is
 * IllegalStateException, and a close racing gathers waits for them instead of freeing the store
 * under them.
 */
public class StoreSafetyTest {
  private static final byte[] RECORDS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

  private static void create(Vfs fs, String path) {
    try (DenseStore store =
        DenseStore.open(fs, path, new StoreRequest().dtype("|u1").itemShape(4).codec("raw"))) {
      store.append(RECORDS);
    }
  }

  private static StoreRequest readOnly() {
    return new StoreRequest().readOnly(true);
  }

  @Test
  public void readOnlyStoresShareTheStoreAndRefuseWrites() {
    try (Vfs fs = Vfs.memory()) {
      create(fs, "/s");
      try (DenseStore first = DenseStore.open(fs, "/s", readOnly());
          DenseStore second = DenseStore.open(fs, "/s", readOnly())) {
        assertTrue(first.readOnly());
        assertArrayEquals(new byte[] {8, 9, 10, 11}, second.gather(2));
        IllegalStateException refused =
            assertThrows(IllegalStateException.class, () -> first.append(new byte[4]));
        assertTrue(refused.getMessage(), refused.getMessage().contains("read-only"));
        assertThrows(IllegalStateException.class, () -> first.delete(0));
        assertThrows(IllegalStateException.class, first::compact);
        assertThrows(StoreBusyException.class, () -> DenseStore.open(fs, "/s"));
        assertEquals(3, first.size());
      }
      try (DenseStore writer = DenseStore.open(fs, "/s")) {
        assertFalse(writer.readOnly());
        assertThrows(StoreBusyException.class, () -> DenseStore.open(fs, "/s", readOnly()));
      }
    }
  }

  @Test
  public void aReadOnlyOpenNeverCreatesAStore() {
    try (Vfs fs = Vfs.memory()) {
      UncheckedIOException missing =
          assertThrows(
              UncheckedIOException.class,
              () -> DenseStore.open(fs, "/none", readOnly().dtype("|u1").itemShape(4)));
      assertTrue(missing.getCause() instanceof FileNotFoundException);
      assertFalse(fs.exists("/none"));
    }
  }

  @Test
  public void verifyCountsRecordsAndNamesTheDamagedOnes() {
    try (Vfs fs = Vfs.memory()) {
      create(fs, "/s");
      try (DenseStore store = DenseStore.open(fs, "/s", readOnly())) {
        VerifyReport healthy = store.verify();
        assertEquals(3L, healthy.records());
        assertEquals(3L, healthy.verified());
        assertEquals(0L, healthy.unverified());
        assertEquals(0, healthy.damaged().length);
        assertTrue(healthy.ok());
        assertTrue(healthy.metadataVerified());
      }
      byte[] chunk = fs.readFile("/s/0.chunk");
      chunk[5] ^= 0x40; // Record 1.
      fs.writeFile("/s/0.chunk", chunk);
      try (DenseStore store = DenseStore.open(fs, "/s", readOnly())) {
        VerifyReport damaged = store.verify();
        assertFalse(damaged.ok());
        assertArrayEquals(new long[] {1}, damaged.damaged());
        assertEquals(2L, damaged.verified());
        assertEquals(1, damaged.problems().size());
      }
    }
  }

  @Test
  public void verifyReportsRecordsRemovedPastTheLengthUntilAccepted() {
    try (Vfs fs = Vfs.memory()) {
      try (DenseStore store =
          DenseStore.open(fs, "/s", new StoreRequest().dtype("|u1").itemShape(4).codec("raw"))) {
        store.append(RECORDS);
        store.sync(); // checksums.lx now records 3 records.
      }
      // What loaderx 1.7.7's delete of the last record (or damage) leaves:
      // meta.zr's u64 length at offset 14 made smaller, 3 -> 2.
      byte[] meta = fs.readFile("/s/meta.zr");
      meta[14] = 2;
      fs.writeFile("/s/meta.zr", meta);
      try (DenseStore store = DenseStore.open(fs, "/s", readOnly())) {
        VerifyReport report = store.verify();
        assertEquals(2L, report.records());
        assertEquals(0, report.damaged().length);
        assertEquals(1L, report.removedRecords());
        assertEquals(1, report.metadataProblems().size());
        assertTrue(
            report.metadataProblems().get(0),
            report.metadataProblems().get(0).contains("1 records past the length were removed"));
        assertFalse(report.ok());
        assertThrows(IllegalStateException.class, store::acceptMetadataProblems);
      }
      try (DenseStore store = DenseStore.open(fs, "/s")) {
        store.acceptMetadataProblems();
        VerifyReport accepted = store.verify();
        assertTrue(accepted.ok());
        assertEquals(0L, accepted.removedRecords());
        CompactionEstimate estimate = store.estimateCompaction();
        assertEquals(0L, estimate.moves());
        assertFalse(estimate.availableBytes().isPresent()); // Memory: unknown.
      }
    }
  }

  @Test
  public void everyCallOnAClosedObjectIsIllegalState() {
    Vfs fs = Vfs.memory();
    create(fs, "/s");
    DenseStore store = DenseStore.open(fs, "/s");
    store.close();
    store.close(); // Idempotent.
    IllegalStateException closed = assertThrows(IllegalStateException.class, store::size);
    assertTrue(closed.getMessage(), closed.getMessage().contains("closed"));
    assertThrows(IllegalStateException.class, () -> store.gather(0));
    assertThrows(IllegalStateException.class, () -> store.append(new byte[4]));
    assertThrows(IllegalStateException.class, store::verify);
    assertThrows(IllegalStateException.class, store::stats);
    Sampler sampler = new Sampler(10, 2, SamplerMode.IID, 7);
    sampler.close();
    assertThrows(IllegalStateException.class, sampler::next);
    assertThrows(IllegalStateException.class, () -> sampler.seek(3));
    fs.close();
    assertThrows(IllegalStateException.class, () -> fs.exists("/s"));
  }

  @Test
  public void closeWaitsForTheGathersInFlight() throws InterruptedException {
    String path = System.getenv("TEST_TMPDIR") + "/close_race";
    try (Vfs fs = Vfs.posix()) {
      try (DenseStore created =
          DenseStore.open(fs, path, new StoreRequest().dtype("|u1").itemShape(64).codec("zstd"))) {
        byte[] records = new byte[64 * 500];
        for (int i = 0; i < records.length; ++i) records[i] = (byte) (i / 64);
        created.append(records);
      }
      long[] all = new long[500];
      for (int i = 0; i < all.length; ++i) all[i] = i;
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int round = 0; round < 20; ++round) {
        DenseStore store = DenseStore.open(fs, path, readOnly());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; ++t) {
          Thread thread =
              new Thread(
                  () -> {
                    try {
                      while (true) {
                        byte[] got = store.gather(all);
                        if (got[64 * 499] != (byte) 499) {
                          failure.compareAndSet(null, new AssertionError("wrong records"));
                          return;
                        }
                      }
                    } catch (IllegalStateException closed) {
                      if (!closed.getMessage().contains("closed")) {
                        failure.compareAndSet(null, closed);
                      }
                    } catch (Throwable other) {
                      failure.compareAndSet(null, other);
                    }
                  });
          thread.start();
          threads.add(thread);
        }
        Thread.sleep(round % 5);
        store.close();
        for (Thread thread : threads) {
          thread.join(60_000);
          assertFalse("a gather hung after close", thread.isAlive());
        }
      }
      if (failure.get() != null) throw new AssertionError(failure.get());
    }
  }

  /** A path with a NUL is refused before anything is created, by open and by create alike. */
  @Test
  public void aNulInAStorePathIsIllegalArgumentAndCreatesNothing() {
    try (Vfs fs = Vfs.memory()) {
      fs.createDirectory("/d");
      create(fs, "/d/s");
      StoreRequest request = new StoreRequest().dtype("|u1").itemShape(4).codec("raw");
      assertThrows(IllegalArgumentException.class, () -> DenseStore.open(fs, "/d/s\0x", request));
      assertThrows(IllegalArgumentException.class, () -> DenseStore.open(fs, "/d/t\0x", request));
      assertThrows(IllegalArgumentException.class, () -> DenseStore.open(fs, "/d/s\0x", readOnly()));
      assertEquals(List.of("s"), fs.list("/d"));
      try (DenseStore store = DenseStore.open(fs, "/d/s", readOnly())) {
        assertEquals(3, store.size());
      }
    }
  }
}
