package org.loaderx;

/**
 * A {@link DataLoader}'s whole checkpoint ({@code loaderx::LoaderState}): six numbers, whatever
 * the data set's size or the world size. {@code step} is the next batch's step, {@code batchSize}
 * the global batch (all ranks together), {@code fingerprint} identifies the data set's committed
 * state. Every rank of a run saves the same state; it resumes a loader of any world size that
 * divides the batch size ({@link DataLoader#loadState}).
 */
public record LoaderState(
    long step, long seed, SamplerMode mode, long batchSize, long length, long fingerprint) {}
