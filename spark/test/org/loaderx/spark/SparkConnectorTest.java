package org.loaderx.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.loaderx.StoreSet;
import org.loaderx.Vfs;

/**
 * The Spark connector end to end, in local mode with 4 task threads and up to 2 attempts per
 * task, speculation on. Each case prints one line and is recorded in a JUnit report (the first
 * argument); the scratch directory is the second. Exit status 1 if any case failed.
 *
 * <ul>
 *   <li>write-retry-read: 120,000 generated rows (id, a fixed-width dense array, a ragged
 *       array, a label) written with partition 3's first attempt failing mid-store; Spark
 *       retries it; spark.read gives every id exactly once with its own values, and no staging
 *       is left.
 *   <li>storeset-api: the same data set read through the Java StoreSet API (the manifests the
 *       data set file names): every id once, labels aligned by row.
 *   <li>speculative-attempts: two attempts of one partition both finish; the driver commits the
 *       one the coordinator accepted, the other's stores are removed, rows are written once; a
 *       commit given both is refused and changes nothing.
 *   <li>overwrite-and-refusals: mode overwrite replaces the data set and removes the old
 *       stores; append onto it, and a null value, are refused with the data set unchanged.
 * </ul>
 */
public final class SparkConnectorTest {
  static final long ROWS = 120_000;

  interface Case {
    void run() throws Exception;
  }

  private static final List<String> report = new ArrayList<>();
  private static int failed;

