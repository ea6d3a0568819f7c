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
 */
public final class RaggedStore extends TypedStore {
  private RaggedStore(Vfs vfs, String path, StoreRequest request) {
    super(vfs, path, "ragged", request);
  }

  /** Opens the ragged store at {@code path}. */
  public static RaggedStore open(Vfs vfs, String path) {
    return open(vfs, path, new StoreRequest());
  }

  /** Opens the store at {@code path}, checking {@code request}, or creates one from it. */
  public static RaggedStore open(Vfs vfs, String path, StoreRequest request) {
    return new RaggedStore(vfs, path, request);
  }

  /**
   * Appends one record of {@code shape} whose items are {@code data}'s bytes from position to
   * limit (exactly prod(shape) items, nonempty); returns its index.
   */
  public long append(ByteBuffer data, long... shape) {
    long[] batchShape = new long[shape.length + 1];
    batchShape[0] = 1;
    System.arraycopy(shape, 0, batchShape, 1, shape.length);
    return appendArray(batchShape, data);
  }

  /** {@link #append(ByteBuffer, long...)} of a copy of {@code data}. */
  public long append(byte[] data, long... shape) {
    return append(ByteBuffer.allocateDirect(data.length).put(data).flip(), shape);
  }

  /**
   * Reads the records at {@code indices} in one pass into one new direct buffer; every shape is
   * checked against its payload before anything is read.
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
