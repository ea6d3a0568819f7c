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
 *     {@code false} for a store created by a program that keeps none (a mismatch fails the open
 *     itself)
 */
public record VerifyReport(
    long records,
    long verified,
    long unverified,
    long[] damaged,
    List<String> problems,
    boolean metadataVerified) {
  /** {@return whether no record is damaged: {@code damaged().length == 0}} */
  public boolean ok() {
    return damaged.length == 0;
  }
}
