package org.loaderx.internal;

import java.nio.ByteBuffer;

/**
 * Checks a buffer before it crosses into native code: direct (native code reads and writes its
 * memory in place), writable where it is written. Returns the view native code sees, the bytes
 * from position to limit. Not part of the API.
 */
public final class Buffers {
  private Buffers() {}

  /** {@code buffer}'s remaining bytes, for native code to read. */
  public static ByteBuffer readable(ByteBuffer buffer) {
    if (buffer == null) throw new NullPointerException("null buffer");
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException(
          "expected a direct ByteBuffer (ByteBuffer.allocateDirect), got a heap buffer");
    }
    return buffer.slice();
  }

  /** {@code buffer}'s remaining bytes, for native code to fill. */
  public static ByteBuffer writable(ByteBuffer buffer) {
    ByteBuffer view = readable(buffer);
    if (buffer.isReadOnly()) {
      throw new IllegalArgumentException("expected a writable ByteBuffer, got a read-only one");
    }
    return view;
  }
}
