package org.loaderx.spark;

import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The Spark data source {@code loaderx} (DataSource V2): a DataFrame written as one loaderx store
 * set per column, aligned by row, and read back. Usage and the commit protocol: docs/spark.md.
 *
 * <pre>{@code
 * df.write().format("loaderx").mode("overwrite").save("/data/train");
 * Dataset<Row> back = spark.read().format("loaderx").load("/data/train");
 * }</pre>
 *
 * The path is a local (POSIX) directory; reading infers the schema from the data set file.
 */
public final class LoaderxDataSource implements TableProvider, DataSourceRegister {
  @Override
  public String shortName() {
    return "loaderx";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return DatasetFile.read(path(options)).schema;
  }

  @Override
  public boolean supportsExternalMetadata() {
    return true; // A write brings the DataFrame's schema; there may be no data set yet.
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> options) {
    if (partitioning.length != 0) {
      throw new IllegalArgumentException("loaderx: data sets are not partitioned by column");
    }
    return new LoaderxTable(path(options), schema);
  }

  static Path path(Map<String, String> options) {
    String path = options.get("path");
    if (path == null) {
      path = options.entrySet().stream()
          .filter(e -> e.getKey().equalsIgnoreCase("path"))
          .map(Map.Entry::getValue).findFirst().orElse(null);
    }
    if (path == null) throw new IllegalArgumentException("loaderx: give a path (load/save)");
    if (path.startsWith("file:")) path = java.net.URI.create(path).getPath();
    return Path.of(path).toAbsolutePath().normalize();
  }
}
