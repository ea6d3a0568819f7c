package org.loaderx;

/**
 * A store's statistics, as {@code loaderx::StoreStats} and the reference report them: live
 * records, the bytes stored for them, how far the chunks reach ({@code tail_chunk * 2^32 +
 * tail_offset}) and the bytes {@code compact()} could reclaim. Every value is a full 64-bit
 * {@code long}.
 */
public record StoreStats(long records, long liveBytes, long chunkBytes, long reclaimable) {}
