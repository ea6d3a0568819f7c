package org.loaderx;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;

/**
 * Maps a native error (an {@code absl::StatusCode} value, the reference's
 * store error code from {@code loaderx/error_code.h}, and a message) to the
 * Java exception the binding throws: the one table for Java. Called from
 * JNI (see {@code swig/loaderx.i}).
 */
public final class Errors {
  // absl::StatusCode values; stable by Abseil's (and gRPC's) contract.
  static final int INVALID_ARGUMENT = 3;
  static final int NOT_FOUND = 5;
  static final int ALREADY_EXISTS = 6;
  static final int PERMISSION_DENIED = 7;
  static final int FAILED_PRECONDITION = 9;
  static final int OUT_OF_RANGE = 11;
  static final int UNIMPLEMENTED = 12;

  // Store error codes (loaderx 1.7.7's ZrecordError.code) that decide on
  // their own; the rest follow the status code.
  static final int BUSY = -14;
  static final int UNKNOWN_NAME = 1;

  private Errors() {}

  /**
   * The exception for a native error, by this table (first match wins; docs/bindings.md has it
   * beside Python's):
   *
   * <table class="striped">
   * <caption>Native errors and the exceptions they become</caption>
   * <thead>
   * <tr><th scope="col">status (store code)</th><th scope="col">exception</th></tr>
   * </thead>
   * <tbody>
   * <tr><th scope="row">busy (-14)</th><td>{@link StoreBusyException}</td></tr>
   * <tr><th scope="row">unknown plugin name (1)</th><td>{@link IllegalArgumentException}</td></tr>
   * <tr><th scope="row">InvalidArgument (record too large, -4, included)</th>
   * <td>{@link IllegalArgumentException}</td></tr>
   * <tr><th scope="row">OutOfRange (-3)</th><td>{@link IndexOutOfBoundsException}</td></tr>
   * <tr><th scope="row">NotFound (-11)</th>
   * <td>{@link UncheckedIOException} wrapping a {@link FileNotFoundException}</td></tr>
   * <tr><th scope="row">AlreadyExists (-12)</th>
   * <td>{@link UncheckedIOException} wrapping a {@link FileAlreadyExistsException}</td></tr>
   * <tr><th scope="row">PermissionDenied</th>
   * <td>{@link UncheckedIOException} wrapping an {@link AccessDeniedException}</td></tr>
   * <tr><th scope="row">FailedPrecondition (kind mismatch, -13, included)</th>
   * <td>{@link IllegalStateException}</td></tr>
   * <tr><th scope="row">Unimplemented</th><td>{@link UnsupportedOperationException}</td></tr>
   * <tr><th scope="row">anything else: DataLoss (-7, -8), I/O (-2), ...</th>
   * <td>{@link UncheckedIOException} wrapping an {@link IOException}</td></tr>
   * </tbody>
   * </table>
   *
   * <p>Called from JNI when a native call fails; the binding throws what it returns. Every
   * exception carries {@code message} (which names the operation, the path or the index).
   *
   * @param statusCode the {@code absl::StatusCode} value
   * @param errorCode the reference's store error code ({@code loaderx::ErrorCode}; 0 for none)
   * @param message the native error's message
   * @return the exception to throw, never {@code null}
   */
  public static RuntimeException of(int statusCode, int errorCode, String message) {
    if (errorCode == BUSY) {
      return new StoreBusyException(message);
    }
    if (errorCode == UNKNOWN_NAME) {
      return new IllegalArgumentException(message);
    }
    switch (statusCode) {
      case INVALID_ARGUMENT:
        return new IllegalArgumentException(message);
      case OUT_OF_RANGE:
        return new IndexOutOfBoundsException(message);
      case NOT_FOUND:
        return new UncheckedIOException(message, new FileNotFoundException(message));
      case ALREADY_EXISTS:
        return new UncheckedIOException(message, new FileAlreadyExistsException(message));
      case PERMISSION_DENIED:
        return new UncheckedIOException(message, new AccessDeniedException(message));
      case FAILED_PRECONDITION:
        return new IllegalStateException(message);
      case UNIMPLEMENTED:
        return new UnsupportedOperationException(message);
      default:
        return new UncheckedIOException(message, new IOException(message));
    }
  }
}
