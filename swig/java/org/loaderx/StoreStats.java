package org.loaderx;

/**
 * A store's statistics, as {@code loaderx::StoreStats} and the reference report them: live
 * records, the bytes stored for them, how far the chunks reach ({@code tail_chunk * 2^32 +
 * tail_offset}) and the bytes {@code compact()} could reclaim. Every value is a full 64-bit
 * {@code long}.
 *
 * @param records the live records ({@link TypedStore#size()})
 * @param liveBytes the bytes stored for them, as compressed (a ragged store's shapes included)
 * @param chunkBytes how far the chunk files reach: {@code tail_chunk * 2^32 + tail_offset}, the
 *     bytes written for a store of one chunk
 * @param reclaimable {@code chunkBytes - liveBytes}: an upper bound on what {@link
 *     TypedStore#compact()} reclaims
 */
public record StoreStats(long records, long liveBytes, long chunkBytes, long reclaimable) {
  /**
   * The statistics the binding returned, which this call frees.
   *
   * @param stats the binding's statistics; deleted before this returns
   * @return the same figures as Java values
   */
  static StoreStats fromNative(org.loaderx.internal.StoreStats stats) {
    try {
      return new StoreStats(
          stats.getRecords(), stats.getLive_bytes(), stats.getChunk_bytes(), stats.getReclaimable());
    } finally {
      stats.delete();
    }
  }
}
