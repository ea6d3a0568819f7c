package org.loaderx.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.loaderx.StoreRequest;

/**
 * A write's options, checked on the driver before any task runs: {@code codec} and {@code level}
 * (the stores' compression, as {@link StoreRequest}; default none), {@code width.COLUMN} (an array
 * column's fixed item count, making it a dense store), and {@code loaderx.test.failOnce} (a
 * partition whose first attempt fails mid-store, for tests of retries). Immutable.
 */
final class WriteOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  final String codec;
  final int level;
  final int failOncePartition;
  final List<ColumnLayout> columns;

  WriteOptions(StructType schema, Map<String, String> options) {
    this.codec = options.getOrDefault("codec", "");
    this.level = Integer.parseInt(options.getOrDefault("level", "0"));
    this.failOncePartition = Integer.parseInt(options.getOrDefault("loaderx.test.failOnce", "-1"));
    List<ColumnLayout> layouts = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (f.name().indexOf('\n') >= 0 || f.name().indexOf('\r') >= 0) {
        throw new IllegalArgumentException("loaderx: column names cannot hold line breaks");
      }
      String width = options.get("width." + f.name());
      layouts.add(ColumnLayout.of(f, width == null ? 0 : Integer.parseInt(width)));
    }
    if (layouts.isEmpty()) throw new IllegalArgumentException("loaderx: no columns to write");
    this.columns = List.copyOf(layouts);
  }

  /** {@return the request that creates column {@code c}'s stores} */
  StoreRequest request(int c) {
    ColumnLayout l = columns.get(c);
    StoreRequest r = new StoreRequest().dtype(l.dtype());
    if (l.dense) r.itemShape(l.itemShape());
    if (!codec.isEmpty()) r.codec(codec);
    if (level != 0) r.level(level);
    return r;
  }
}
