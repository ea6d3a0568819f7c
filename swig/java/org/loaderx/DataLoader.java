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
 *
 * <p>Order: step {@code s}'s indices are those of a {@link Sampler} with the same length, batch
 * size, mode, seed, rank and world size at step {@code s}, so for a given seed a run visits the
 * records in loaderx 1.7.7's order. There are no epochs: the sampler wraps or reshuffles. Work
 * starts at the first {@code next()}; the loader holds at most {@code prefetch + 1} batches of
 * its own, besides those the caller has not closed.
 *
 * <p>Memory and lifetime: every batch must be closed (see {@link Batch}); batches already handed
 * out stay readable after the loader closes. After {@link #close} every method but {@link
 * #streamNames()} and {@code close} itself throws {@link IllegalStateException}.
 */
public final class DataLoader implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.LoaderHandle> handle;
  private final List<String> names;
  private final long[] itemSizes;

  /**
   * A loader over {@code streams} (iterated in order: a {@code LinkedHashMap} keeps it), {@code
   * batchSize} records per batch drawn by {@code mode} from {@code seed}, {@code prefetch} (at
   * least 1) batches gathered ahead. {@link IllegalArgumentException} for no streams, unequal or
   * zero sizes, or a bad setting; {@link IllegalStateException} for a closed store. Nothing is
   * read until the first {@link #next()}. The loader shares the stores (see the class comment);
   * a store of a fixed-width kind is a dense stream, any other a ragged one. Later changes to the
   * map do not matter.
   *
   * @param streams the stores to read, by stream name, in batch order; all of the same size
   * @param batchSize records per batch (at least 1); an unsigned 64-bit value
   * @param mode how the indices are drawn
   * @param seed the sampler's seed (any value; {@link Sampler#DEFAULT_SEED} is 1.7.7's default)
   * @param prefetch how many steps after the last one returned are gathered ahead (at least 1)
   * @throws IllegalArgumentException if {@code streams} is empty, the stores' sizes differ or are
   *     0 (the message names every stream's size), {@code batchSize} is 0 or {@code prefetch}
   *     less than 1
   * @throws IllegalStateException if a store is closed
   * @throws NullPointerException if {@code streams}, a store or {@code mode} is {@code null}
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
   * divide the batch size or a rank outside the world. Otherwise as {@link #DataLoader(Map, long,
   * SamplerMode, long, int)}; the slices are {@link Sampler}'s ("Rank sharding"), so the ranks
   * need no coordination beyond using the same settings.
   *
   * @param streams the stores to read, by stream name, in batch order; all of the same size
   * @param batchSize records per global batch, all ranks together (at least 1)
   * @param mode how the indices are drawn
   * @param seed the sampler's seed (any value; {@link Sampler#DEFAULT_SEED} is 1.7.7's default)
   * @param prefetch how many steps after the last one returned are gathered ahead (at least 1)
   * @param rank this process's rank, from 0 to {@code worldSize - 1}
   * @param worldSize how many ranks share each global batch (at least 1; 1 is one process)
   * @throws IllegalArgumentException if {@code streams} is empty, the stores' sizes differ or are
   *     0, {@code batchSize} is 0, {@code prefetch} is less than 1, {@code worldSize} is 0 or does
   *     not divide {@code batchSize}, or {@code rank} is not below {@code worldSize}
   * @throws IllegalStateException if a store is closed
   * @throws NullPointerException if {@code streams}, a store or {@code mode} is {@code null}
   */
  public DataLoader(
      Map<String, ? extends TypedStore> streams,
      long batchSize,
      SamplerMode mode,
      long seed,
      int prefetch,
      long rank,
      long worldSize) {
    this(
        named -> {
          List<String> order = new ArrayList<>();
          long[] sizes = new long[streams.size()];
          for (Map.Entry<String, ? extends TypedStore> entry : streams.entrySet()) {
            entry.getValue().handle.run(store -> named.addStore(entry.getKey(), store));
            sizes[order.size()] = entry.getValue().itemSize();
            order.add(entry.getKey());
          }
          return new Streams(order, sizes);
        },
        batchSize,
        mode,
        seed,
        prefetch,
        rank,
        worldSize);
  }

  /**
   * A loader over one store set, as one stream called {@code name}: rank {@code rank} of {@code
   * worldSize} reads its slice of every global batch of {@code batchSize} set records, the
   * members gathered in parallel. Otherwise as {@link #DataLoader(Map, long, SamplerMode, long,
   * int, long, long)}.
   *
   * @param name the stream's name in every batch
   * @param set the set to read; the loader shares it (closing the set's handle leaves it open
   *     until the loader closes)
   * @param batchSize records per global batch, all ranks together (at least 1)
   * @param mode how the indices are drawn
   * @param seed the sampler's seed
   * @param prefetch how many steps are gathered ahead (at least 1)
   * @param rank this process's rank, from 0 to {@code worldSize - 1}
   * @param worldSize how many ranks share each global batch
   * @return the loader
   * @throws IllegalArgumentException as the constructor
   * @throws IllegalStateException if the set is closed
   */
  public static DataLoader overSet(
      String name,
      StoreSet set,
      long batchSize,
      SamplerMode mode,
      long seed,
      int prefetch,
      long rank,
      long worldSize) {
    return new DataLoader(
        named -> {
          set.handle.run(s -> named.addSet(name, s));
          return new Streams(List.of(name), new long[] {set.itemSize()});
        },
        batchSize,
        mode,
        seed,
        prefetch,
        rank,
        worldSize);
  }

  /** The streams' names and item sizes, in batch order. */
  private record Streams(List<String> names, long[] itemSizes) {}

  private DataLoader(
      java.util.function.Function<org.loaderx.internal.LoaderStreams, Streams> add,
      long batchSize,
      SamplerMode mode,
      long seed,
      int prefetch,
      long rank,
      long worldSize) {
    org.loaderx.internal.LoaderStreams named = new org.loaderx.internal.LoaderStreams();
    Streams streams;
    try {
      streams = add.apply(named);
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
    this.names = List.copyOf(streams.names());
    this.itemSizes = streams.itemSizes();
  }

  /**
   * A loader with 1.7.7's defaults: batches of 256, cyclic, seed 42, 4 prefetched.
   *
   * @param streams the stores to read, by stream name, in batch order; all of the same size
   * @throws IllegalArgumentException if {@code streams} is empty or the stores' sizes differ or
   *     are 0
   * @throws IllegalStateException if a store is closed
   */
  public DataLoader(Map<String, ? extends TypedStore> streams) {
    this(streams, 256, SamplerMode.CYCLIC, Sampler.DEFAULT_SEED, 4);
  }

  /**
   * The batch at {@link #step()}, then moves to the next step. Blocks until it is gathered. The
   * caller closes the batch (try-with-resources), which hands its buffers back to the ring.
   * If gathering the step failed, its exception is thrown here, with "step S, stream 'name'" in
   * the message, and the step is consumed: the next call returns the following step, so a
   * transient error costs one batch and a lasting one fails every step that meets it.
   *
   * @return the batch of step {@link #step()}, to be closed by the caller
   * @throws IndexOutOfBoundsException if a store shrank (a delete) below an index of the step
   * @throws java.io.UncheckedIOException if a record could not be read (I/O error, damage)
   * @throws IllegalStateException if the loader is closed
   */
  public Batch next() {
    return new Batch(handle.call(h -> h.next()), itemSizes);
  }

  /**
   * Continues from {@code step}: the next {@code next()} returns that step's batch, exactly as an
   * uninterrupted run would. Drops what was prefetched (gathers in flight finish in the
   * background). Costs what {@link Sampler#seek} costs: O(1), except {@link SamplerMode#IID}, which
   * replays its stream.
   *
   * @param step the step to continue from; an unsigned 64-bit value
   * @throws IllegalStateException if the loader is closed
   */
  public void seek(long step) {
    handle.run(h -> h.seek(step));
  }

  /**
   * {@return the step the next {@code next()} returns: 0 at first, the last seek's target plus
   * the {@code next()} calls since} An unsigned 64-bit value.
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long step() {
    return handle.call(h -> h.step());
  }

  /**
   * {@return the records per stream, the same in every store when the loader was made (the
   * sampler's length)}
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long size() {
    return handle.call(h -> h.size());
  }

  /**
   * {@return the global batch size (all ranks together), as given to the constructor} A batch
   * holds a rank's share of it ({@link Batch#size()}), fewer records only in cyclic mode over
   * fewer records than this.
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long batchSize() {
    return handle.call(h -> h.batchSize());
  }

  /**
   * {@return how the sampler draws the indices, as given to the constructor}
   *
   * @throws IllegalStateException if the loader is closed
   */
  public SamplerMode mode() {
    return SamplerMode.of(handle.call(h -> h.mode()));
  }

  /**
   * {@return the sampler's seed, as given to the constructor}
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long seed() {
    return handle.call(h -> h.seed());
  }

  /**
   * {@return this loader's rank among {@link #worldSize()}, as given to the constructor (0 for one
   * process)}
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long rank() {
    return handle.call(h -> h.rank());
  }

  /**
   * {@return how many ranks share each global batch, as given to the constructor (1 for one
   * process)}
   *
   * @throws IllegalStateException if the loader is closed
   */
  public long worldSize() {
    return handle.call(h -> h.worldSize());
  }

  /**
   * The checkpoint: the next batch's step, the sampler's settings and the data's fingerprint (of
   * the streams' names, types and stores, and the length, taken when the loader was made). Six
   * numbers, the same on every rank; save them with the model and give them to {@link
   * #loadState} of a new loader to continue exactly where this one is.
   *
   * @return the state, {@link LoaderState#step()} being {@link #step()}
   * @throws IllegalStateException if the loader is closed
   */
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
   * batch size, length, mode or seed. The rank and world size may differ from the run that saved
   * it (any world size that divides the batch size): a step means the same global batch at every
   * world size. Then as {@link #seek seek(state.step())}.
   *
   * @param state a state saved by {@link #state()}, here or in an earlier run
   * @throws IllegalArgumentException if {@code state} does not fit this loader; the message names
   *     the first field that differs and both values
   * @throws NullPointerException if {@code state} or its mode is {@code null}
   * @throws IllegalStateException if the loader is closed
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

  /**
   * {@return a snapshot of the ring's counters} May be called from any thread.
   *
   * @throws IllegalStateException if the loader is closed
   */
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

  /**
   * {@return the streams' names, in batch order (the map's order), an unmodifiable list} Works
   * after {@link #close} too.
   */
  public List<String> streamNames() {
    return names;
  }

  /**
   * Stops prefetching and waits for the gathers in flight (and for a {@code next()} in flight on
   * another thread to return), then releases the loader and its shares of the stores; the stores
   * themselves stay open for their owner to close. Batches already handed out stay readable.
   * Idempotent.
   */
  @Override
  public void close() {
    handle.close();
  }
}
