package org.loaderx;

import java.util.List;

/**
 * What {@link TypedStore#verify} found ({@code loaderx::VerifyReport}): {@code records} examined,
 * {@code verified} against the checksum written with them, {@code unverified} (no checksum:
 * written by loaderx 1.7.7), the {@code damaged} records' indices (ascending), a line on each of
 * the first few ({@code problems}), and whether store.zr (and dict.zr) matched their checksums.
 * {@code records == verified + unverified + damaged.length}.
 *
 * @param records the records examined: every record of the store when the verification started
 * @param verified the records whose stored bytes match the checksum written with them
 * @param unverified the records that read back but have no checksum to compare against (written
 *     or moved by a program that keeps none, such as loaderx 1.7.7)
 * @param damaged the indices of the damaged records, ascending: their bytes fail their checksum,
 *     do not decode, or lie outside the store (the array itself, not a copy)
 * @param problems what is wrong with the first few damaged records, one line each
 * @param metadataVerified whether store.zr (and dict.zr) matched checksums written with them;
 *     {@code false} for a store created by a program that keeps none and for metadata adopted as
 *     found (a mismatch fails the open itself)
 * @param removedRecords records the store had and no longer has, with nothing this library did
 *     to explain it (meta.zr's length became smaller than checksums.lx's record of it: loaderx
 *     1.7.7's delete of the last records, or damage)
 * @param metadataProblems differences between checksums.lx and the files that cannot be told from
 *     damage, one line each; {@link TypedStore#acceptMetadataProblems()} accepts them
 * @param notes what is worth knowing but wrong with nothing
 */
public record VerifyReport(
    long records,
    long verified,
    long unverified,
    long[] damaged,
    List<String> problems,
    boolean metadataVerified,
    long removedRecords,
    List<String> metadataProblems,
    List<String> notes) {
  /**
   * The report a native verification produced, which this call frees.
   *
   * @param result the binding's result; deleted before this returns
   * @return the same report as Java values
   */
  static VerifyReport fromNative(org.loaderx.internal.VerifyResult result) {
    try {
      return new VerifyReport(
          result.records(),
          result.verified(),
          result.unverified(),
          result.damaged(),
          List.copyOf(result.problems()),
          result.metadataVerified(),
          result.removedRecords(),
          List.copyOf(result.metadataProblems()),
          List.copyOf(result.notes()));
    } finally {
      result.delete();
    }
  }

  /** {@return whether no record is damaged and no metadata problem was found} */
  public boolean ok() {
    return damaged.length == 0 && metadataProblems.isEmpty();
  }
}
