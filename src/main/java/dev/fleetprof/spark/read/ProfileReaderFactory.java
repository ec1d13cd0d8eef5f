package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.ReadOptions;
import dev.fleetprof.spark.SerializableConfiguration;
import dev.fleetprof.spark.columnar.FlatBatch;
import dev.fleetprof.spark.pushdown.PushedAggregation;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Creates a reader per partition; carries only broadcast handles and small settings. */
public final class ProfileReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 4L;
  private final Broadcast<SerializableConfiguration> conf;
  private final Broadcast<HashMap<String, SplitFile>> layouts;
  private final ReadOptions read;
  private final RequiredColumns columns;
  private final StructType readSchema;
  private final boolean columnar;
  private final PushedAggregation aggregation;
  private final boolean exactSums;

  /**
   * @param readSchema the columns the rows hold: with a pushed aggregation, those it needs (see
   *     {@link PushedAggregation#inputSchema}), which its reader merges into partial rows
   * @param exactSums whether sums that overflow fail (Spark's ANSI mode) in a pushed aggregation
   */
  public ProfileReaderFactory(
      Broadcast<SerializableConfiguration> conf,
      Broadcast<HashMap<String, SplitFile>> layouts,
      ReadOptions read,
      RequiredColumns columns,
      StructType readSchema,
      boolean columnar,
      PushedAggregation aggregation,
      boolean exactSums) {
    this.conf = conf;
    this.layouts = layouts;
    this.read = read;
    this.columns = columns;
    this.readSchema = readSchema;
    this.columnar = columnar;
    this.aggregation = aggregation;
    this.exactSums = exactSums;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    ProfilePartitionReader rows = createRowReader((ProfileInputPartition) partition);
    if (read.stackRows()) {
      return new StackRowsReader(
          rows, columns, readSchema, read.aggregateMapBytes(), read.stackLabels());
    }
    if (aggregation == null) {
      return rows;
    }
    return new PartialAggregateReader(
        rows, aggregation, columns, readSchema, read.aggregateMapBytes(), exactSums);
  }

  private ProfilePartitionReader createRowReader(ProfileInputPartition partition) {
    Map<String, SplitFile> splitLayouts = layouts == null ? Map.of() : layouts.value();
    long bytes = 0;
    for (int i = 0; i < partition.size(); i++) {
      bytes += partition.slice(i).fileLength();
    }
    ReadMetrics metrics = new ReadMetrics();
    SliceOpener opener =
        new SliceOpener(
            conf.value().get(),
            splitLayouts,
            ProfileFormats.byName(read.format()),
            read.formatOptions(),
            read.gzipLimits(),
            columns,
            metrics,
            bytes);
    return new ProfilePartitionReader(partition, opener, columns, read.problemPolicy(), metrics);
  }

  /** The scan decides for all its partitions alike (Spark cannot mix row and columnar ones). */
  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new ProfileColumnarReader(
        createRowReader((ProfileInputPartition) partition), new FlatBatch(readSchema));
  }
}
