package org.loaderx.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.nio.file.Path;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.loaderx.StoreSet;
import org.loaderx.Vfs;

/**
 * A read of a loaderx data set: the data set file as it is when the scan is planned, each
 * needed column's store set opened (which checks every member's record count and fingerprint
 * against the manifest) and one input partition per member store, the columns' members
 * aligned by row. Only the columns the query needs are read.
 */
final class SetScan implements ScanBuilder, SupportsPushDownRequiredColumns, Scan, Batch {
  private final Path dir;
  private final DatasetFile dataset;
  private StructType required;

  SetScan(Path dir) {
    this.dir = dir;
    this.dataset = DatasetFile.read(dir);
    this.required = dataset.schema;
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Scan build() {
    return this;
  }

  @Override
  public StructType readSchema() {
    return required;
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    List<ColumnLayout> all = dataset.layouts();
    List<ColumnLayout> columns = new ArrayList<>();
    List<String[]> paths = new ArrayList<>();
    long[] counts = null;
    try (Vfs vfs = Vfs.posix()) {
      for (StructField f : required.fields()) {
        int c = Arrays.asList(dataset.schema.fieldNames()).indexOf(f.name());
        columns.add(all.get(c));
        String manifest = dir.resolve(dataset.manifests.get(c)).toString();
        try (StoreSet set = StoreSet.open(vfs, manifest)) {
          int m = set.numMembers();
          String[] p = new String[m];
          long[] n = new long[m];
          for (int i = 0; i < m; i++) {
            p[i] = set.memberPath(i);
            n[i] = (i + 1 < m ? set.memberStart(i + 1) : set.size()) - set.memberStart(i);
          }
          if (counts != null && !Arrays.equals(counts, n)) {
            throw new IllegalStateException("loaderx: the sets of " + dir
                + " are not aligned by row (column '" + f.name() + "' differs)");
          }
          counts = n;
          paths.add(p);
        }
      }
    }
    if (counts == null) { // No column needed (a count): one partition per member still.
      try (Vfs vfs = Vfs.posix();
          StoreSet set = StoreSet.open(vfs, dir.resolve(dataset.manifests.get(0)).toString())) {
        counts = new long[set.numMembers()];
        for (int i = 0; i < counts.length; i++) {
          counts[i] = (i + 1 < counts.length ? set.memberStart(i + 1) : set.size())
              - set.memberStart(i);
        }
      }
    }
    InputPartition[] out = new InputPartition[counts.length];
    for (int i = 0; i < counts.length; i++) {
      String[] member = new String[paths.size()];
      for (int c = 0; c < member.length; c++) member[c] = paths.get(c)[i];
      out[i] = new MemberPartition(member, counts[i]);
    }
    return out;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new MemberReader.Factory(List.copyOf(columnsOf(required)));
  }

  private List<ColumnLayout> columnsOf(StructType schema) {
    List<ColumnLayout> all = dataset.layouts();
    List<ColumnLayout> out = new ArrayList<>();
    for (StructField f : schema.fields()) {
      out.add(all.get(Arrays.asList(dataset.schema.fieldNames()).indexOf(f.name())));
    }
    return out;
  }

  @Override
  public String description() {
    return "loaderx store sets at " + dir;
  }
}
