package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Trains zstd dictionaries for "zstd_dict" stores ({@code loaderx/zstd_dictionary.h}): train on
 * settled data, then give the result to {@link StoreRequest#dictionary} when creating the store.
 * Not instantiable; {@link #train} may be called from any thread.
 */
public final class ZstdDictionary {
  private ZstdDictionary() {}

  /**
   * A dictionary of at most {@code capacity} bytes trained on {@code samples} (typically records
   * of the data to store), as zstd's trainer does with default parameters. Too few or too small
   * samples: {@link IllegalArgumentException}. The same samples give the same dictionary as
   * loaderx 1.7.7's {@code train_dict}.
   *
   * @param samples the training samples, each one record's bytes (a strided subset of the
   *     records does well)
   * @param capacity the largest dictionary wanted, in bytes (more than 0)
   * @return the dictionary's bytes, at most {@code capacity} of them
   * @throws IllegalArgumentException if {@code capacity} is 0 or the samples are too few or too
   *     small to train on
   * @throws ArithmeticException if the samples hold more than {@link Integer#MAX_VALUE} bytes
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
