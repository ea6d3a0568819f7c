package org.loaderx;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * Rank-sharded, elastic loading through the Java API: world 4 for steps [0, 5), resumed from its
 * state with world 2 for [5, 12), then world 8 for [12, 18), equals the single-process run step
 * by step (indices and record bytes) in sequential, IID and cyclic modes, over a dense and a
 * ragged store; a world that does not divide the batch and a foreign state are refused.
 */
public class ElasticTest {
  private static final int RECORDS = 203;
  private static final int BATCH = 24;

  private static void fill(DenseStore dense, RaggedStore ragged) {
    ByteBuffer pairs = ByteBuffer.allocateDirect(16 * RECORDS).order(ByteOrder.nativeOrder());
    for (long i = 0; i < RECORDS; i++) pairs.putLong(i).putLong(-i);
    dense.append(pairs.flip());
    for (int i = 0; i < RECORDS; i++) {
      int n = 1 + i % 5;
      ByteBuffer items = ByteBuffer.allocateDirect(4 * n).order(ByteOrder.nativeOrder());
      for (int k = 0; k < n; k++) items.putInt(i * 10 + k);
      ragged.append(items.flip(), n);
    }
  }

  /** Per step: the indices, then each record's bytes as longs/ints, ranks in order. */
  private static List<List<Long>> run(
      String name, TypedStore store, SamplerMode mode, int world, int steps,
      LoaderState[] state) {
    List<List<Long>> perStep = new ArrayList<>();
    for (int s = 0; s < steps; s++) perStep.add(new ArrayList<>());
    LoaderState end = null;
    for (int rank = 0; rank < world; rank++) {
      try (DataLoader loader =
          new DataLoader(Map.of(name, store), BATCH, mode, 11, 2, rank, world)) {
        if (state[0] != null) loader.loadState(state[0]);
        for (int s = 0; s < steps; s++) {
          try (Batch batch = loader.next()) {
            assertTrue(batch.size() <= BATCH / world);
            for (int r = 0; r < batch.size(); r++) {
              perStep.get(s).add(batch.indices()[r]);
              ByteBuffer record = batch.record(name, r);
              if (name.equals("dense")) {
                perStep.get(s).add(record.getLong(0));
                perStep.get(s).add(record.getLong(8));
              } else {
                for (int k = 0; k < record.remaining() / 4; k++) {
                  perStep.get(s).add((long) record.getInt(4 * k));
                }
              }
            }
          }
        }
        if (end == null) end = loader.state();
        assertEquals(end, loader.state());
      }
    }
    state[0] = end;
    return perStep;
  }

  @Test
  public void worldsFourTwoEightEqualTheSingleRun() {
    try (Vfs fs = Vfs.memory();
        DenseStore dense =
            DenseStore.open(fs, "/d", new StoreRequest().dtype("<i8").itemShape(2));
        RaggedStore ragged = RaggedStore.open(fs, "/r", new StoreRequest().dtype("<i4"))) {
      fill(dense, ragged);
      for (SamplerMode mode :
          new SamplerMode[] {SamplerMode.SEQUENTIAL, SamplerMode.IID, SamplerMode.CYCLIC}) {
        for (String name : new String[] {"dense", "ragged"}) {
          TypedStore store = name.equals("dense") ? dense : ragged;
          List<List<Long>> single = run(name, store, mode, 1, 18, new LoaderState[1]);
          LoaderState[] state = new LoaderState[1];
          List<List<Long>> elastic = new ArrayList<>(run(name, store, mode, 4, 5, state));
          assertEquals(5, state[0].step());
          elastic.addAll(run(name, store, mode, 2, 7, state));
          assertEquals(12, state[0].step());
          elastic.addAll(run(name, store, mode, 8, 6, state));
          assertEquals(mode + " " + name, single, elastic);
        }
      }
    }
  }

  @Test
  public void shardedSamplersConcatenateToTheSingleBatch() {
    try (Sampler single = new Sampler(101, 12, SamplerMode.CYCLIC, 3)) {
      List<Sampler> shards = new ArrayList<>();
      for (int r = 0; r < 3; r++) shards.add(new Sampler(101, 12, SamplerMode.CYCLIC, 3, r, 3));
      assertEquals(4, shards.get(0).batchLength());
      for (int step = 0; step < 20; step++) {
        long[] expected = single.next();
        long[] got = new long[12];
        for (int r = 0; r < 3; r++) System.arraycopy(shards.get(r).next(), 0, got, 4 * r, 4);
        assertArrayEquals(expected, got);
      }
      for (Sampler shard : shards) shard.close();
    }
  }

  @Test
  public void badWorldsAndForeignStatesAreRefused() {
    try (Vfs fs = Vfs.memory();
        DenseStore dense =
            DenseStore.open(fs, "/d", new StoreRequest().dtype("<i8").itemShape(2));
        RaggedStore ragged = RaggedStore.open(fs, "/r", new StoreRequest().dtype("<i4"))) {
      fill(dense, ragged);
      IllegalArgumentException error =
          assertThrows(
              IllegalArgumentException.class,
              () -> new DataLoader(Map.of("dense", dense), BATCH, SamplerMode.CYCLIC, 1, 2, 0, 5));
      assertTrue(error.getMessage(), error.getMessage().contains("must divide"));
      try (DataLoader a = new DataLoader(Map.of("dense", dense), BATCH, SamplerMode.CYCLIC, 1, 2);
          DataLoader b =
              new DataLoader(Map.of("ragged", ragged), BATCH, SamplerMode.CYCLIC, 1, 2)) {
        b.next().close();
        error = assertThrows(IllegalArgumentException.class, () -> a.loadState(b.state()));
        assertTrue(error.getMessage(), error.getMessage().contains("dataset fingerprint"));
        LoaderState s = a.state();
        LoaderState otherBatch =
            new LoaderState(3, s.seed(), s.mode(), 48, s.length(), s.fingerprint());
        assertThrows(IllegalArgumentException.class, () -> a.loadState(otherBatch));
        assertEquals(0, a.step());
      }
    }
  }
}
