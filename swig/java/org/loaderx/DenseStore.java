package org.loaderx;

import java.nio.ByteBuffer;

/**
 * A store of fixed-shape records ({@code loaderx::DenseStore}): every record one C-order array of
 * {@link #itemShape()} items of {@link #dtype()}, {@link #recordBytes()} bytes.
 *
 * <pre>{@code
 * try (Vfs vfs = Vfs.posix();
 *     DenseStore store = DenseStore.open(vfs, "/data/images",
 *         new StoreRequest().dtype("|u1").itemShape(32, 32, 3).codec("zstd"))) {
 *   store.append(ByteBuffer.allocateDirect(10 * 3072));   // ten records
 *   ByteBuffer batch = ByteBuffer.allocateDirect(2 * 3072);
 *   store.gather(new long[] {7, 2}, batch);               // in place, no copy
 * }
 * }</pre>
 *
 * <p>Buffers are direct {@link ByteBuffer}s read from or written at their position (heap or
 * read-only buffers where one is written: {@link IllegalArgumentException}); the {@code byte[]}
 * forms copy once more. Records are raw bytes of the store's dtype in its byte order (a {@code
 * "<f4"} store holds little-endian floats whatever the buffer's {@link java.nio.ByteOrder}).
 *
 * <p>Opening takes the store directory's lock until {@link #close}; errors, thread safety and
 * what {@code close} does are {@link TypedStore}'s.
 */
public final class DenseStore extends TypedStore {
  private DenseStore(Vfs vfs, String path, StoreRequest request) {
    super(vfs, path, "dense", request);
  }

  /**
   * Opens the existing dense store at {@code path}, for reading and writing; never creates one.
   *
   * @param vfs the filesystem the store is on; the store keeps it open as long as it needs it
   * @param path the store's directory
   * @return the open store, holding the directory's lock until closed
   * @throws java.io.UncheckedIOException wrapping a {@link java.io.FileNotFoundException} if no
   *     store is at {@code path}, or an {@link java.io.IOException} for an I/O error or a
   *     damaged store
   * @throws StoreBusyException if another handle, here or in another process, has it open
   * @throws IllegalStateException if the store at {@code path} is not a dense one (a ragged
   *     store), or {@code vfs} is closed
   */
  public static DenseStore open(Vfs vfs, String path) {
    return open(vfs, path, new StoreRequest());
  }

  /**
   * Opens the dense store at {@code path}, checking every field {@code request} sets against it,
   * or, if there is none, creates one from {@code request} (which then needs {@link
   * StoreRequest#dtype} and {@link StoreRequest#itemShape}; missing parent directories are
   * created too). The new store exists once its header is durable. A {@link
   * StoreRequest#readOnly} request never creates.
   *
   * @param vfs the filesystem the store is on; the store keeps it open as long as it needs it
   * @param path the store's directory
   * @param request what the store must be, or is created as
   * @return the open store, holding the directory's lock until closed
   * @throws IllegalArgumentException if a field of {@code request} disagrees with the existing
   *     store, a dictionary is given for an existing store or a codec other than "zstd_dict", a
   *     "zstd_dict" store is created without one, the dtype, shape, level or codec name is not
   *     valid
   * @throws java.io.UncheckedIOException wrapping a {@link java.io.FileNotFoundException} if no
   *     store is at {@code path} and {@code request} cannot create one (no dtype or item shape,
   *     or read-only); wrapping a {@link java.nio.file.FileAlreadyExistsException} if other files
   *     are there; wrapping an {@link java.io.IOException} for an I/O error or a damaged store
   * @throws StoreBusyException if another handle, here or in another process, has it open
   * @throws IllegalStateException if the store at {@code path} is not a dense one, or {@code vfs}
   *     is closed
   */
  public static DenseStore open(Vfs vfs, String path, StoreRequest request) {
    return new DenseStore(vfs, path, request);
  }

