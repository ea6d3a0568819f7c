package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Records that each carry their own shape, in one buffer ({@code loaderx::ShapedBatch}): record
 * {@code i} has {@link #shape(int)} and starts at byte {@link #offset(int)} of {@link #data()}.
 * The buffer is direct and in native byte order; views of it share its memory.
 *
 * <p>A batch comes from {@link RaggedStore#read} and owns its buffer (garbage-collected as any
 * direct buffer; nothing to close), so it stays valid after the store closes. The records are
 * back to back in the order they were read, each {@link #recordBytes(int)} long. Immutable apart
 * from the bytes, which views may write; safe to read from many threads.
 */
public final class ShapedBatch {
  private final ByteBuffer data;
  private final long[] offsets;
  private final long[][] shapes;
  private final long itemSize;

  /** {@code layout}: element 0 the offsets, element 1 + i record i's shape. */
  ShapedBatch(ByteBuffer data, long[][] layout, long itemSize) {
    this.data = data.order(ByteOrder.nativeOrder());
    this.offsets = layout[0];
    this.shapes = new long[layout.length - 1][];
    System.arraycopy(layout, 1, shapes, 0, shapes.length);
    this.itemSize = itemSize;
  }

  /** {@return the records in the batch: as many as indices were read} */
  public int size() {
    return offsets.length;
  }

  /**
   * Every record's bytes.
   *
   * @return a new view of the whole buffer (position 0, limit the records' total bytes, native
   *     byte order), sharing its memory
   */
  public ByteBuffer data() {
    return data.duplicate().order(ByteOrder.nativeOrder());
  }

  /**
   * Record {@code i}'s shape.
   *
   * @param i the record's position in the batch, from 0 to {@link #size()} - 1
   * @return its dimensions, in items, as a new array (empty for a scalar)
   * @throws IndexOutOfBoundsException if {@code i} is not in {@code [0, size())}
   */
  public long[] shape(int i) {
    return shapes[i].clone();
  }

  /**
   * Where record {@code i} starts in {@link #data()}.
   *
   * @param i the record's position in the batch, from 0 to {@link #size()} - 1
   * @return its byte offset, a multiple of the item size
   * @throws IndexOutOfBoundsException if {@code i} is not in {@code [0, size())}
   */
  public long offset(int i) {
    return offsets[i];
  }

  /**
   * The size of record {@code i}.
   *
   * @param i the record's position in the batch, from 0 to {@link #size()} - 1
   * @return its bytes: the product of {@link #shape(int)} times the store's item size
   * @throws IndexOutOfBoundsException if {@code i} is not in {@code [0, size())}
   */
  public long recordBytes(int i) {
    long items = 1;
    for (long dim : shapes[i]) items *= dim;
    return items * itemSize;
  }

  /**
   * Record {@code i}'s bytes.
   *
   * @param i the record's position in the batch, from 0 to {@link #size()} - 1
   * @return a new view of just its bytes in {@link #data()} (position 0, limit {@link
   *     #recordBytes(int)}, native byte order), sharing their memory
   * @throws IndexOutOfBoundsException if {@code i} is not in {@code [0, size())}
   */
  public ByteBuffer record(int i) {
    return data.slice((int) offsets[i], (int) recordBytes(i)).order(ByteOrder.nativeOrder());
  }
}
