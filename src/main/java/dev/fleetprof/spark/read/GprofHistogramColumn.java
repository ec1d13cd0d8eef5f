package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.gprof.GmonReader;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * gprof's {@code histogram} column: for a histogram bin, the bin's end and the histogram's rate and
 * dimension; null for call arcs and basic blocks.
 */
final class GprofHistogramColumn implements FormatColumns {
  private final int ordinal;
  private String dimensionText;
  private UTF8String dimension;
  private UTF8String dimensionAbbrev;

  GprofHistogramColumn(int ordinal) {
    this.ordinal = ordinal;
  }

  @Override
  public void fill(GenericInternalRow row, ProfileRecordReader reader) {
    GmonReader g = (GmonReader) reader;
    if (!GmonReader.KIND_HISTOGRAM.equals(g.kind())) {
      row.setNullAt(ordinal);
      return;
    }
    if (!g.dimension().equals(dimensionText)) {
      dimensionText = g.dimension();
      dimension = UTF8String.fromString(dimensionText);
      dimensionAbbrev = UTF8String.fromString(String.valueOf(g.dimensionAbbrev()));
    }
    row.update(
        ordinal,
        new GenericInternalRow(
            new Object[] {g.binEnd(), g.profRate(), dimension, dimensionAbbrev}));
  }

  @Override
  public boolean constantPerFile() {
    return false;
  }
}
