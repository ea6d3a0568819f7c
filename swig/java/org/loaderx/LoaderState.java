package org.loaderx;

/**
 * A {@link DataLoader}'s whole checkpoint ({@code loaderx::LoaderState}): six numbers, whatever
 * the data set's size or the world size. {@code step} is the next batch's step, {@code batchSize}
 * the global batch (all ranks together), {@code fingerprint} identifies the data set's committed
 * state. Every rank of a run saves the same state; it resumes a loader of any world size that
 * divides the batch size ({@link DataLoader#loadState}). The numbers are unsigned 64-bit values
 * with every bit kept; a plain value, safe to share and to store (e.g. as six longs beside a
 * model checkpoint).
 *
 * @param step the step of the next batch the loader returns
 * @param seed the sampler's seed
 * @param mode how the sampler draws indices
 * @param batchSize the global batch size, all ranks together
 * @param length the records in the data set (the sampler's length)
 * @param fingerprint the data set's fingerprint: the streams' names, types and stores' committed
 *     states and the length, hashed; any append, delete or compaction changes it
 */
public record LoaderState(
    long step, long seed, SamplerMode mode, long batchSize, long length, long fingerprint) {}
