package org.loaderx;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Another handle or process holds the store's (or file's) lock. */
public final class StoreBusyException extends UncheckedIOException {
  private static final long serialVersionUID = 1L;

  public StoreBusyException(String message) {
    super(message, new IOException(message));
  }
}
