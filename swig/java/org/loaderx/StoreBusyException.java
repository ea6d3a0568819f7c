package org.loaderx;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Another handle or process holds the store's (or file's) lock: a store opened twice for
 * writing, a writer opened while read-only handles hold it (or the other way round), or {@link
 * Vfs#lock} of a locked file. Nothing was changed; the call may succeed once the other holder
 * closes. The reference's store error code -14; an {@link UncheckedIOException}, whose cause is
 * an {@link IOException} with the same message.
 */
public final class StoreBusyException extends UncheckedIOException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with {@code message}, also the message of its {@link IOException} cause.
   * Thrown by the binding ({@link Errors#of}); there is little reason to construct one elsewhere.
   *
   * @param message what is busy, naming the path
   */
  public StoreBusyException(String message) {
    super(message, new IOException(message));
  }
}
