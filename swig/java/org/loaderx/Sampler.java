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
 * {@code Long.compareUnsigned}). Not for concurrent use: calls from several threads need the
 * caller's own lock. After {@link #close} every method throws {@link IllegalStateException}.
 *
 * <p>Modes ({@link SamplerMode}): sequential slides a window of one batch over the indices,
 * wrapping at the length; IID draws each index uniformly, with replacement, from one stream;
 * cyclic walks a fresh pseudo-random permutation each cycle, {@link #batchesPerCycle()} batches
 * of {@link #batchSize()} indices (the last {@code length % batchSize} positions of each cycle's
 * permutation are skipped, different records each cycle); keyed IID draws like IID but makes
 * batch {@code s} a function of {@code (seed, s)} alone (not 1.7.7's sequence).
 *
 * <p>Costs: {@link #next()} is O(batch size); {@link #seek} is O(1) and {@link #batch} O(batch
 * size) in every mode but IID, which replays its stream: O(distance * batch size), the distance
 * counted from the current step going forward, from step 0 going back. {@code seek} follows
 * 1.7.7's formulas in wrapping 64-bit arithmetic, so in sequential and IID modes it lands where
 * that many {@code next()} calls would only while {@code step * batchSize < 2^64}.
 *
 * <p>Rank sharding (data-parallel training): a sampler made as rank {@code rank} of {@code
 * worldSize} draws the same global batches as the single-process sampler of the same length,
 * batch size, mode and seed, and returns only the rank's contiguous slice of each: positions
 * {@code [rank * batchSize / worldSize, (rank + 1) * batchSize / worldSize)} of the global batch,
 * clipped to the batch's own length (only cyclic batches over fewer indices than the batch size
 * are shorter). The ranks' slices, in rank order, are exactly the global batch, with no
 * coordination between ranks; each rank's costs are the global batch's. A step means the same
 * global batch at every world size.
 */
public final class Sampler implements AutoCloseable {
  /** 1.7.7's default seed. */
  public static final long DEFAULT_SEED = 42;

  private final NativeHandle<org.loaderx.internal.Sampler> handle;
  private final ByteBuffer scratch; // One batch of native-order uint64s.

  /**
   * A sampler at step 0.
   *
   * @param length how many indices to draw from: every index is in {@code [0, length)}
   * @param batchSize indices per batch (see {@link #batchLength()})
   * @param mode how the indices are drawn
   * @param seed the seed; any value, 1.7.7's sequences for the same one
   * @throws IllegalArgumentException if {@code length} or {@code batchSize} is 0
   * @throws ArithmeticException if one batch of indices does not fit a buffer (2^28 indices or
   *     more)
   * @throws NullPointerException if {@code mode} is {@code null}
   */
  public Sampler(long length, long batchSize, SamplerMode mode, long seed) {
    this(length, batchSize, mode, seed, 0, 1);
  }

  /**
   * Rank {@code rank} of {@code worldSize}: each batch is that rank's contiguous slice of the
   * global batch, so the ranks' slices concatenated are the single-process batch. {@link
   * IllegalArgumentException} for a world size that does not divide the batch size. See the class
   * comment, "Rank sharding".
   *
   * @param length how many indices to draw from: every index is in {@code [0, length)}
   * @param batchSize indices per global batch, all ranks together
   * @param mode how the indices are drawn
   * @param seed the seed; any value, 1.7.7's sequences for the same one
   * @param rank this sampler's rank, from 0 to {@code worldSize - 1}
   * @param worldSize how many ranks share each global batch (at least 1; 1 is unsharded)
   * @throws IllegalArgumentException if {@code length} or {@code batchSize} is 0, {@code
   *     worldSize} is 0 or does not divide {@code batchSize}, or {@code rank} is not below {@code
   *     worldSize}
   * @throws ArithmeticException if one batch of indices does not fit a buffer
   * @throws NullPointerException if {@code mode} is {@code null}
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

  /**
   * A sampler at step 0 with 1.7.7's default seed, {@link #DEFAULT_SEED}.
   *
   * @param length how many indices to draw from: every index is in {@code [0, length)}
   * @param batchSize indices per batch (see {@link #batchLength()})
   * @param mode how the indices are drawn
   * @throws IllegalArgumentException if {@code length} or {@code batchSize} is 0
   * @throws ArithmeticException if one batch of indices does not fit a buffer
   * @throws NullPointerException if {@code mode} is {@code null}
   */
  public Sampler(long length, long batchSize, SamplerMode mode) {
    this(length, batchSize, mode, DEFAULT_SEED);
  }

  /** {@return this sampler's rank among {@link #worldSize()}, as given (0 unsharded)} */
  public long rank() {
    return handle.call(h -> h.rank());
  }

  /** {@return how many ranks share each global batch, as given (1 unsharded)} */
  public long worldSize() {
    return handle.call(h -> h.worldSize());
  }

  /**
   * {@return the most indices a batch holds} Unsharded: the batch size, except in cyclic mode over
   * fewer indices than the batch size, where every batch holds each index once, the length
   * (sequential and IID batches hold the batch size even then, repeating indices). A shard's:
   * {@code batchSize / worldSize}, or the global batch length if that is smaller; a shard of a
   * short (cyclic) batch may get fewer, even none.
   */
  public long batchLength() {
    return handle.call(h -> h.batchLength());
  }

  /**
   * The current step's batch (a shard: its slice); moves to the next step.
   *
   * @return the indices, a new array of {@link #batchLength()} (fewer only for a shard of a short
   *     batch)
   */
  public long[] next() {
    return handle.call(h -> indices(h.nextInto(scratch.clear())));
  }

  /**
   * Batch {@code step}, what {@code seek(step)} then {@code next()} would return, without moving
   * (IID replays its stream to get there: see the class comment for the cost).
   *
   * @param step the step; an unsigned 64-bit value
   * @return the indices, a new array of {@link #batchLength()} (fewer only for a shard of a short
   *     batch)
   */
  public long[] batch(long step) {
    return handle.call(h -> indices(h.batchInto(step, scratch.clear())));
  }

  /**
   * Writes the current step's batch into {@code out} at its position (native-order uint64s,
   * room for {@link #batchLength()} of them) and moves to the next step; returns how many
   * indices it wrote and advances the position past them. Bytes past them are left alone.
   *
   * @param out a direct, writable buffer with at least {@code 8 * batchLength()} bytes remaining,
   *     a multiple of 8
   * @return how many indices were written: {@link #batchLength()} (fewer only for a shard of a
   *     short batch)
   * @throws IllegalArgumentException if {@code out} is a heap or read-only buffer, or its
   *     remaining bytes are too few or not a multiple of 8 (nothing is written, the sampler does
   *     not move)
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

  /**
   * Moves to {@code step}: the next {@code next()} returns that step's batch. O(1), except in IID
   * mode, which replays its stream (see the class comment).
   *
   * @param step the step; an unsigned 64-bit value
   */
  public void seek(long step) {
    handle.run(h -> h.seek(step));
  }

  /**
   * {@return the step the next {@code next()} returns: the last seek's target (0 at first) plus
   * the {@code next()} calls since, modulo 2^64}
   */
  public long step() {
    return handle.call(h -> h.step());
  }

  /** {@return the length, as given to the constructor: indices are in {@code [0, length)}} */
  public long length() {
    return handle.call(h -> h.length());
  }

  /** {@return the batch size, as given to the constructor} */
  public long batchSize() {
    return handle.call(h -> h.batchSize());
  }

  /** {@return the mode, as given to the constructor} */
  public SamplerMode mode() {
    return SamplerMode.of(handle.call(h -> h.mode()));
  }

  /** {@return the seed, as given to the constructor} */
  public long seed() {
    return handle.call(h -> h.seed());
  }

  /**
   * {@return the batches in one cycle through the records: {@code length / batchSize} rounded
   * down, or 1 when the length is less than the batch size} 1.7.7's steps per cycle, in every
   * mode, though only cyclic mode has cycles.
   */
  public long batchesPerCycle() {
    return handle.call(h -> h.batchesPerCycle());
  }

  /** Releases the native sampler; later calls throw {@link IllegalStateException}. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
