package org.loaderx.spark;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.loaderx.DenseStore;
import org.loaderx.RaggedStore;
import org.loaderx.ShapedBatch;
import org.loaderx.StoreRequest;
import org.loaderx.TypedStore;
import org.loaderx.Vfs;

/**
 * Reads one {@link MemberPartition}: each column's member store opened read-only, its record
 * count checked against the manifest's, and rows rebuilt a block at a time (dense columns
 * gathered into one buffer, ragged ones read as one batch). Used by one thread.
 */
final class MemberReader implements PartitionReader<InternalRow> {
  private static final int BLOCK_ROWS = 4096;

  /** Sent to the executors. */
  record Factory(List<ColumnLayout> columns) implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      return new MemberReader(columns, (MemberPartition) partition);
    }
  }

  private final List<ColumnLayout> columns;
  private final long records;
  private final Vfs vfs = Vfs.posix();
  private final List<TypedStore> stores = new ArrayList<>();
  private final ByteBuffer[] dense;
  private final ShapedBatch[] ragged;
  private long blockStart;
  private int blockRows;
  private int row = -1;

  MemberReader(List<ColumnLayout> columns, MemberPartition partition) {
    this.columns = columns;
    this.records = partition.records();
    dense = new ByteBuffer[columns.size()];
    ragged = new ShapedBatch[columns.size()];
    StoreRequest readOnly = new StoreRequest().readOnly(true);
    try {
      for (int c = 0; c < columns.size(); c++) {
        String path = partition.stores()[c];
        TypedStore s = columns.get(c).dense
            ? DenseStore.open(vfs, path, readOnly)
            : RaggedStore.open(vfs, path, readOnly);
        stores.add(s);
        if (s.size() != records) {
          throw new IllegalStateException("loaderx: member " + path + " has " + s.size()
              + " records; its manifest says " + records);
        }
        if (columns.get(c).dense) {
          dense[c] = ByteBuffer.allocateDirect(BLOCK_ROWS * columns.get(c).recordBytes());
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public boolean next() {
    if (++row < blockRows) return true;
    blockStart += blockRows;
    if (blockStart >= records) return false;
    blockRows = (int) Math.min(BLOCK_ROWS, records - blockStart);
    long[] indices = new long[blockRows];
    for (int i = 0; i < blockRows; i++) indices[i] = blockStart + i;
    for (int c = 0; c < columns.size(); c++) {
      if (dense[c] != null) {
        dense[c].clear();
        ((DenseStore) stores.get(c)).gather(indices, dense[c]);
      } else {
        ragged[c] = ((RaggedStore) stores.get(c)).read(indices);
      }
    }
    row = 0;
    return true;
  }

  @Override
  public InternalRow get() {
    Object[] values = new Object[columns.size()];
    for (int c = 0; c < values.length; c++) {
      ColumnLayout l = columns.get(c);
      if (dense[c] != null) {
        int bytes = l.recordBytes();
        values[c] = l.value(dense[c].slice(row * bytes, bytes), Math.max(1, l.width));
      } else {
        long[] shape = ragged[c].shape(row);
        int items = 1;
        for (long d : shape) items *= (int) d;
        values[c] = l.value(ragged[c].record(row), items);
      }
    }
    return new GenericInternalRow(values);
  }

  @Override
  public void close() {
    for (TypedStore s : stores) s.close();
    stores.clear();
    vfs.close();
  }
}