  /**
   * {@return the shape of every record, in items, as a new array (empty: every record is one
   * scalar)}
   *
   * @throws IllegalStateException if the store is closed
   */
  public long[] itemShape() {
    return handle.call(h -> h.itemShape());
  }

  /**
   * {@return the bytes per record: {@link #itemSize()} times the product of {@link #itemShape()}}
   *
   * @throws IllegalStateException if the store is closed
   */
  public long recordBytes() {
    return handle.call(h -> h.recordBytes());
  }

  /**
   * Appends the whole records in {@code records} (position to limit, a nonzero multiple of
   * {@link #recordBytes()}, back to back) in one commit: all of them or, on any error, none.
   * Leaves the buffer's position as it was. The records are durable once a later {@link #sync()}
   * returns; a crash before that may lose them, never records made durable earlier.
   *
   * @param records a direct buffer holding the records' bytes from position to limit
   * @return the index of the first record appended (the store's size before the call)
   * @throws IllegalArgumentException if {@code records} is a heap buffer, empty, or not a whole
   *     number of records
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error (nothing is appended)
   */
  public long append(ByteBuffer records) {
    long[] itemShape = itemShape();
    long[] shape = new long[itemShape.length + 1];
    shape[0] = records.remaining() / Math.max(1, recordBytes());
    System.arraycopy(itemShape, 0, shape, 1, itemShape.length);
    return appendArray(shape, records);
  }

  /**
   * {@link #append(ByteBuffer)} of a copy of {@code records}.
   *
   * @param records the records' bytes, back to back
   * @return the index of the first record appended
   * @throws IllegalArgumentException if {@code records} is empty or not a whole number of records
   * @throws IllegalStateException if the store is closed or was opened read-only
   * @throws java.io.UncheckedIOException for an I/O error (nothing is appended)
   */
  public long append(byte[] records) {
    return append(ByteBuffer.allocateDirect(records.length).put(records).flip());
  }

  /**
   * Reads the records at {@code indices} into {@code out} at its position, back to back in the
   * order given (an index may repeat), and advances the position past them. {@code out} needs
   * {@code indices.length * recordBytes()} bytes remaining (fewer: {@link
   * IllegalArgumentException}, nothing written); bytes past them are left alone. On any error the
   * position does not move, though part of the bytes may have been written. Every record is
   * checked against the checksum written with it.
   *
   * @param indices the records to read, each in {@code [0, size())}
   * @param out a direct, writable buffer with room for the records at its position
   * @throws IllegalArgumentException if {@code out} is a heap or read-only buffer or has too
   *     little room
   * @throws IndexOutOfBoundsException naming an index that is negative or not less than {@link
   *     #size()}
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error or a damaged record
   */
  public void gather(long[] indices, ByteBuffer out) {
    long need = indices.length * recordBytes();
    int bytes = (int) Math.min(need, out.remaining());
    ByteBuffer view = out.slice(out.position(), bytes);
    handle.run(h -> h.gatherInto(indices, view));
    out.position(out.position() + bytes);
  }

  /**
   * The records at {@code indices}, back to back in the order given, as a new array: {@link
   * #gather(long[], ByteBuffer)} into a temporary buffer, then copied.
   *
   * @param indices the records to read, each in {@code [0, size())}
   * @return {@code indices.length * recordBytes()} bytes
   * @throws IllegalArgumentException if the records do not fit one {@code byte[]}
   * @throws IndexOutOfBoundsException naming an index that is negative or not less than {@link
   *     #size()}
   * @throws IllegalStateException if the store is closed
   * @throws java.io.UncheckedIOException for an I/O error or a damaged record
   */
  public byte[] gather(long... indices) {
    long need = indices.length * recordBytes();
    if (need > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "gather: " + need + " bytes do not fit a byte[]; gather into ByteBuffers");
    }
    ByteBuffer out = ByteBuffer.allocateDirect((int) need);
    gather(indices, out);
    byte[] bytes = new byte[(int) need];
    out.flip().get(bytes);
    return bytes;
  }
}
