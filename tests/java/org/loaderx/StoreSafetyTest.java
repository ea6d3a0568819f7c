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
 * Read-only opens, verify, and the handles' safety: a call on a deleted or
 * closed object is IllegalStateException, and a close racing gathers waits
 * for them instead of freeing the store under them.
 */
public class StoreSafetyTest {
  private static final byte[] RECORDS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

  private static DenseStoreHandle create(Filesystem fs, String path) {
    DenseStoreHandle store =
        new DenseStoreHandle(fs, path, "|u1", new long[] {4}, "raw", new byte[0]);
    store.appendBytes(RECORDS);
    store.close();
    return store;
  }

  private static OpenRequest readOnly() {
    OpenRequest request = new OpenRequest();
    request.setReadOnly(true);
    return request;
  }

  @Test
  public void readOnlyHandlesShareTheStoreAndRefuseWrites() {
    Filesystem fs = new Filesystem("memory");
    create(fs, "/s");
    DenseStoreHandle first = new DenseStoreHandle(fs, "/s", readOnly());
    DenseStoreHandle second = new DenseStoreHandle(fs, "/s", readOnly());
    assertTrue(first.readOnly());
    assertArrayEquals(new byte[] {8, 9, 10, 11}, second.gather(new long[] {2}));
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> first.appendBytes(new byte[4]));
    assertTrue(refused.getMessage(), refused.getMessage().contains("read-only"));
    assertThrows(IllegalStateException.class, () -> first.deleteIndices(new long[] {0}));
    assertThrows(IllegalStateException.class, first::compact);
    assertThrows(StoreBusyException.class, () -> new DenseStoreHandle(fs, "/s"));
    assertEquals(3, first.size());
    first.close();
    second.close();
    DenseStoreHandle writer = new DenseStoreHandle(fs, "/s");
    assertFalse(writer.readOnly());
    assertThrows(StoreBusyException.class, () -> new DenseStoreHandle(fs, "/s", readOnly()));
    writer.close();
  }

  @Test
  public void aReadOnlyOpenNeverCreatesAStore() {
    Filesystem fs = new Filesystem("memory");
    OpenRequest request = readOnly();
    request.setDtype("|u1");
    request.setItemShape(new long[] {4});
    UncheckedIOException missing =
        assertThrows(UncheckedIOException.class, () -> new DenseStoreHandle(fs, "/none", request));
    assertTrue(missing.getCause() instanceof FileNotFoundException);
    assertFalse(fs.exists("/none"));
  }

  @Test
  public void verifyCountsRecordsAndNamesTheDamagedOnes() {
    Filesystem fs = new Filesystem("memory");
    create(fs, "/s");
    DenseStoreHandle store = new DenseStoreHandle(fs, "/s", readOnly());
    VerifyResult healthy = store.verify();
    assertEquals(3L, healthy.records());
    assertEquals(3L, healthy.verified());
    assertEquals(0L, healthy.unverified());
    assertEquals(0, healthy.damaged().length);
    assertTrue(healthy.ok());
    assertTrue(healthy.metadataVerified());
    store.close();

    byte[] chunk = fs.readFile("/s/0.chunk");
    chunk[5] ^= 0x40; // Record 1.
    fs.writeFile("/s/0.chunk", chunk);
    store = new DenseStoreHandle(fs, "/s", readOnly());
    VerifyResult damaged = store.verify();
    assertFalse(damaged.ok());
    assertArrayEquals(new long[] {1}, damaged.damaged());
    assertEquals(2L, damaged.verified());
    assertEquals(1, damaged.problems().size());
    store.close();
  }

  @Test
  public void everyCallOnADeletedObjectIsIllegalState() {
    Filesystem fs = new Filesystem("memory");
    create(fs, "/s");
    DenseStoreHandle store = new DenseStoreHandle(fs, "/s");
    store.delete();
    store.delete(); // Idempotent.
    assertThrows(IllegalStateException.class, store::size);
    assertThrows(IllegalStateException.class, () -> store.gather(new long[] {0}));
    assertThrows(IllegalStateException.class, store::verify);
    assertThrows(IllegalStateException.class, store::close);
    IndexSampler sampler = new IndexSampler(10, 2, IndexSampler.IID, 7);
    sampler.delete();
    assertThrows(IllegalStateException.class, sampler::next);
    assertThrows(IllegalStateException.class, () -> sampler.seek(3));
    OpenRequest request = new OpenRequest();
    request.delete();
    assertThrows(IllegalStateException.class, () -> request.setReadOnly(true));
    fs.delete();
    assertThrows(IllegalStateException.class, () -> fs.exists("/s"));
  }

  @Test
  public void everyCallOnAClosedStoreIsIllegalState() {
    Filesystem fs = new Filesystem("memory");
    create(fs, "/s");
    DenseStoreHandle store = new DenseStoreHandle(fs, "/s");
    store.close();
    store.close(); // Idempotent.
    IllegalStateException closed = assertThrows(IllegalStateException.class, store::size);
    assertTrue(closed.getMessage(), closed.getMessage().contains("closed"));
    assertThrows(IllegalStateException.class, () -> store.gather(new long[] {0}));
    assertThrows(IllegalStateException.class, () -> store.appendBytes(new byte[4]));
    assertThrows(IllegalStateException.class, store::verify);
    assertThrows(IllegalStateException.class, store::stats);
  }

  @Test
  public void closeWaitsForTheGathersInFlight() throws InterruptedException {
    Filesystem fs = new Filesystem("posix");
    String path = System.getenv("TEST_TMPDIR") + "/close_race";
    DenseStoreHandle created =
        new DenseStoreHandle(fs, path, "|u1", new long[] {64}, "zstd", new byte[0]);
    byte[] records = new byte[64 * 500];
    for (int i = 0; i < records.length; ++i) {
      records[i] = (byte) (i / 64);
    }
    created.appendBytes(records);
    created.close();
    long[] all = new long[500];
    for (int i = 0; i < all.length; ++i) {
      all[i] = i;
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int round = 0; round < 20; ++round) {
      DenseStoreHandle store = new DenseStoreHandle(fs, path, readOnly());
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
      store.delete();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
  }
}
