package org.loaderx.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.loaderx.DenseStore;
import org.loaderx.RaggedStore;
import org.loaderx.TypedStore;
import org.loaderx.Vfs;

/**
 * One task attempt's writer: a store per column in the attempt's own staging directory, {@code
 * STAGING/attempt-TASKID/cN}, so attempts never share a file. Dense columns are appended a
 * block of rows at a time, ragged ones a row at a time. {@link #commit} syncs and closes the
 * stores and reports them ({@link TaskCommit}); nothing is visible to readers until the driver's
 * commit. {@link #abort} removes the attempt's directory. Used by one thread.
 */
final class TaskWriter implements DataWriter<InternalRow> {
  private static final int BLOCK_ROWS = 4096;

  private final WriteOptions options;
  private final int partition;
  private final long taskId;
  private final Path dir;
  private final Vfs vfs = Vfs.posix();
  private final List<TypedStore> stores = new ArrayList<>();
  private final ByteBuffer[] blocks;
  private ByteBuffer scratch = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
  private long rows;
  private boolean closed;

  TaskWriter(WriteOptions options, Path staging, int partition, long taskId) {
    this.options = options;
    this.partition = partition;
    this.taskId = taskId;
    this.dir = staging.resolve("attempt-" + taskId);
    int n = options.columns.size();
    blocks = new ByteBuffer[n];
    try {
      for (int c = 0; c < n; c++) {
        ColumnLayout l = options.columns.get(c);
        String path = dir.resolve("c" + c).toString();
        if (l.dense) {
          stores.add(DenseStore.open(vfs, path, options.request(c)));
          blocks[c] = ByteBuffer.allocateDirect(BLOCK_ROWS * l.recordBytes())
              .order(ByteOrder.LITTLE_ENDIAN);
        } else {
          stores.add(RaggedStore.open(vfs, path, options.request(c)));
        }
      }
    } catch (RuntimeException e) {
      abortQuietly(e);
      throw e;
    }
  }

  @Override
  public void write(InternalRow row) {
    if (partition == options.failOncePartition && rows == 100) {
      TaskContext context = TaskContext.get();
      if (context != null && context.attemptNumber() == 0) {
        throw new IllegalStateException(
            "loaderx.test.failOnce: attempt 0 of partition " + partition + " fails after 100 rows");
      }
    }
    for (int c = 0; c < blocks.length; c++) {
      ColumnLayout l = options.columns.get(c);
      int items = l.items(row, c);
      if (l.dense) {
        l.put(row, c, blocks[c]);
        if (!blocks[c].hasRemaining()) flush(c);
      } else {
        int bytes = items * l.itemSize();
        if (scratch.capacity() < bytes) {
          scratch = ByteBuffer.allocateDirect(Math.max(bytes, 2 * scratch.capacity()))
              .order(ByteOrder.LITTLE_ENDIAN);
        }
        scratch.clear();
        l.put(row, c, scratch);
        scratch.flip();
        ((RaggedStore) stores.get(c)).append(scratch, items);
      }
    }
    rows++;
  }

  private void flush(int c) {
    ByteBuffer block = blocks[c];
    if (block.position() == 0) return;
    block.flip();
    ((DenseStore) stores.get(c)).append(block);
    block.clear();
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    List<String> paths = new ArrayList<>();
    List<Long> fingerprints = new ArrayList<>();
    for (int c = 0; c < stores.size(); c++) {
      if (blocks[c] != null) flush(c);
      TypedStore s = stores.get(c);
      s.sync();
      if (s.size() != rows) {
        throw new IOException("loaderx: column " + c + " store has " + s.size()
            + " records, the task wrote " + rows + " rows");
      }
      fingerprints.add(s.fingerprint());
      paths.add(dir.getFileName() + "/c" + c);
    }
    closeStores();
    return new TaskCommit(partition, taskId, rows, paths, fingerprints);
  }

  @Override
  public void abort() {
    abortQuietly(null);
  }

  private void abortQuietly(Throwable cause) {
    try {
      closeStores();
    } catch (RuntimeException e) {
      if (cause != null) cause.addSuppressed(e);
    }
    try {
      Paths.removeTree(dir);
    } catch (UncheckedIOException e) {
      if (cause != null) cause.addSuppressed(e);
      else throw e;
    }
  }

  private void closeStores() {
    if (closed) return;
    closed = true;
    RuntimeException first = null;
    for (TypedStore s : stores) {
      try {
        s.close();
      } catch (RuntimeException e) {
        if (first == null) first = e;
      }
    }
    vfs.close();
    if (first != null) throw first;
  }

  @Override
  public void close() {
    closeStores();
  }
}
