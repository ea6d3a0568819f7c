package org.loaderx;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The endless, step-based loader ({@code loaderx::DataLoader}): batches of index-aligned records
 * from named stores (dense and ragged, every one the same size), the indices drawn by one
 * sampler, gathered ahead of the consumer on the shared thread pool into a ring of reusable
 * batches. Batches come in step order; {@link #seek} resumes exactly; a failed gather is thrown by
 * the {@code next()} that would have returned that step (the loader then moves past it).
 *
 * <pre>{@code
 * try (Vfs vfs = Vfs.posix();
 *     DenseStore images = DenseStore.open(vfs, "/data/images");
 *     RaggedStore tokens = RaggedStore.open(vfs, "/data/tokens");
 *     DataLoader loader = new DataLoader(
 *         Map.of("image", images, "tokens", tokens), 256, SamplerMode.CYCLIC, 42, 4)) {
 *   for (int step = 0; step < 1000; step++) {
 *     try (Batch batch = loader.next()) {
 *       ByteBuffer pixels = batch.stream("image");  // (256, *item_shape), no copy
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>Data-parallel training: {@link #DataLoader(Map, long, SamplerMode, long, int, long, long)}
 * makes rank {@code rank} of {@code worldSize}, which reads its contiguous slice ({@code batchSize
 * / worldSize} records) of every global batch; the ranks together read exactly the
 * single-process batch. {@link #state()} and {@link #loadState} save and resume at any world size
 * that divides the batch size.
 *
 * <p>The loader shares its stores: closing a store while a loader reads it keeps it open until
 * the loader closes. {@code next}, {@code seek} and the accessors are for one consumer thread;
 * {@link #close} may come from any thread.
 */
public final class DataLoader implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.LoaderHandle> handle;
  private final List<String> names;
  private final long[] itemSizes;

  /**
   * A loader over {@code streams} (iterated in order: a {@code LinkedHashMap} keeps it), {@code
   * batchSize} records per batch drawn by {@code mode} from {@code seed}, {@code prefetch} (at
   * least 1) batches gathered ahead. {@link IllegalArgumentException} for no streams, unequal or
   * zero sizes, or a bad setting; {@link IllegalStateException} for a closed store.
   */
  public DataLoader(
      Map<String, ? extends TypedStore> streams,
      long batchSize,
      SamplerMode mode,
      long seed,
      int prefetch) {
    this(streams, batchSize, mode, seed, prefetch, 0, 1);
  }

  /**
   * Rank {@code rank} of {@code worldSize}: every batch is this rank's slice of the global batch
   * of {@code batchSize}. {@link IllegalArgumentException} also for a world size that does not
   * divide the batch size or a rank outside the world.
   */
  public DataLoader(
      Map<String, ? extends TypedStore> streams,
      long batchSize,
      SamplerMode mode,
      long seed,
      int prefetch,
      long rank,
      long worldSize) {
    org.loaderx.internal.LoaderStreams named = new org.loaderx.internal.LoaderStreams();
    List<String> order = new ArrayList<>();
    this.itemSizes = new long[streams.size()];
    try {
      for (Map.Entry<String, ? extends TypedStore> entry : streams.entrySet()) {
        entry.getValue().handle.run(store -> named.addStore(entry.getKey(), store));
        itemSizes[order.size()] = entry.getValue().itemSize();
        order.add(entry.getKey());
      }
      org.loaderx.internal.LoaderHandle loader =
          new org.loaderx.internal.LoaderHandle(
              named, batchSize, mode.number(), seed, prefetch, rank, worldSize);
      this.handle =
          new NativeHandle<>(
              "DataLoader",
              loader,
              h -> {
                h.close();
                h.delete();
              });
    } finally {
      named.delete();
    }
    this.names = List.copyOf(order);
  }

  /** 1.7.7's defaults: batches of 256, cyclic, seed 42, 4 prefetched. */
  public DataLoader(Map<String, ? extends TypedStore> streams) {
    this(streams, 256, SamplerMode.CYCLIC, Sampler.DEFAULT_SEED, 4);
  }

  /**
   * The batch at {@link #step()}, then moves to the next step. Blocks until it is gathered. The
   * caller closes the batch (try-with-resources), which hands its buffers back to the ring.
   */
  public Batch next() {
    return new Batch(handle.call(h -> h.next()), itemSizes);
  }

  /** The next {@code next()} returns step {@code step}, exactly as an uninterrupted run would. */
  public void seek(long step) {
    handle.run(h -> h.seek(step));
  }

  /** The step the next {@code next()} returns. */
  public long step() {
    return handle.call(h -> h.step());
  }

  /** Records per stream (the sampler's length). */
  public long size() {
    return handle.call(h -> h.size());
  }

  public long batchSize() {
    return handle.call(h -> h.batchSize());
  }

  public SamplerMode mode() {
    return SamplerMode.of(handle.call(h -> h.mode()));
  }

  public long seed() {
    return handle.call(h -> h.seed());
  }

  public long rank() {
    return handle.call(h -> h.rank());
  }

  public long worldSize() {
    return handle.call(h -> h.worldSize());
  }

  /** The checkpoint: the next batch's step, the sampler's settings and the data's fingerprint. */
  public LoaderState state() {
    return handle.call(
        h ->
            new LoaderState(
                h.step(),
                h.seed(),
                SamplerMode.of(h.mode()),
                h.batchSize(),
                h.size(),
                h.fingerprint()));
  }

  /**
   * Continues from a saved state, dropping what was prefetched. {@link IllegalArgumentException},
   * changing nothing, for a state of another data set (or of this one before it changed), another
   * batch size, length, mode or seed.
   */
  public void loadState(LoaderState state) {
    handle.run(
        h ->
            h.restore(
                state.step(),
                state.seed(),
                state.mode().number(),
                state.batchSize(),
                state.length(),
                state.fingerprint()));
  }

  /** The ring's counters; may be called from any thread. */
  public LoaderStats stats() {
    return handle.call(
        h -> {
          org.loaderx.internal.LoaderStatistics s = h.stats();
          try {
            return new LoaderStats(
                s.getBatches_created(), s.getBuffer_allocations(), s.getGathers_completed());
          } finally {
            s.delete();
          }
        });
  }

  /** The streams' names, in batch order. */
  public List<String> streamNames() {
    return names;
  }

  /** Stops prefetching and waits for the gathers in flight. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
