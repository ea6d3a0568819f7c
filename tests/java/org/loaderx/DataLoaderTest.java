package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.Test;

/**
 * The C++ DataLoader through the Java API: a dense and a ragged stream whose record {@code i}
 * both encode {@code i}, iterated for thousands of steps (every batch's records aligned across
 * streams and at the sampler's indices), and an exact resume after {@code seek}.
 */
public class DataLoaderTest {
  private static final int RECORDS = 500;

  /** Dense: (2,) int64 {i, -i}. Ragged: int32 of shape (1 + i % 5,), every item i. */
  private static void fill(DenseStore dense, RaggedStore ragged) {
    ByteBuffer pairs = ByteBuffer.allocateDirect(16 * RECORDS).order(ByteOrder.nativeOrder());
    for (long i = 0; i < RECORDS; i++) pairs.putLong(i).putLong(-i);
    dense.append(pairs.flip());
    for (int i = 0; i < RECORDS; i++) {
      int n = 1 + i % 5;
      ByteBuffer items = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
      for (int k = 0; k < n; k++) items.putInt(i);
      ragged.append(items.flip(), n);
    }
  }

  private static void checkAligned(Batch batch, long[] expectedIndices) {
    long[] indices = batch.indices();
    assertArrayEquals("step " + batch.step(), expectedIndices, indices);
    ByteBuffer pairs = batch.stream("pairs");
    for (int r = 0; r < indices.length; r++) {
      long i = indices[r];
      assertEquals(i, pairs.getLong(16 * r));
      assertEquals(-i, pairs.getLong(16 * r + 8));
      long[] shape = batch.shape("tokens", r);
      assertArrayEquals(new long[] {1 + i % 5}, shape);
      ByteBuffer tokens = batch.record("tokens", r);
      assertEquals(4 * shape[0], tokens.remaining());
      for (int k = 0; k < shape[0]; k++) assertEquals(i, tokens.getInt(4 * k));
    }
  }

  @Test
  public void iteratesAlignedStreamsForThousandsOfStepsAndResumesExactly() {
    try (Vfs fs = Vfs.memory();
        DenseStore dense =
            DenseStore.open(fs, "/d", new StoreRequest().dtype("<i8").itemShape(2).codec("zstd"));
        RaggedStore ragged =
            RaggedStore.open(fs, "/r", new StoreRequest().dtype("<i4").codec("raw"))) {
      fill(dense, ragged);
      Map<String, TypedStore> streams = new LinkedHashMap<>();
      streams.put("pairs", dense);
      streams.put("tokens", ragged);
      final int steps = 3000;
      for (SamplerMode mode : new SamplerMode[] {SamplerMode.CYCLIC, SamplerMode.IID}) {
        try (DataLoader loader = new DataLoader(streams, 32, mode, 7, 4);
            Sampler sampler = new Sampler(RECORDS, 32, mode, 7)) {
          assertEquals(RECORDS, loader.size());
          assertEquals(java.util.List.of("pairs", "tokens"), loader.streamNames());
          long[][] seen = new long[steps][];
          for (int step = 0; step < steps; step++) {
            try (Batch batch = loader.next()) {
              assertEquals(step, batch.step());
              seen[step] = sampler.next();
              checkAligned(batch, seen[step]);
            }
          }
          assertEquals(steps, loader.step());
          // Back to a step seen before, then forward past the end of the first run.
          long resume = 1234;
          loader.seek(resume);
          for (long step = resume; step < resume + 200; step++) {
            try (Batch batch = loader.next()) {
              assertEquals(step, batch.step());
              checkAligned(batch, seen[(int) step]);
            }
          }
          loader.seek(steps + 10);
          sampler.seek(steps + 10);
          try (Batch batch = loader.next()) {
            checkAligned(batch, sampler.next());
          }
        }
      }
    }
  }

  @Test
  public void badStreamsAndClosedObjectsAreRefused() {
    try (Vfs fs = Vfs.memory();
        DenseStore a = DenseStore.open(fs, "/a", new StoreRequest().dtype("|u1").itemShape(1));
        DenseStore b = DenseStore.open(fs, "/b", new StoreRequest().dtype("|u1").itemShape(1))) {
      a.append(new byte[] {1, 2, 3});
      b.append(new byte[] {1, 2});
      Map<String, TypedStore> unequal = new LinkedHashMap<>();
      unequal.put("a", a);
      unequal.put("b", b);
      assertThrows(IllegalArgumentException.class, () -> new DataLoader(unequal));
      assertThrows(IllegalArgumentException.class, () -> new DataLoader(Map.of()));
      DataLoader loader = new DataLoader(Map.of("a", a), 2, SamplerMode.SEQUENTIAL, 1, 2);
      Batch batch = loader.next();
      assertArrayEquals(new long[] {0, 1}, batch.indices());
      batch.close();
      batch.close();
      assertThrows(IllegalStateException.class, batch::indices);
      // The loader shares its store: closing the store leaves the loader reading.
      a.close();
      try (Batch next = loader.next()) {
        assertArrayEquals(new long[] {2, 0}, next.indices());
        assertEquals(3, next.stream("a").get(0));
      }
      loader.close();
      loader.close();
      assertThrows(IllegalStateException.class, loader::next);
      assertThrows(IllegalStateException.class, () -> loader.seek(0));
    }
  }
}
