package org.loaderx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Records that each carry their own shape, in one buffer ({@code loaderx::ShapedBatch}): record
 * {@code i} has {@link #shape(int)} and starts at byte {@link #offset(int)} of {@link #data()}.
 * The buffer is direct and in native byte order; views of it share its memory.
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

  /** Records in the batch. */
  public int size() {
    return offsets.length;
  }

  /** Every record's bytes. */
  public ByteBuffer data() {
    return data.duplicate().order(ByteOrder.nativeOrder());
  }

  public long[] shape(int i) {
    return shapes[i].clone();
  }

  public long offset(int i) {
    return offsets[i];
  }

  /** Bytes of record {@code i}: prod(shape) * item size. */
  public long recordBytes(int i) {
    long items = 1;
    for (long dim : shapes[i]) items *= dim;
    return items * itemSize;
  }

  /** Record {@code i}'s bytes, a view of {@link #data()}. */
  public ByteBuffer record(int i) {
    return data.slice((int) offsets[i], (int) recordBytes(i)).order(ByteOrder.nativeOrder());
  }
}
