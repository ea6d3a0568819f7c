package org.loaderx;

/**
 * Counters of a {@link DataLoader}'s ring ({@code loaderx::DataLoaderStats}), a snapshot: batches
 * (ring slots) ever made and buffer (re)allocations across them, both of which stop growing once
 * the ring is warm, and the steps whose gathers finished (failed ones included).
 *
 * @param batchesCreated batches (ring slots) the loader ever made
 * @param bufferAllocations stream buffers allocated or grown across those batches
 * @param gathersCompleted steps whose gathers have finished, failed ones included
 */
public record LoaderStats(long batchesCreated, long bufferAllocations, long gathersCompleted) {}
