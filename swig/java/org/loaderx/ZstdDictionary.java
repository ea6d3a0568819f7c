package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/** Trains zstd dictionaries for "zstd_dict" stores ({@code loaderx/zstd_dictionary.h}). */
public final class ZstdDictionary {
  private ZstdDictionary() {}

  /**
   * A dictionary of at most {@code capacity} bytes trained on {@code samples} (typically records
   * of the data to store), as zstd's trainer does with default parameters. Too few or too small
   * samples: {@link IllegalArgumentException}.
   */
  public static byte[] train(List<byte[]> samples, long capacity) {
    long total = 0;
    for (byte[] sample : samples) total += sample.length;
    ByteBuffer data = ByteBuffer.allocateDirect(Math.toIntExact(total));
    ByteBuffer sizes =
        ByteBuffer.allocateDirect(8 * samples.size()).order(ByteOrder.nativeOrder());
    for (byte[] sample : samples) {
      data.put(sample);
      sizes.putLong(sample.length);
    }
    return org.loaderx.internal.LoaderxNative.trainZstdDictionary(
        data.flip(), sizes.flip(), capacity);
  }
}
