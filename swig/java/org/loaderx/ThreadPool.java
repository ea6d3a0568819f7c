package org.loaderx;

/**
 * The process-wide thread pool every store's compression and gathers share ({@code
 * loaderx/thread_pool.h}).
 */
public final class ThreadPool {
  private ThreadPool() {}

  /** How many threads a call may use (the caller counts as one). */
  public static int defaultThreadCount() {
    return org.loaderx.internal.LoaderxNative.numThreads();
  }

  /** Sets it (at least 1) for stores opened afterwards. */
  public static void setDefaultThreadCount(int threads) {
    org.loaderx.internal.LoaderxNative.setNumThreads(threads);
  }
}
