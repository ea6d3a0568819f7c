package org.loaderx;

/** How a {@link Sampler} draws indices ({@code loaderx::SamplerMode}, 1.7.7's numbers). */
public enum SamplerMode {
  /** 0, 1, 2, ... wrapping at the length. */
  SEQUENTIAL(0),
  /** Uniform with replacement, one stream from the seed (loaderx 1.7.7's). */
  IID(1),
  /** A fresh permutation per cycle through the records (loaderx 1.7.7's default). */
  CYCLIC(2),
  /** Uniform with replacement, keyed by step (O(1) seek); not in 1.7.7. */
  IID_KEYED(3);

  private final int number;

  SamplerMode(int number) {
    this.number = number;
  }

  /** {@return 1.7.7's number for the mode (0 to 3), as its {@code Sampler.Mode} numbers it} */
  public int number() {
    return number;
  }

  /**
   * The mode numbered {@code number}.
   *
   * @param number 1.7.7's number for the mode, 0 to 3
   * @return the mode with that {@link #number()}
   * @throws IllegalArgumentException if no mode has that number
   */
  public static SamplerMode of(int number) {
    for (SamplerMode mode : values()) {
      if (mode.number == number) return mode;
    }
    throw new IllegalArgumentException("sampler: unknown mode " + number);
  }
}
