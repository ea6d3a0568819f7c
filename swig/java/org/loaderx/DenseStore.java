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
 * forms copy once more.
 */
public final class DenseStore extends TypedStore {
  private DenseStore(Vfs vfs, String path, StoreRequest request) {
    super(vfs, path, "dense", request);
  }

  /** Opens the dense store at {@code path}. */
  public static DenseStore open(Vfs vfs, String path) {
    return open(vfs, path, new StoreRequest());
  }

  /** Opens the store at {@code path}, checking {@code request}, or creates one from it. */
  public static DenseStore open(Vfs vfs, String path, StoreRequest request) {
    return new DenseStore(vfs, path, request);
  }

  /** The shape of every record. */
  public long[] itemShape() {
    return handle.call(h -> h.itemShape());
  }

  /** Bytes per record. */
  public long recordBytes() {
    return handle.call(h -> h.recordBytes());
  }

  /**
   * Appends the whole records in {@code records} (position to limit, a multiple of {@link
   * #recordBytes()}) in one commit; returns the index of the first. Leaves the position as it
   * was.
   */
  public long append(ByteBuffer records) {
    long[] itemShape = itemShape();
    long[] shape = new long[itemShape.length + 1];
    shape[0] = records.remaining() / Math.max(1, recordBytes());
    System.arraycopy(itemShape, 0, shape, 1, itemShape.length);
    return appendArray(shape, records);
  }

  /** {@link #append(ByteBuffer)} of a copy of {@code records}. */
  public long append(byte[] records) {
    return append(ByteBuffer.allocateDirect(records.length).put(records).flip());
  }

  /**
   * Reads the records at {@code indices} into {@code out} at its position, back to back, and
   * advances the position past them. {@code out} needs {@code indices.length * recordBytes()}
   * bytes remaining (fewer: {@link IllegalArgumentException}, nothing written).
   */
  public void gather(long[] indices, ByteBuffer out) {
    long need = indices.length * recordBytes();
    int bytes = (int) Math.min(need, out.remaining());
    ByteBuffer view = out.slice(out.position(), bytes);
    handle.run(h -> h.gatherInto(indices, view));
    out.position(out.position() + bytes);
  }

  /** The records at {@code indices}, back to back, as a new array (a copy). */
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
