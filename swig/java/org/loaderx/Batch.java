package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One step's records from every stream of a {@link DataLoader} ({@code loaderx::Batch}), gathered
 * at the same indices: record {@code i} of every stream is the same record of the data set.
 *
 * <p>Each stream's records sit in one native buffer of the loader's ring, handed out as a direct
 * {@link ByteBuffer} in native byte order without copying: a dense stream's is one C-order
 * {@code (size(), *item_shape)} array; a ragged stream's holds record {@code i} at {@link
 * #offset} with its own {@link #shape}. The buffers are valid until {@link #close}, which returns
 * them to the ring for a later step to overwrite: read them, or copy what must outlive the
 * batch, before closing. Methods after close are {@link IllegalStateException}.
 */
public final class Batch implements AutoCloseable {
  private final NativeHandle<org.loaderx.internal.LoaderBatch> handle;
  private final long[] itemSizes; // Per stream.

  Batch(org.loaderx.internal.LoaderBatch batch, long[] itemSizes) {
    this.itemSizes = itemSizes;
    this.handle =
        new NativeHandle<>(
            "Batch",
            batch,
            b -> {
              b.release();
              b.delete();
            });
  }

  /** The step this batch is. */
  public long step() {
    return handle.call(b -> b.step());
  }

  /** Records per stream. */
  public int size() {
    return (int) (long) handle.call(b -> b.size());
  }

  /** The record indices, the same for every stream. */
  public long[] indices() {
    return handle.call(
        b -> {
          long[] values = new long[(int) b.size()];
          b.indices().order(ByteOrder.nativeOrder()).asLongBuffer().get(values);
          return values;
        });
  }

  /** Stream {@code name}'s records (see the class comment for the layout). */
  public ByteBuffer stream(String name) {
    return stream(index(name));
  }

  public ByteBuffer stream(int stream) {
    return handle.call(b -> b.buffer(stream).order(ByteOrder.nativeOrder()));
  }

  /** Record {@code record}'s shape in stream {@code name}. */
  public long[] shape(String name, int record) {
    int s = index(name);
    return handle.call(
        b -> {
          long[] ranks = b.ranks(s);
          long[] dims = b.dims(s);
          int start = 0;
          for (int i = 0; i < record; i++) start += (int) ranks[i];
          return Arrays.copyOfRange(dims, start, start + (int) ranks[record]);
        });
  }

  /** Where record {@code record} of stream {@code name} starts in its buffer. */
  public long offset(String name, int record) {
    int s = index(name);
    return handle.call(b -> b.offsets(s)[record]);
  }

  /** Record {@code record} of stream {@code name}: a view of its buffer. */
  public ByteBuffer record(String name, int record) {
    int s = index(name);
    return handle.call(
        b -> {
          int start = (int) b.offsets(s)[record];
          long bytes = itemSizes[s];
          for (long dim : shape(name, record)) bytes *= dim;
          return b.buffer(s).slice(start, (int) bytes).order(ByteOrder.nativeOrder());
        });
  }

  private int index(String name) {
    return handle.call(
        b -> {
          for (int s = 0; s < b.numStreams(); s++) {
            if (b.name(s).equals(name)) return s;
          }
          throw new IllegalArgumentException("the batch has no stream '" + name + "'");
        });
  }

  /** Hands the buffers back to the loader's ring. Idempotent. */
  @Override
  public void close() {
    handle.close();
  }
}
