package org.loaderx;

import java.util.OptionalLong;

/**
 * What {@link TypedStore#compact()} would do ({@code loaderx::CompactionEstimate}), from {@link
 * TypedStore#estimateCompaction()}.
 *
 * @param moves the records that would move (a staged one twice; a ragged store's shape records
 *     count too)
 * @param batches the journaled steps, each one commit
 * @param reclaimedBytes the chunk bytes no live record uses: what compaction gives back
 * @param neededBytes the new bytes it writes before it gives any back (records staged past the
 *     end, journal records larger than the journal's reserve)
 * @param availableBytes the filesystem's free space now, empty if it does not say
 */
public record CompactionEstimate(
    long moves,
    long batches,
    long reclaimedBytes,
    long neededBytes,
    OptionalLong availableBytes) {}
