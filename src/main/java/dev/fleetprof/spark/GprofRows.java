package dev.fleetprof.spark;

import dev.fleetprof.format.FormatDetector;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.gprof.GmonReader;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Rows of a gprof {@code gmon.out}: histogram bins, call arcs ({@code pcs = [self_pc, from_pc]},
 * callee first like every call chain here) and basic-block counts. A gmon file lists no mappings and
 * glibc writes link-time addresses (PIE too), so {@code mapping} is null and each frame is
 * {@code (module = null, offset = address)}: the address is already the same in every run of one
 * binary.
 */
final class GprofRows extends DecodedRows {
  private static final UTF8String MICROSECONDS = UTF8String.fromString("microseconds");
  private UTF8String dimension;
  private UTF8String dimensionAbbrev;
  private String dimensionText;

  GprofRows(GmonReader reader, String path, RequiredColumns cols,
      ProfilePartitionReader.ReadMetrics metrics) {
    super(reader, path, FormatDetector.GPROF, cols, metrics);
  }

  @Override
  InternalRow frame(long pc) {
    return new GenericInternalRow(new Object[] {null, pc});
  }

  @Override
  InternalRow mapping(long leaf) {
    return null;
  }

  @Override
  void fillDetails(ProfileRecordReader r) {
    GmonReader g = (GmonReader) r;
    boolean histogram = GmonReader.KIND_HISTOGRAM.equals(g.kind());
    long rate = histogram ? g.profRate() : 0;
    // One bin count is one tick of 1/rate seconds; as a period when it is a whole number of us.
    boolean wholeMicros = histogram && rate > 0 && 1_000_000 % rate == 0
        && "seconds".equals(g.dimension());
    if (cols.period() >= 0) {
      if (wholeMicros) {
        row.setLong(cols.period(), 1_000_000 / rate);
      } else {
        row.setNullAt(cols.period());
      }
    }
    if (cols.periodUnit() >= 0) {
      row.update(cols.periodUnit(), wholeMicros ? MICROSECONDS : null);
    }
    if (cols.histogram() >= 0) {
      if (histogram) {
        if (!g.dimension().equals(dimensionText)) {
          dimensionText = g.dimension();
          dimension = UTF8String.fromString(dimensionText);
          dimensionAbbrev = UTF8String.fromString(String.valueOf(g.dimensionAbbrev()));
        }
        row.update(cols.histogram(), new GenericInternalRow(new Object[] {g.binEnd(), rate,
            dimension, dimensionAbbrev}));
      } else {
        row.setNullAt(cols.histogram());
      }
    }
  }
}
