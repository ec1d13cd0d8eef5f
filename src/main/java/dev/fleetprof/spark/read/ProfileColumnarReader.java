package dev.fleetprof.spark.read;

import dev.fleetprof.spark.columnar.FlatBatch;
import java.io.IOException;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The columnar reader of a partition, used when a query needs no call chains (counts, offsets,
 * paths, partition columns): the row reader's slices, modes and metrics, its rows handed to Spark
 * {@value FlatBatch#CAPACITY} at a time, so that per-row work in Spark (an iterator step and a
 * projection into Spark's row format) is replaced by per-batch work over primitive arrays.
 */
final class ProfileColumnarReader implements PartitionReader<ColumnarBatch> {
  private final ProfilePartitionReader rows;
  private final FlatBatch batch;

  ProfileColumnarReader(ProfilePartitionReader rows, FlatBatch batch) {
    this.rows = rows;
    this.batch = batch;
  }

  @Override
  public boolean next() throws IOException {
    return rows.nextBatch(batch);
  }

  @Override
  public ColumnarBatch get() {
    return batch.batch();
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return rows.currentMetricsValues();
  }

  @Override
  public void close() throws IOException {
    try {
      rows.close();
    } finally {
      batch.close();
    }
  }
}
