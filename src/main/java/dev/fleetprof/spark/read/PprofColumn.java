package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.pprof.PprofReader;
import dev.fleetprof.format.pprof.PprofTables;
import dev.fleetprof.spark.ProfileSchema;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * pprof's {@code pprof} column: the sample's values and the profile's sample types, the sample's
 * labels, the profile's time and duration, and each pc's inline chain. The chain of a location is
 * built once (an unknown file, symbol or line, which pprof writes as "" or 0, is null), when a
 * sample first reaches it, and shared by every row after (rows hold immutable values): memory grows
 * with the locations, not the samples.
 */
final class PprofColumn implements FormatColumns {
  private static final Object[] NO_OBJECTS = new Object[0];

  /** Turns one location's chain into an {@code UnsafeArrayData} (not thread-safe: per column). */
  private final UnsafeProjection linesProjection =
      UnsafeProjection.create(
          new StructType()
              .add(
                  "lines",
                  ((ArrayType)
                      ((ArrayType) ProfileSchema.PPROF_TYPE.apply("lines").dataType())
                          .elementType()),
                  false));

  private final int ordinal;
  private final PprofTables tables;
  private final ArrayData sampleTypes;
  private final ArrayData[] lines;
  private final boolean[] linesBuilt;
  private long[] values;

  PprofColumn(ProfileRecordReader reader, int ordinal) {
    this.ordinal = ordinal;
    this.tables = ((PprofReader) reader).tables();
    Object[] types = new Object[tables.sampleTypes()];
    for (int i = 0; i < types.length; i++) {
      types[i] =
          new GenericInternalRow(
              new Object[] {
                UTF8String.fromString(tables.sampleType(i)),
                UTF8String.fromString(tables.sampleUnit(i))
              });
    }
    this.sampleTypes =
        UnsafeProjection.create(
                new StructType()
                    .add("t", ProfileSchema.PPROF_TYPE.apply("sample_types").dataType(), false))
            .apply(new GenericInternalRow(new Object[] {new GenericArrayData(types)}))
            .getArray(0)
            .copy();
    this.lines = new ArrayData[tables.locations()];
    this.linesBuilt = new boolean[tables.locations()];
    this.values = new long[tables.sampleTypes()];
  }

  @Override
  public void fill(GenericInternalRow row, ProfileRecordReader reader) {
    PprofReader r = (PprofReader) reader;
    for (int i = 0; i < values.length; i++) {
      values[i] = r.value(i);
    }
    Object[] labels = r.labels() == 0 ? NO_OBJECTS : new Object[r.labels()];
    for (int i = 0; i < labels.length; i++) {
      boolean numeric = r.labelIsNumeric(i);
      String unit = numeric ? r.labelUnit(i) : null;
      labels[i] =
          new GenericInternalRow(
              new Object[] {
                UTF8String.fromString(r.labelKey(i)),
                numeric ? null : UTF8String.fromString(r.labelString(i)),
                numeric ? r.labelNumber(i) : null,
                unit == null ? null : UTF8String.fromString(unit)
              });
    }
    Object[] chain = new Object[r.depth()];
    for (int i = 0; i < chain.length; i++) {
      chain[i] = lines(r.location(i));
    }
    row.update(
        ordinal,
        new GenericInternalRow(
            new Object[] {
              UnsafeArrayData.fromPrimitiveArray(values),
              sampleTypes,
              r.countType(),
              new GenericArrayData(labels),
              tables.timeNanos(),
              tables.durationNanos(),
              new GenericArrayData(chain)
            }));
  }

  /** The inline chain of a location, innermost first, or null when it has no lines. */
  private ArrayData lines(int location) {
    if (linesBuilt[location]) {
      return lines[location];
    }
    int n = tables.lineCount(location);
    ArrayData out = null;
    if (n > 0) {
      Object[] entries = new Object[n];
      for (int j = 0; j < n; j++) {
        entries[j] =
            new GenericInternalRow(
                new Object[] {
                  UTF8String.fromString(tables.lineFunction(location, j)),
                  orNull(tables.lineFile(location, j)),
                  tables.lineNumber(location, j) == 0 ? null : tables.lineNumber(location, j),
                  orNull(tables.lineSymbol(location, j))
                });
      }
      // In Spark's binary layout: every row holding the location copies it as bytes instead of
      // converting its structs and strings again.
      out =
          linesProjection
              .apply(new GenericInternalRow(new Object[] {new GenericArrayData(entries)}))
              .getArray(0)
              .copy();
    }
    lines[location] = out;
    linesBuilt[location] = true;
    return out;
  }

  /** pprof writes "" (string 0) for an unknown file or system name; the column says null. */
  private static UTF8String orNull(String s) {
    return s.isEmpty() ? null : UTF8String.fromString(s);
  }

  @Override
  public boolean constantPerFile() {
    return false;
  }
}
