package org.loaderx.spark;

import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one task attempt wrote: its partition, its Spark task id (which names its staging
 * directory), how many rows, and for each column the store's path relative to the staging
 * directory and its fingerprint when the attempt closed it. The driver checks the stores
 * against these before it moves them into place.
 */
record TaskCommit(int partition, long taskId, long rows, List<String> stores,
    List<Long> fingerprints) implements WriterCommitMessage {}
