package org.loaderx;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The native object behind a public class, released exactly once. Every call runs under a read
 * lock and {@link #close} takes the write lock, so a call racing a close either finishes first
 * or sees the object closed ({@link IllegalStateException}); native memory is never used after
 * it is freed.
 */
final class NativeHandle<T> implements AutoCloseable {
  private final String what;
  private final Consumer<T> release;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private T handle;

  NativeHandle(String what, T handle, Consumer<T> release) {
    this.what = what;
    this.handle = handle;
    this.release = release;
  }

  <R> R call(Function<T, R> body) {
    lock.readLock().lock();
    try {
      if (handle == null) throw new IllegalStateException(what + " is closed");
      return body.apply(handle);
    } finally {
      lock.readLock().unlock();
    }
  }

  void run(Consumer<T> body) {
    call(
        h -> {
          body.accept(h);
          return null;
        });
  }

  boolean isClosed() {
    lock.readLock().lock();
    try {
      return handle == null;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Releases the native object; later calls do nothing. */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (handle != null) release.accept(handle);
      handle = null;
    } finally {
      lock.writeLock().unlock();
    }
  }
}
