package org.loaderx;

import java.nio.ByteBuffer;

/**
 * A store of records that each have their own shape ({@code loaderx::RaggedStore}), all of one
 * dtype.
 *
 * <pre>{@code
 * try (Vfs vfs = Vfs.posix();
 *     RaggedStore store = RaggedStore.open(vfs, "/data/tokens",
 *         new StoreRequest().dtype("<i4"))) {
 *   store.append(tokens, tokens.remaining() / 4);        // one record of shape (n,)
 *   ShapedBatch batch = store.read(0, 5);
 *   long[] shape = batch.shape(1);
 *   ByteBuffer record = batch.record(1);                 // a view, native byte order
 * }
 * }</pre>
 *
 * <p>A record is a payload of {@code prod(shape)} items and its shape, written and deleted
 * together; a scalar's shape is empty, and zero-item records are refused. Payloads are raw bytes
 * of the store's dtype in its byte order. Buffers are direct {@link ByteBuffer}s (heap buffers:
 * {@link IllegalArgumentException}); the {@code byte[]} form copies once more.
 *
 * <p>Opening takes the store directory's lock until {@link #close}; errors, thread safety and
 * what {@code close} does are {@link TypedStore}'s.
 */
public final class RaggedStore extends TypedStore {
  private RaggedStore(Vfs vfs, String path, StoreRequest request) {
    super(vfs, path, "ragged", request);
  }

  /**
   * Opens the existing ragged store at {@code path}, for reading and writing; never creates one.
   *
   * @param vfs the filesystem the store is on; the store keeps it open as long as it needs it
   * @param path the store's directory
   * @return the open store, holding the directory's lock until closed
   * @throws java.io.UncheckedIOException wrapping a {@link java.io.FileNotFoundException} if no
   *     store is at {@code path}, or an {@link java.io.IOException} for an I/O error or a
   *     damaged store
   * @throws StoreBusyException if another handle, here or in another process, has it open
   * @throws IllegalStateException if the store at {@code path} is not a ragged one (a dense
   *     store), or {@code vfs} is closed
   */
  public static RaggedStore open(Vfs vfs, String path) {
    return open(vfs, path, new StoreRequest());
  }

  /**
   * Opens the ragged store at {@code path}, checking every field {@code request} sets against it,
   * or, if there is none, creates one from {@code request} (which then needs {@link
   * StoreRequest#dtype}; missing parent directories are created too). The new store exists once
   * its header is durable. A {@link StoreRequest#readOnly} request never creates.
   *
   * @param vfs the filesystem the store is on; the store keeps it open as long as it needs it
   * @param path the store's directory
   * @param request what the store must be, or is created as ({@link StoreRequest#itemShape} must
   *     not be set)
   * @return the open store, holding the directory's lock until closed
   * @throws IllegalArgumentException if {@code request} sets an item shape, a field disagrees
   *     with the existing store, a dictionary is given for an existing store or a codec other
   *     than "zstd_dict", a "zstd_dict" store is created without one, or the dtype, level or
   *     codec name is not valid
   * @throws java.io.UncheckedIOException wrapping a {@link java.io.FileNotFoundException} if no
   *     store is at {@code path} and {@code request} cannot create one (no dtype, or read-only);
   *     wrapping a {@link java.nio.file.FileAlreadyExistsException} if other files are there;
   *     wrapping an {@link java.io.IOException} for an I/O error or a damaged store
   * @throws StoreBusyException if another handle, here or in another process, has it open
   * @throws IllegalStateException if the store at {@code path} is not a ragged one, or {@code
   *     vfs} is closed
   */
  public static RaggedStore open(Vfs vfs, String path, StoreRequest request) {
    return new RaggedStore(vfs, path, request);
  }

  /**
   * Appends one record of {@code shape} whose items are {@code data}'s bytes from position to
   * limit (exactly prod(shape) items, nonempty), in one commit. Leaves the buffer's position as it
   * was. The record is durable once a later {@link #sync()} returns.
   *
   * @param data a direct buffer holding the record's {@code prod(shape) * itemSize()} bytes from
   *     position to limit
   * @param shape the record's dimensions, in items (none for a scalar; at most 64)
   * @return the record's index (the store's size before the call)
   * @throws IllegalArgumentException if {@code data} is a heap buffer, its byte count is not
   *     {@code prod(shape) * itemSize()}, the record has no items, a dimension is negative or
   *     there are more than 64
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error (nothing is appended)
   */
  public long append(ByteBuffer data, long... shape) {
    long[] batchShape = new long[shape.length + 1];
    batchShape[0] = 1;
    System.arraycopy(shape, 0, batchShape, 1, shape.length);
    return appendArray(batchShape, data);
  }

  /**
   * {@link #append(ByteBuffer, long...)} of a copy of {@code data}.
   *
   * @param data the record's {@code prod(shape) * itemSize()} bytes
   * @param shape the record's dimensions, in items (none for a scalar)
   * @return the record's index
   * @throws IllegalArgumentException if the byte count is not {@code prod(shape) * itemSize()},
   *     the record has no items, a dimension is negative or there are more than 64
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error (nothing is appended)
   */
  public long append(byte[] data, long... shape) {
    return append(ByteBuffer.allocateDirect(data.length).put(data).flip(), shape);
  }

  /**
   * Reads the records at {@code indices} in one pass into one new direct buffer, back to back in
   * the order given (an index may repeat); every shape is checked against its payload before
   * anything is read, and every record against the checksum written with it. The batch owns its
   * buffer: it stays valid after the store closes.
   *
   * @param indices the records to read, each in {@code [0, size())}; none gives an empty batch
   * @return the records with their shapes and offsets
   * @throws IndexOutOfBoundsException naming an index that is negative or not less than {@link
   *     #size()}
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error or a damaged record (a shape that does
   *     not describe its payload included)
   */
  public ShapedBatch read(long... indices) {
    return handle.call(
        h -> {
          ByteBuffer[] out = new ByteBuffer[1];
          long[][] layout = h.read(indices, out);
          ByteBuffer data = out[0] != null ? out[0] : ByteBuffer.allocateDirect(0);
          return new ShapedBatch(data, layout, h.itemSize());
        });
  }
}
