package org.loaderx;

/**
 * An exclusive advisory lock on a file ({@link Vfs#lock}), held until {@link #close}: while it is
 * held, every other attempt to lock the file, through any handle in this process or another,
 * fails with {@link StoreBusyException}. It keeps its filesystem alive, so it works after the
 * {@link Vfs} handle that made it is closed. Its methods may be called from any thread. A lock
 * not closed is released only if the garbage collector happens to finalize it, or when the
 * process ends: close it (try-with-resources).
 */
public final class FileLock implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.FileLock> handle;
  private final String path;

  FileLock(org.loaderx.internal.FileLock lock) {
    this.path = lock.path();
    this.handle = new NativeHandle<>("FileLock", lock, org.loaderx.internal.FileLock::delete);
  }

  /** {@return the path of the locked file, as given to {@link Vfs#lock}} Works after close too. */
  public String path() {
    return path;
  }

  /** {@return whether the lock is still held: {@code true} until {@link #close}} */
  public boolean held() {
    return !handle.isClosed() && handle.call(org.loaderx.internal.FileLock::held);
  }

  /**
   * Releases the lock; another handle may take it at once. Idempotent: later calls do nothing.
   */
  @Override
  public void close() {
    handle.close();
  }
}
