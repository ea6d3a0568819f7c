package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The step-based index sampler ({@code loaderx::Sampler}), bit-exact with loaderx 1.7.7: step
 * {@code s} always yields the same batch of indices into {@code [0, length)} for a given seed.
 *
 * <pre>{@code
 * try (Sampler sampler = new Sampler(1_000_000, 256, SamplerMode.CYCLIC, 42)) {
 *   long[] first = sampler.next();
 * }
 * }</pre>
 *
 * <p>Lengths, batch sizes, seeds, steps and indices are unsigned 64-bit values in {@code long}s
 * with every bit kept: values of 2^63 and above read as negative ({@code Long.toUnsignedString},
 * {@code Long.compareUnsigned}). Not for concurrent use.
 */
public final class Sampler implements AutoCloseable {
  /** 1.7.7's default seed. */
  public static final long DEFAULT_SEED = 42;

  private final NativeHandle<org.loaderx.internal.Sampler> handle;
  private final ByteBuffer scratch; // One batch of native-order uint64s.

  /** {@link IllegalArgumentException} for a zero length or batch size. */
  public Sampler(long length, long batchSize, SamplerMode mode, long seed) {
    this(length, batchSize, mode, seed, 0, 1);
  }

  /**
   * Rank {@code rank} of {@code worldSize}: each batch is that rank's contiguous slice of the
   * global batch, so the ranks' slices concatenated are the single-process batch. {@link
   * IllegalArgumentException} for a world size that does not divide the batch size.
   */
  public Sampler(long length, long batchSize, SamplerMode mode, long seed, long rank,
      long worldSize) {
    org.loaderx.internal.Sampler sampler =
        new org.loaderx.internal.Sampler(length, batchSize, mode.number(), seed, rank, worldSize);
    this.handle = new NativeHandle<>("Sampler", sampler, org.loaderx.internal.Sampler::delete);
    this.scratch =
        ByteBuffer.allocateDirect(Math.toIntExact(8 * sampler.batchLength()))
            .order(ByteOrder.nativeOrder());
  }

  public Sampler(long length, long batchSize, SamplerMode mode) {
    this(length, batchSize, mode, DEFAULT_SEED);
  }

  public long rank() {
    return handle.call(h -> h.rank());
  }

  public long worldSize() {
    return handle.call(h -> h.worldSize());
  }

  /** Most indices per batch: min(batch size, length), divided among the world's ranks. */
  public long batchLength() {
    return handle.call(h -> h.batchLength());
  }

  /** The current step's batch; moves to the next step. */
  public long[] next() {
    return handle.call(h -> indices(h.nextInto(scratch.clear())));
  }

  /** Batch {@code step}, without moving (IID replays its stream to get there). */
  public long[] batch(long step) {
    return handle.call(h -> indices(h.batchInto(step, scratch.clear())));
  }

  /**
   * Writes the current step's batch into {@code out} at its position (native-order uint64s,
   * room for {@link #batchLength()} of them) and moves to the next step; returns how many
   * indices it wrote and advances the position past them.
   */
  public long nextInto(ByteBuffer out) {
    long written = handle.call(h -> h.nextInto(out));
    out.position(out.position() + (int) (8 * written));
    return written;
  }

  private long[] indices(long count) {
    long[] values = new long[(int) count];
    scratch.asLongBuffer().get(values);
    return values;
  }

  /** Moves to {@code step} (IID replays its stream, O(step * batch size)). */
  public void seek(long step) {
    handle.run(h -> h.seek(step));
  }

  public long step() {
    return handle.call(h -> h.step());
  }

  public long length() {
    return handle.call(h -> h.length());
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

  /** Batches in one cycle through the records. */
  public long batchesPerCycle() {
    return handle.call(h -> h.batchesPerCycle());
  }

  @Override
  public void close() {
    handle.close();
  }
}
