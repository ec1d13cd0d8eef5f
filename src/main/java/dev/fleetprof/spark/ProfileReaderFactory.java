package dev.fleetprof.spark;

import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.spark.columnar.FlatBatch;
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
final class ProfileReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private final Broadcast<SerializableConfiguration> conf;
  private final Broadcast<HashMap<String, CpuProfileLayout>> layouts;
  private final String format;
  private final HashMap<String, String> decoderOptions;
  private final RequiredColumns columns;
  private final ProblemPolicy policy;
  private final StructType readSchema;
  private final boolean columnar;

  ProfileReaderFactory(Broadcast<SerializableConfiguration> conf,
      Broadcast<HashMap<String, CpuProfileLayout>> layouts, String format,
      Map<String, String> decoderOptions, RequiredColumns columns, ProblemPolicy policy,
      StructType readSchema, boolean columnar) {
    this.policy = policy;
    this.readSchema = readSchema;
    this.columnar = columnar;
    this.decoderOptions = new HashMap<>(decoderOptions);
    this.conf = conf;
    this.layouts = layouts;
    this.format = format;
    this.columns = columns;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    Map<String, CpuProfileLayout> splitLayouts = layouts == null ? Map.of() : layouts.value();
    return new ProfilePartitionReader((ProfileInputPartition) partition, conf.value().get(),
        splitLayouts, format, decoderOptions, columns, policy);
  }

  /** The scan decides for all its partitions alike (Spark cannot mix row and columnar ones). */
  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return columnar;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new ProfileColumnarReader((ProfilePartitionReader) createReader(partition),
        new FlatBatch(readSchema));
  }
}
