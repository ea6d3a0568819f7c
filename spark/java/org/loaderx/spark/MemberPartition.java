package org.loaderx.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** One member store of each read column (the same rows of each), and its record count. */
record MemberPartition(String[] stores, long records) implements InputPartition {}
