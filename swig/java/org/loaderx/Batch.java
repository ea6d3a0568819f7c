package org.loaderx;

import java.lang.ref.Cleaner;
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
 * #offset} with its own {@link #shape}. The buffers are writable (in-place transforms).
 *
 * <p><b>Lifetime rule</b> (as Netty's and Arrow's buffers): a batch's buffers hold its step's
 * records until {@link #close}, which hands the batch straight back to the ring, where a later
 * step overwrites it. Read the buffers, or copy what must outlive the batch, before closing; after
 * close every method of the batch throws {@link IllegalStateException}. A buffer (or a view of
 * one: slices, duplicates, {@code asLongBuffer()}) still used after close is a bug, but never a
 * JVM crash, in any order of calls, the loader's close included: every buffer keeps its native
 * memory allocated until the garbage collector finds it and all its views unreachable (a {@link
 * Cleaner} then drops it), so such a read sees some later step's bytes (and a write there lands in
 * some later step's batch), never freed memory. A batch not closed is released when it is
 * collected, but until then the ring allocates others in its place: close batches.
 *
 * <p>Thread safety: the accessors may be called from any thread, also after the loader closed;
 * {@link #close} waits for calls in flight. Every accessor throws {@link IllegalStateException}
 * once the batch is closed.
 *
 * <p>Batches come only from {@link DataLoader#next()}; there is no public constructor.
 */
public final class Batch implements AutoCloseable {
  /** Drops the native memory behind buffers the collector found unreachable; one daemon thread. */
  private static final Cleaner BUFFERS = Cleaner.create();

  private final NativeHandle<org.loaderx.internal.LoaderBatch> handle;
  private final long[] itemSizes; // Per stream.
  // Per stream: the buffer handed out (every result a view of it), made on first use.
  private final ByteBuffer[] buffers;

  Batch(org.loaderx.internal.LoaderBatch batch, long[] itemSizes) {
    this.itemSizes = itemSizes;
    this.buffers = new ByteBuffer[itemSizes.length];
    this.handle =
        new NativeHandle<>(
            "Batch",
            batch,
            b -> {
              b.release();
              b.delete();
            });
  }

  /**
   * {@return the step this batch is: the value {@link DataLoader#step()} had just before the
   * {@link DataLoader#next()} that returned it} Steps are unsigned 64-bit values with every bit
   * kept.
   *
   * @throws IllegalStateException if the batch is closed
   */
  public long step() {
    return handle.call(b -> b.step());
  }

  /**
   * {@return the records per stream: at most the sampler's batch length} That is the loader's
   * batch size (a rank's share of it: {@code batchSize / worldSize}), except in {@link
   * SamplerMode#CYCLIC} mode over fewer records than the batch size, where every global batch
   * holds each record once ({@link Sampler#batchLength()}).
   *
   * @throws IllegalStateException if the batch is closed
   */
  public int size() {
    return (int) (long) handle.call(b -> b.size());
  }

  /**
   * {@return the indices of this step's records in the stores, a new array of {@link #size()}
   * elements} Element {@code i} is the index, in every stream's store, of record {@code i} of
   * every stream.
   *
   * @throws IllegalStateException if the batch is closed
   */
  public long[] indices() {
    return handle.call(
        b -> {
          long[] values = new long[(int) b.size()];
          b.indices().order(ByteOrder.nativeOrder()).asLongBuffer().get(values);
          return values;
        });
  }

  /**
   * Stream {@code name}'s records: a new view of the stream's whole buffer (position 0, limit and
   * capacity its bytes in use, native byte order, writable), sharing its memory with every other
   * view of it. A dense stream's holds record {@code i} at byte {@code i} times its store's {@link
   * DenseStore#recordBytes()}; a ragged stream's holds record {@code i} at {@link #offset(String,
   * int)}. See the class comment for how long the bytes stay this step's.
   *
   * @param name the stream's name, as given to the {@link DataLoader}
   * @return a direct buffer over the stream's records, valid until {@link #close}
   * @throws IllegalArgumentException if the batch has no stream called {@code name}
   * @throws IllegalStateException if the batch is closed
   */
  public ByteBuffer stream(String name) {
    return stream(index(name));
  }

  /**
   * Stream number {@code stream}'s records (the order of {@link DataLoader#streamNames()}); the
   * same view as {@link #stream(String)}.
   *
   * @param stream the stream's position among the loader's streams, from 0
   * @return a direct buffer over the stream's records, valid until {@link #close}
   * @throws IllegalArgumentException if {@code stream} is negative or not less than the number of
   *     streams
   * @throws IllegalStateException if the batch is closed
   */
  public ByteBuffer stream(int stream) {
    return handle.call(b -> root(b, stream).duplicate().order(ByteOrder.nativeOrder()));
  }

  /**
   * Record {@code record}'s shape in stream {@code name}: a dense stream's store's item shape for
   * every record, a ragged record's own shape (empty for a scalar).
   *
   * @param name the stream's name
   * @param record the record's position in the batch, from 0 to {@link #size()} - 1
   * @return the record's dimensions, in items, as a new array
   * @throws IllegalArgumentException if the batch has no stream called {@code name}
   * @throws IndexOutOfBoundsException if {@code record} is not in {@code [0, size())}
   * @throws IllegalStateException if the batch is closed
   */
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

  /**
   * Where record {@code record} of stream {@code name} starts in the stream's buffer ({@link
   * #stream(String)}), in bytes: {@code record} times the store's {@link DenseStore#recordBytes()}
   * in a dense stream; in a ragged one a multiple of the item size, the records back to back in
   * batch order.
   *
   * @param name the stream's name
   * @param record the record's position in the batch, from 0 to {@link #size()} - 1
   * @return the record's byte offset in the stream's buffer
   * @throws IllegalArgumentException if the batch has no stream called {@code name}
   * @throws IndexOutOfBoundsException if {@code record} is not in {@code [0, size())}
   * @throws IllegalStateException if the batch is closed
   */
  public long offset(String name, int record) {
    int s = index(name);
    return handle.call(b -> b.offsets(s)[record]);
  }

  /**
   * Record {@code record} of stream {@code name}: a new view of just its bytes in the stream's
   * buffer (position 0, limit and capacity the record's bytes, native byte order, writable), under
   * the same lifetime rule as the whole buffer.
   *
   * @param name the stream's name
   * @param record the record's position in the batch, from 0 to {@link #size()} - 1
   * @return a direct buffer of {@code itemSize * prod(shape(name, record))} bytes
   * @throws IllegalArgumentException if the batch has no stream called {@code name}
   * @throws IndexOutOfBoundsException if {@code record} is not in {@code [0, size())}
   * @throws IllegalStateException if the batch is closed
   */
  public ByteBuffer record(String name, int record) {
    int s = index(name);
    return handle.call(
        b -> {
          int start = (int) b.offsets(s)[record];
          long bytes = itemSizes[s];
          for (long dim : shape(name, record)) bytes *= dim;
          return root(b, s).slice(start, (int) bytes).order(ByteOrder.nativeOrder());
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

  /**
   * Stream {@code s}'s buffer, holding a share of its native allocation until it and every view
   * of it (views reference the buffer they came from) are unreachable. Called under the handle.
   */
  private ByteBuffer root(org.loaderx.internal.LoaderBatch b, int s) {
    if (s < 0 || s >= buffers.length) {
      throw new IllegalArgumentException(
          "stream " + s + " is out of range for a batch of " + buffers.length + " streams");
    }
    synchronized (buffers) {
      if (buffers[s] == null) {
        ByteBuffer buffer = b.buffer(s);
        org.loaderx.internal.BufferShare share = b.bufferShare(s);
        BUFFERS.register(buffer, share::delete);
        buffers[s] = buffer;
      }
      return buffers[s];
    }
  }

  /**
   * Hands the batch back to the loader's ring; buffers handed out now hold bytes a later step
   * overwrites (see the class comment). Waits for accessor calls in flight on other threads.
   * Idempotent: closing a closed batch does nothing. Never throws.
   */
  @Override
  public void close() {
    handle.close();
  }
}
