package org.loaderx;

/** An exclusive lock on a file ({@link Vfs#lock}), held until {@link #close}. */
public final class FileLock implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.FileLock> handle;
  private final String path;

  FileLock(org.loaderx.internal.FileLock lock) {
    this.path = lock.path();
    this.handle = new NativeHandle<>("FileLock", lock, org.loaderx.internal.FileLock::delete);
  }

  public String path() {
    return path;
  }

  /** Whether the lock is still held (false once closed). */
  public boolean held() {
    return !handle.isClosed() && handle.call(org.loaderx.internal.FileLock::held);
  }

  /** Releases the lock; later calls do nothing. */
  @Override
  public void close() {
    handle.close();
  }
}
