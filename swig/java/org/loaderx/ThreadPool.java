package org.loaderx;

/**
 * The process-wide thread pool every store's compression and gathers, and every loader's
 * prefetching, share ({@code loaderx/thread_pool.h}): native threads, not the JVM's, created on
 * first use. Not instantiable; both methods may be called from any thread.
 */
public final class ThreadPool {
  private ThreadPool() {}

  /**
   * {@return how many threads a call on the default pool may use: its workers plus the calling
   * thread} Unless set, one per core.
   */
  public static int defaultThreadCount() {
    return org.loaderx.internal.LoaderxNative.numThreads();
  }

  /**
   * Sets how many threads a call on the default pool may use, the caller included (1 runs
   * everything on the calling thread). Takes effect for stores and loaders opened afterwards: a
   * new pool replaces the old one, which lives on as long as stores or loaders opened before use
   * it.
   *
   * @param threads at least 1
   */
  public static void setDefaultThreadCount(int threads) {
    org.loaderx.internal.LoaderxNative.setNumThreads(threads);
  }
}
