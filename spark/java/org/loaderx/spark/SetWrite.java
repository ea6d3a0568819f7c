package org.loaderx.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.loaderx.StoreRequest;
import org.loaderx.StoreSet;
import org.loaderx.TypedStore;
import org.loaderx.Vfs;

/**
 * One write of a DataFrame into a loaderx data set at {@code dir}, exactly once whatever tasks
 * fail, retry or run twice (docs/spark.md). Every task attempt writes its stores into its own
 * directory under {@code _loaderx_staging/JOB/} ({@link TaskWriter}). The driver's {@link
 * #commit} gets one message per partition, from the attempt Spark's commit coordinator accepted;
 * it checks each store against its message (record count, fingerprint), moves them to {@code
 * data-JOB/cN/part-P}, writes one store-set manifest per column ({@code cN-JOB.lxset}), and then,
 * last, the data set file ({@link DatasetFile}) that names them: the moment the write becomes
 * visible. Only then is the staging area (with any losing or failed attempts' files) removed,
 * and on overwrite the previous write's stores and manifests. {@link #abort} removes everything
 * this write made. Appending to an existing data set is refused before any task runs.
 */
final class SetWrite implements SupportsTruncate, Write, BatchWrite {
  private final Path dir;
  private final StructType schema;
  private final WriteOptions options;
  private final String job = UUID.randomUUID().toString();
  private boolean truncate;

  SetWrite(Path dir, StructType schema, Map<String, String> options) {
    this.dir = dir;
    this.schema = schema;
    this.options = new WriteOptions(schema, options);
  }

  @Override
  public WriteBuilder truncate() {
    truncate = true;
    return this;
  }

  @Override
  public Write build() {
    if (!truncate && DatasetFile.exists(dir)) {
      throw new UnsupportedOperationException("loaderx: " + dir
          + " already holds a data set and appending is not supported; write with"
          + " mode(\"overwrite\") to replace it");
    }
    return this;
  }

  @Override
  public BatchWrite toBatch() {
    return this;
  }

  private Path staging() {
    return dir.resolve("_loaderx_staging").resolve(job);
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new Factory(options, staging().toString());
  }

  /** Makes each task attempt's {@link TaskWriter}; sent to the executors. */
  private record Factory(WriteOptions options, String staging) implements DataWriterFactory {
    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new TaskWriter(options, Path.of(staging), partitionId, taskId);
    }
  }

  @Override
  public boolean useCommitCoordinator() {
    return true; // One committed attempt per partition, even with speculation.
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<TaskCommit> tasks = new ArrayList<>();
    for (WriterCommitMessage m : messages) tasks.add((TaskCommit) m);
    tasks.sort(Comparator.comparingInt(TaskCommit::partition));
    for (int i = 1; i < tasks.size(); i++) {
      if (tasks.get(i).partition() == tasks.get(i - 1).partition()) {
        throw new IllegalStateException("loaderx: two committed attempts of partition "
            + tasks.get(i).partition() + "; refusing to write its rows twice");
      }
    }
    if (tasks.isEmpty()) throw new IllegalStateException("loaderx: no partitions to commit");
    int columns = options.columns.size();
    Path data = dir.resolve("data-" + job);
    Map<Integer, String> manifests = new HashMap<>();
    Map<Integer, Integer> widths = new HashMap<>();
    try (Vfs vfs = Vfs.posix()) {
      // 1. Check each accepted attempt's stores and move them into place.
      List<List<String>> members = new ArrayList<>();
      for (int c = 0; c < columns; c++) members.add(new ArrayList<>());
      long rows = 0;
      for (TaskCommit t : tasks) {
        for (int c = 0; c < columns; c++) {
          Path from = staging().resolve(t.stores().get(c));
          check(vfs, from, c, t.rows(), t.fingerprints().get(c));
          Path to = data.resolve("c" + c).resolve(String.format("part-%05d", t.partition()));
          Files.createDirectories(to.getParent());
          Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
          members.get(c).add(to.toString());
        }
        rows += t.rows();
      }
      for (int c = 0; c < columns; c++) DatasetFile.syncDirectory(data.resolve("c" + c));
      DatasetFile.syncDirectory(data);
      DatasetFile.syncDirectory(dir);
      // 2. One manifest per column, each written under a temporary name and renamed.
      for (int c = 0; c < columns; c++) {
        String name = "c" + c + "-" + job + ".lxset";
        try (StoreSet set = StoreSet.create(vfs, dir.resolve(name).toString(), members.get(c))) {
          if (set.size() != rows) {
            throw new IOException("loaderx: the set of column " + c + " has " + set.size()
                + " records, the tasks wrote " + rows);
          }
        }
        manifests.put(c, name);
        if (options.columns.get(c).dense && options.columns.get(c).width > 0) {
          widths.put(c, options.columns.get(c).width);
        }
      }
      DatasetFile previous = DatasetFile.exists(dir) ? DatasetFile.read(dir) : null;
      // 3. The commit point: the data set file naming this write's manifests.
      new DatasetFile(job, schema, widths, manifests).writeAtomically(dir);
      // 4. What no reader can reach any more.
      removeStaging();
      if (previous != null) removeWrite(previous.job, previous.manifests.values());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes this write's staging directory, and the staging root if no other write uses it. */
  private void removeStaging() {
    Paths.removeTree(staging());
    try {
      Files.deleteIfExists(staging().getParent());
    } catch (java.nio.file.DirectoryNotEmptyException otherWrites) {
      // Another write's staging (running, or left by a killed driver) is there.
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Refuses a staged store that is not what its attempt reported. */
  private static void check(Vfs vfs, Path store, int column, long rows, long fingerprint) {
    try (TypedStore s = open(vfs, store.toString())) {
      if (s.size() != rows || s.fingerprint() != fingerprint) {
        throw new IllegalStateException("loaderx: staged store " + store + " of column "
            + column + " has " + s.size() + " records (fingerprint " + Long.toHexString(
                s.fingerprint()) + "); its attempt reported " + rows + " ("
            + Long.toHexString(fingerprint) + ")");
      }
    }
  }

  private static TypedStore open(Vfs vfs, String path) {
    StoreRequest readOnly = new StoreRequest().readOnly(true);
    try {
      return org.loaderx.DenseStore.open(vfs, path, readOnly);
    } catch (IllegalStateException notDense) {
      return org.loaderx.RaggedStore.open(vfs, path, readOnly);
    }
  }

  private void removeWrite(String oldJob, Iterable<String> oldManifests) {
    for (String m : oldManifests) {
      try {
        Files.deleteIfExists(dir.resolve(m));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Paths.removeTree(dir.resolve("data-" + oldJob));
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    removeStaging();
    if (DatasetFile.exists(dir) && DatasetFile.read(dir).job.equals(job)) {
      return; // Committed: only cleaning up after the commit point failed.
    }
    List<String> ours = new ArrayList<>();
    for (int c = 0; c < options.columns.size(); c++) ours.add("c" + c + "-" + job + ".lxset");
    removeWrite(job, ours);
  }

  @Override
  public String description() {
    return "loaderx store sets at " + dir + " (" + Arrays.toString(schema.fieldNames()) + ")";
  }
}
