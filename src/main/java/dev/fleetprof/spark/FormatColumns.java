package dev.fleetprof.spark;

import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gprof.GmonReader;
import dev.fleetprof.format.pprof.PprofReader;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;

/**
 * The columns only one format has ({@code histogram} for gprof, {@code dcpi} for DCPI, {@code
 * pprof} for pprof), filled from its decoder. A format without columns of its own needs nothing
 * here.
 */
interface FormatColumns {
  /** Fills the format's columns of the reader's current record. */
  void fill(GenericInternalRow row, ProfileRecordReader reader);

  /** Whether the values are the same for every record of a file (set once per batch). */
  boolean constantPerFile();

  /** The columns of {@code reader}'s format that the query reads, or null when there are none. */
  static FormatColumns of(ProfileRecordReader reader, RequiredColumns cols) {
    if (reader instanceof GmonReader && cols.histogram() >= 0) {
      return new GprofHistogramColumn(cols.histogram());
    }
    if (reader instanceof DcpiProfileReader dcpi && cols.dcpi() >= 0) {
      return new DcpiHeaderColumn(dcpi.header(), cols.dcpi());
    }
    if (reader instanceof PprofReader pprof && cols.pprof() >= 0) {
      return new PprofColumn(pprof, cols.pprof());
    }
    return null;
  }
}
