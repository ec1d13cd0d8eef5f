package dev.fleetprof.spark;

import dev.fleetprof.format.FormatDetector;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiHeader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Rows of a DCPI profile (one image, one epoch): one {@code sample} row per address with a non-zero
 * count. The mapping is the image's text ({@code tstart} to {@code tstart + tsize}, named by its
 * {@code path} line or else its image id) and each frame's offset is the address's offset in that
 * text, so the same image profiled on two hosts aggregates together. One count stands for
 * {@code period} occurrences of the header's {@code event}.
 */
final class DcpiRows extends DecodedRows {
  private final DcpiHeader header;
  private final UTF8String module;
  private final InternalRow mappingRow;
  private final InternalRow dcpiRow;
  private final UTF8String event;

  DcpiRows(DcpiProfileReader reader, String path, RequiredColumns cols,
      ProfilePartitionReader.ReadMetrics metrics) {
    super(reader, path, FormatDetector.DCPI, cols, metrics);
    this.header = reader.header();
    this.module = UTF8String.fromString(header.pathOrImage());
    this.mappingRow = inSparkLayout(ProfileSchema.MAPPING_TYPE, new GenericInternalRow(
        new Object[] {header.tstart(), header.textLimit(), 0L, module}));
    this.event = UTF8String.fromString(header.event());
    Map<String, String> all = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : header.lines()) {
      all.merge(e.getKey(), e.getValue(), (a, b) -> a + "\n" + b);
    }
    List<Object> keys = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      keys.add(UTF8String.fromString(e.getKey()));
      values.add(UTF8String.fromString(e.getValue()));
    }
    Instant epoch = header.epoch();
    long micros = epoch.getEpochSecond() * 1_000_000L + epoch.getNano() / 1000;
    this.dcpiRow = inSparkLayout(ProfileSchema.DCPI_TYPE, new GenericInternalRow(new Object[] {
        UTF8String.fromString(header.image()), event, UTF8String.fromString(header.platform()),
        micros, header.cpuspeed(), UTF8String.fromString(header.version()),
        new ArrayBasedMapData(new GenericArrayData(keys.toArray()),
            new GenericArrayData(values.toArray()))}));
  }

  /**
   * The file's struct in Spark's binary layout, made once: every row repeats it, and Spark copies a
   * value already in its layout with one memory copy instead of converting the header map per row
   * (half the time of a DCPI read, issue 7).
   */
  private static InternalRow inSparkLayout(StructType type, InternalRow value) {
    return UnsafeProjection.create(type).apply(value).copy();
  }

  @Override
  InternalRow frame(long pc) {
    return new GenericInternalRow(new Object[] {module, pc - header.tstart()});
  }

  @Override
  InternalRow mapping(long leaf) {
    return mappingRow;
  }

  @Override
  void fillDetails(ProfileRecordReader r) {
    if (cols.period() >= 0) {
      if (header.period().isPresent()) {
        row.setLong(cols.period(), header.period().getAsLong());
      } else {
        row.setNullAt(cols.period());
      }
    }
    if (cols.periodUnit() >= 0) {
      row.update(cols.periodUnit(), event);
    }
    if (cols.dcpi() >= 0) {
      row.update(cols.dcpi(), dcpiRow);
    }
  }
}
