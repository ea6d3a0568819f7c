package org.loaderx.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * The file {@value #NAME} at the top of a loaderx data set, the one thing a write's commit
 * changes last and a reader reads first. It names the write that made the data set, its Spark
 * schema, each array column's fixed width, and each column's store-set manifest (relative to the
 * data set's directory), one per line:
 *
 * <pre>
 * loaderx-dataset 1
 * job JOB
 * schema SCHEMA-JSON
 * width COLUMN-INDEX N
 * set COLUMN-INDEX MANIFEST
 * </pre>
 *
 * Written whole under a temporary name, synced, renamed over the old one and the directory
 * synced, so a reader finds the previous data set or the new one, never a mix. Immutable.
 */
final class DatasetFile {
  static final String NAME = "_loaderx_dataset";
  private static final String MAGIC = "loaderx-dataset 1";

  final String job;
  final StructType schema;
  /** Column index to fixed width, for dense array columns. */
  final Map<Integer, Integer> widths;
  /** Column index to manifest path, relative to the data set's directory. */
  final Map<Integer, String> manifests;

  DatasetFile(String job, StructType schema, Map<Integer, Integer> widths,
      Map<Integer, String> manifests) {
    this.job = job;
    this.schema = schema;
    this.widths = Map.copyOf(widths);
    this.manifests = Map.copyOf(manifests);
  }

  /** {@return whether {@code dir} holds a data set} */
  static boolean exists(Path dir) {
    return Files.isRegularFile(dir.resolve(NAME));
  }

  /**
   * {@return the data set file in {@code dir}}
   *
   * @throws UncheckedIOException if it is missing, unreadable or not one this class wrote
   */
  static DatasetFile read(Path dir) {
    Path file = dir.resolve(NAME);
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("loaderx: no data set at " + dir + " (" + e + ")", e);
    }
    if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
      throw new UncheckedIOException(new IOException(
          "loaderx: " + file + " is not a loaderx data set file (first line not '" + MAGIC + "')"));
    }
    String job = null;
    StructType schema = null;
    Map<Integer, Integer> widths = new LinkedHashMap<>();
    Map<Integer, String> manifests = new LinkedHashMap<>();
    try {
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.split(" ", 3);
        switch (f[0]) {
          case "job" -> job = f[1];
          case "schema" -> schema = (StructType) DataType.fromJson(line.substring(7));
          case "width" -> widths.put(Integer.parseInt(f[1]), Integer.parseInt(f[2]));
          case "set" -> manifests.put(Integer.parseInt(f[1]), f[2]);
          default -> throw new IOException("unknown line '" + line + "'");
        }
      }
      if (job == null || schema == null) throw new IOException("no job or schema line");
      for (int c = 0; c < schema.fields().length; c++) {
        if (!manifests.containsKey(c)) throw new IOException("no set line for column " + c);
      }
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException(new IOException("loaderx: " + file + " is damaged: " + e, e));
    }
    return new DatasetFile(job, schema, widths, manifests);
  }

  /** Writes this as {@code dir}'s data set file, atomically (see the class comment). */
  void writeAtomically(Path dir) {
    StringBuilder text = new StringBuilder(MAGIC).append('\n');
    text.append("job ").append(job).append('\n');
    text.append("schema ").append(schema.json()).append('\n');
    widths.forEach((c, w) -> text.append("width ").append(c).append(' ').append(w).append('\n'));
    for (int c = 0; c < schema.fields().length; c++) {
      text.append("set ").append(c).append(' ').append(manifests.get(c)).append('\n');
    }
    Path tmp = dir.resolve(NAME + ".tmp-" + job);
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) ch.write(bytes);
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE);
      syncDirectory(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("loaderx: writing " + dir.resolve(NAME), e);
    }
  }

  /** Makes the entries of {@code dir} (renames into it) durable. */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** {@return the column layouts this file describes} */
  List<ColumnLayout> layouts() {
    List<ColumnLayout> out = new ArrayList<>();
    for (int c = 0; c < schema.fields().length; c++) {
      out.add(ColumnLayout.of(schema.fields()[c], widths.getOrDefault(c, 0)));
    }
    return out;
  }
}
