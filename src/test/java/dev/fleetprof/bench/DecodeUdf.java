package dev.fleetprof.bench;

import static org.apache.spark.sql.functions.call_udf;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The naive alternative a Spark user would write without the {@code profile} source: read each file
 * whole with {@code binaryFile}, decode its bytes in a UDF (with the project's own decoder, so only
 * the integration differs) into an array of (count, pcs) structs, and explode it.
 */
final class DecodeUdf implements UDF1<byte[], List<Row>> {
  private static final long serialVersionUID = 1L;
  static final String NAME = "decode_cpu_profile";
  static final StructType RECORD =
      new StructType()
          .add("count", DataTypes.LongType)
          .add("pcs", DataTypes.createArrayType(DataTypes.LongType, false));

  @Override
  public List<Row> call(byte[] content) throws Exception {
    CpuProfileHeader h =
        CpuProfileHeader.parse("udf", content, Math.min(content.length, 64), content.length);
    CpuProfileReader r =
        CpuProfileReader.wholeFile(
            "udf", h, new ByteArrayInputStream(content), content.length, true);
    List<Row> out = new ArrayList<>();
    while (r.next()) {
      out.add(RowFactory.create(r.count(), Arrays.copyOf(r.pcs(), r.depth())));
    }
    return out;
  }

  static void register(SparkSession spark) {
    spark.udf().register(NAME, new DecodeUdf(), DataTypes.createArrayType(RECORD));
  }

  /** One row per record: path, count, pcs (after {@link #register}). */
  static Dataset<Row> records(SparkSession spark, String path) {
    return spark
        .read()
        .format("binaryFile")
        .load(path)
        .select(col("path"), explode(call_udf(NAME, col("content"))).as("r"))
        .select(col("path"), col("r.count").as("count"), col("r.pcs").as("pcs"));
  }
}