  public static void main(String[] args) throws Exception {
    Path xml = Path.of(args[0]);
    Path scratch = Path.of(args[1]);
    SparkSession spark = SparkSession.builder()
        .master("local[4,2]")
        .appName("loaderx-spark-test")
        .config("spark.speculation", "true")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    try {
      Path data = scratch.resolve("train");
      run("write-retry-read", () -> writeRetryRead(spark, data));
      run("storeset-api", () -> storeSetApi(data));
      run("speculative-attempts", () -> speculativeAttempts(scratch.resolve("spec")));
      run("overwrite-and-refusals", () -> overwriteAndRefusals(spark, scratch.resolve("ow")));
    } finally {
      spark.stop();
    }
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(xml))) {
      w.println("<testsuite name=\"spark\">");
      report.forEach(w::println);
      w.println("</testsuite>");
    }
    System.exit(failed == 0 ? 0 : 1);
  }

  private static void run(String name, Case c) {
    long start = System.nanoTime();
    String failure = "";
    try {
      c.run();
      System.out.println("spark: " + name + " passed");
    } catch (Throwable t) {
      failed++;
      System.out.println("spark: " + name + " FAILED: " + t);
      t.printStackTrace(System.out);
      failure = "<failure message=\"" + escape(t.toString()) + "\"/>";
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    report.add("<testcase classname=\"spark\" name=\"" + name + "\" time=\"" + seconds + "\">"
        + failure + "</testcase>");
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  static void check(boolean ok, String what) {
    if (!ok) throw new AssertionError(what);
  }

  /** id, vec (4 floats: id, 2id, 3id, 4id), tokens (id % 7 + 1 ints from id), label. */
  static Dataset<Row> generate(SparkSession spark, long rows, int partitions) {
    return spark.range(0, rows, 1, partitions)
        .withColumn("vec", expr("transform(array(1, 2, 3, 4), k -> cast(id * k as float))"))
        .withColumn("tokens", expr("transform(sequence(0, cast(id % 7 as int)), j -> cast(id as int) + j)"))
        .withColumn("label", expr("cast(id % 10 as int)"));
  }

  /** Checks every id in [0, rows) once, each row with its own values; returns the count. */
  static void checkRead(Dataset<Row> back, long rows) {
    check(back.count() == rows, "read " + back.count() + " rows, wrote " + rows);
    long duplicated = back.groupBy("id").count().filter(col("count").notEqual(1)).count();
    check(duplicated == 0, duplicated + " ids are not there exactly once");
    Row range = back.agg(expr("min(id)"), expr("max(id)")).first();
    check(range.getLong(0) == 0 && range.getLong(1) == rows - 1, "id range " + range);
    long wrong = back.filter(expr("label != id % 10 OR size(tokens) != id % 7 + 1"
        + " OR tokens[0] != id OR element_at(tokens, -1) != id + id % 7"
        + " OR size(vec) != 4 OR vec[0] != cast(id as float) OR vec[3] != cast(id * 4 as float)"))
        .count();
    check(wrong == 0, wrong + " rows do not hold their own values");
  }

  static void checkNoStaging(Path data) throws IOException {
    Path staging = data.resolve("_loaderx_staging");
    if (!Files.exists(staging)) return;
    try (Stream<Path> left = Files.list(staging)) {
      List<Path> l = left.toList();
      check(l.isEmpty(), "staging left behind: " + l);
    }
  }

  static void writeRetryRead(SparkSession spark, Path data) throws Exception {
    AtomicInteger failedTasks = new AtomicInteger();
    SparkListener listener = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (!end.taskInfo().successful()) failedTasks.incrementAndGet();
      }
    };
    spark.sparkContext().addSparkListener(listener);
    try {
      generate(spark, ROWS, 8).write().format("loaderx")
          .option("width.vec", "4")
          .option("loaderx.test.failOnce", "3")
          .mode(SaveMode.Overwrite)
          .save(data.toString());
    } finally {
      spark.sparkContext().listenerBus().waitUntilEmpty();
      spark.sparkContext().removeSparkListener(listener);
    }
    check(failedTasks.get() >= 1, "no task attempt failed; the retry was not exercised");
    checkNoStaging(data);
    Dataset<Row> back = spark.read().format("loaderx").load(data.toString());
    check(back.rdd().getNumPartitions() == 8,
        "read " + back.rdd().getNumPartitions() + " partitions, expected one per member (8)");
    checkRead(back, ROWS);
  }

  /** Column name to manifest path, from the data set file (docs/spark.md). */
  static Map<String, String> manifests(Path data) throws IOException {
    List<String> lines = Files.readAllLines(data.resolve("_loaderx_dataset"),
        StandardCharsets.UTF_8);
    StructType schema = null;
    java.util.HashMap<String, String> out = new java.util.HashMap<>();
    for (String line : lines) {
      if (line.startsWith("schema ")) {
        schema = (StructType) org.apache.spark.sql.types.DataType.fromJson(line.substring(7));
      }
    }
    for (String line : lines) {
      String[] f = line.split(" ", 3);
      if (f[0].equals("set")) {
        out.put(schema.fieldNames()[Integer.parseInt(f[1])], data.resolve(f[2]).toString());
      }
    }
    return out;
  }

  static void storeSetApi(Path data) throws Exception {
    Map<String, String> sets = manifests(data);
    try (Vfs vfs = Vfs.posix();
        StoreSet ids = StoreSet.open(vfs, sets.get("id"));
        StoreSet labels = StoreSet.open(vfs, sets.get("label"));
        StoreSet tokens = StoreSet.open(vfs, sets.get("tokens"))) {
      check(ids.size() == ROWS && labels.size() == ROWS && tokens.size() == ROWS,
          "set sizes " + ids.size() + ", " + labels.size() + ", " + tokens.size());
      check(ids.kind().equals("dense") && tokens.kind().equals("ragged"),
          "kinds " + ids.kind() + ", " + tokens.kind());
      check(ids.numMembers() == 8, ids.numMembers() + " members");
      long[] all = new long[(int) ROWS];
      for (int i = 0; i < all.length; i++) all[i] = i;
      ByteBuffer idBytes = ByteBuffer.allocateDirect(8 * all.length);
      ByteBuffer labelBytes = ByteBuffer.allocateDirect(4 * all.length);
      ids.gather(all, idBytes);
      labels.gather(all, labelBytes);
      idBytes.flip().order(ByteOrder.LITTLE_ENDIAN);
      labelBytes.flip().order(ByteOrder.LITTLE_ENDIAN);
      BitSet seen = new BitSet();
      for (int i = 0; i < all.length; i++) {
        long id = idBytes.getLong();
        int label = labelBytes.getInt();
        check(id >= 0 && id < ROWS && !seen.get((int) id), "id " + id + " at " + i);
        seen.set((int) id);
        check(label == id % 10, "label " + label + " beside id " + id);
      }
      check(seen.cardinality() == ROWS, seen.cardinality() + " distinct ids");
    }
  }

  static LogicalWriteInfo info(StructType schema, Map<String, String> options) {
    return new LogicalWriteInfo() {
      public CaseInsensitiveStringMap options() {
        return new CaseInsensitiveStringMap(options);
      }

      public String queryId() {
        return "test";
      }

      public StructType schema() {
        return schema;
      }
    };
  }

  static DataWriter<InternalRow> writeAttempt(DataWriterFactory f, int partition, long taskId,
      long firstId, int rows) throws IOException {
    DataWriter<InternalRow> w = f.createWriter(partition, taskId);
    for (long id = firstId; id < firstId + rows; id++) {
      w.write(new GenericInternalRow(new Object[] {id,
          UnsafeArrayData.fromPrimitiveArray(new int[] {(int) id, (int) id + 1})}));
    }
    return w;
  }

  static long[] readIds(Path data) throws IOException {
    try (Vfs vfs = Vfs.posix(); StoreSet ids = StoreSet.open(vfs, manifests(data).get("id"))) {
      long[] all = new long[(int) ids.size()];
      for (int i = 0; i < all.length; i++) all[i] = i;
      ByteBuffer b = ByteBuffer.allocateDirect(8 * all.length);
      ids.gather(all, b);
      b.flip().order(ByteOrder.LITTLE_ENDIAN);
      long[] out = new long[all.length];
      b.asLongBuffer().get(out);
      return out;
    }
  }

  static void speculativeAttempts(Path data) throws Exception {
    StructType schema = new StructType().add("id", DataTypes.LongType, false)
        .add("tokens", DataTypes.createArrayType(DataTypes.IntegerType, false), false);
    Map<String, String> options = Map.of("path", data.toString());
    LoaderxDataSource source = new LoaderxDataSource();
    SupportsWrite table = (SupportsWrite) source.getTable(schema,
        new org.apache.spark.sql.connector.expressions.Transform[0], options);
    BatchWrite write = table.newWriteBuilder(info(schema, options)).build().toBatch();
    DataWriterFactory factory = write.createBatchWriterFactory(null);
    // Partition 0 runs twice (the original and a speculative copy), partition 1 once.
    DataWriter<InternalRow> original = writeAttempt(factory, 0, 100, 0, 500);
    DataWriter<InternalRow> copy = writeAttempt(factory, 0, 101, 0, 500);
    DataWriter<InternalRow> other = writeAttempt(factory, 1, 102, 500, 700);
    WriterCommitMessage copyMessage = copy.commit();
    WriterCommitMessage otherMessage = other.commit();
    WriterCommitMessage originalMessage = original.commit();
    copy.close();
    other.close();
    original.close();
    // Both attempts of partition 0 offered: refused before anything is visible.
    try {
      write.commit(new WriterCommitMessage[] {originalMessage, copyMessage, otherMessage});
      throw new AssertionError("a commit of two attempts of one partition was accepted");
    } catch (IllegalStateException expected) {
      check(expected.getMessage().contains("two committed attempts"), expected.getMessage());
    }
    check(!Files.exists(data.resolve("_loaderx_dataset")), "a refused commit made a data set");
    // The coordinator accepted the copy; the original's stores are left in staging.
    write.commit(new WriterCommitMessage[] {otherMessage, copyMessage});
    long[] ids = readIds(data);
    check(ids.length == 1200, ids.length + " rows");
    BitSet seen = new BitSet();
    for (long id : ids) {
      check(!seen.get((int) id), "id " + id + " twice");
      seen.set((int) id);
    }
    check(seen.cardinality() == 1200, "ids missing");
    checkNoStaging(data);
    // An aborted attempt removes its own directory, an aborted write all of its files, and the
    // committed data set is unchanged.
    BatchWrite second = ((org.apache.spark.sql.connector.write.SupportsTruncate)
        table.newWriteBuilder(info(schema, options))).truncate().build().toBatch();
    DataWriterFactory secondFactory = second.createBatchWriterFactory(null);
    DataWriter<InternalRow> aborted = writeAttempt(secondFactory, 0, 200, 0, 300);
    DataWriter<InternalRow> finished = writeAttempt(secondFactory, 1, 201, 0, 300);
    try (Stream<Path> staged = Files.list(data.resolve("_loaderx_staging"))) {
      check(staged.count() == 1, "no staging for the second write");
    }
    aborted.abort();
    aborted.close();
    WriterCommitMessage finishedMessage = finished.commit();
    finished.close();
    second.abort(new WriterCommitMessage[] {finishedMessage});
    checkNoStaging(data);
    check(readIds(data).length == 1200, "an aborted write changed the data set");
  }

  static void overwriteAndRefusals(SparkSession spark, Path data) throws Exception {
    generate(spark, 5000, 4).write().format("loaderx").option("width.vec", "4")
        .mode(SaveMode.Overwrite).save(data.toString());
    String firstJob = Files.readAllLines(data.resolve("_loaderx_dataset")).get(1);
    generate(spark, 3000, 3).write().format("loaderx").option("width.vec", "4")
        .mode(SaveMode.Overwrite).save(data.toString());
    checkRead(spark.read().format("loaderx").load(data.toString()), 3000);
    String job = Files.readAllLines(data.resolve("_loaderx_dataset")).get(1).substring(4);
    try (Stream<Path> entries = Files.list(data)) {
      List<String> names = entries.map(p -> p.getFileName().toString())
          .filter(n -> !n.equals("_loaderx_dataset") && !n.equals("_loaderx_staging")
              && !n.contains(job))
          .toList();
      check(names.isEmpty(), "the overwritten write left " + names + " (was " + firstJob + ")");
    }
    // Append onto a data set: refused, nothing changes.
    try {
      generate(spark, 10, 1).write().format("loaderx").option("width.vec", "4")
          .mode(SaveMode.Append).save(data.toString());
      throw new AssertionError("append was accepted");
    } catch (UnsupportedOperationException expected) {
      check(expected.getMessage().contains("appending is not supported"), expected.getMessage());
    }
    // A null value fails the job; the data set is the previous one, no staging left.
    try {
      generate(spark, 2000, 2).withColumn("label", expr("IF(id = 1500, NULL, label)"))
          .write().format("loaderx").option("width.vec", "4")
          .mode(SaveMode.Overwrite).save(data.toString());
      throw new AssertionError("a null value was written");
    } catch (Exception expected) {
      String all = String.valueOf(expected) + String.valueOf(expected.getCause());
      check(rootMessage(expected).contains("holds a null"), "error: " + all);
    }
    checkRead(spark.read().format("loaderx").load(data.toString()), 3000);
    checkNoStaging(data);
  }

  static String rootMessage(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (; t != null; t = t.getCause()) s.append(t.getMessage()).append(" / ");
    return s.toString();
  }
}
