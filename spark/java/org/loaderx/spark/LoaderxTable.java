package org.loaderx.spark;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** A loaderx data set's directory as a Spark table: batch reads, and writes that replace it. */
final class LoaderxTable implements SupportsRead, SupportsWrite {
  private final Path dir;
  private final StructType schema;

  LoaderxTable(Path dir, StructType schema) {
    this.dir = dir;
    this.schema = schema;
  }

  @Override
  public String name() {
    return "loaderx:" + dir;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE,
        TableCapability.TRUNCATE);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new SetScan(dir);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new SetWrite(dir, info.schema(), info.options().asCaseSensitiveMap());
  }
}
