package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiHeader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.spark.ProfileSchema;
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
import org.apache.spark.unsafe.types.UTF8String;

/**
 * DCPI's {@code dcpi} column: the file's header (image, event, platform, epoch, cpu speed, version
 * and every header line), the same for each row of the file.
 */
final class DcpiHeaderColumn implements FormatColumns {
  private final int ordinal;
  private final InternalRow value;

  DcpiHeaderColumn(ProfileRecordReader reader, int ordinal) {
    this.ordinal = ordinal;
    DcpiHeader header = ((DcpiProfileReader) reader).header();
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
    // Made once in Spark's binary layout: every row repeats it, and Spark copies a value already in
    // its layout with one memory copy instead of converting the header map per row (that
    // conversion was half the time of a DCPI read).
    this.value =
        UnsafeProjection.create(ProfileSchema.DCPI_TYPE)
            .apply(
                new GenericInternalRow(
                    new Object[] {
                      UTF8String.fromString(header.image()),
                      UTF8String.fromString(header.event()),
                      UTF8String.fromString(header.platform()),
                      micros,
                      header.cpuspeed(),
                      UTF8String.fromString(header.version()),
                      new ArrayBasedMapData(
                          new GenericArrayData(keys.toArray()),
                          new GenericArrayData(values.toArray()))
                    }))
            .copy();
  }

  @Override
  public void fill(GenericInternalRow row, ProfileRecordReader reader) {
    row.update(ordinal, value);
  }

  @Override
  public boolean constantPerFile() {
    return true;
  }
}
