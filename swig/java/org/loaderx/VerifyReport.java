package org.loaderx;

import java.util.List;

/**
 * What {@link TypedStore#verify} found ({@code loaderx::VerifyReport}): {@code records} examined,
 * {@code verified} against the checksum written with them, {@code unverified} (no checksum:
 * written by loaderx 1.7.7), the {@code damaged} records' indices (ascending), a line on each of
 * the first few ({@code problems}), and whether store.zr (and dict.zr) matched their checksums.
 */
public record VerifyReport(
    long records,
    long verified,
    long unverified,
    long[] damaged,
    List<String> problems,
    boolean metadataVerified) {
  /** No damaged record. */
  public boolean ok() {
    return damaged.length == 0;
  }
}
