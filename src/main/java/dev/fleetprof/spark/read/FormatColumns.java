package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;

/**
 * The columns of the schema that only one format fills ({@code histogram}, {@code dcpi}, {@code
 * pprof}), filled from its decoder. A format says which it fills ({@link ProfileFormat#columns()});
 * the source picks the filler by the column's name, never by the format, so a format without
 * columns of its own needs nothing here.
 *
 * <p>The fillers stay here, in Spark's terms, rather than behind a plain-Java description of the
 * values that this layer would convert: they build Spark's binary layout directly and share it
 * across rows (a DCPI header once per file, a pprof location's inline chain once per location),
 * which a generic conversion per row would give up; and the columns are part of the schema, a
 * contract with users' queries that no format extends on its own.
 */
interface FormatColumns {
  /** Fills the format's columns of the reader's current record. */
  void fill(GenericInternalRow row, ProfileRecordReader reader);

  /** Whether the values are the same for every record of a file (set once per batch). */
  boolean constantPerFile();

  /** Makes the filler of one column at {@code ordinal} for a file's decoder. */
  interface Factory {
    FormatColumns create(ProfileRecordReader reader, int ordinal);
  }

  /** The filler of each column a format may declare, by the column's name. */
  Map<String, Factory> BY_COLUMN =
      Map.of(
          ProfileSchema.HISTOGRAM, (reader, ordinal) -> new GprofHistogramColumn(ordinal),
          ProfileSchema.DCPI, DcpiHeaderColumn::new,
          ProfileSchema.PPROF, PprofColumn::new);

  /**
   * The columns of {@code format} (read by {@code reader}) that the query reads, or null when there
   * are none.
   */
  static FormatColumns of(ProfileFormat format, ProfileRecordReader reader, RequiredColumns cols) {
    List<FormatColumns> out = new ArrayList<>(1);
    for (String name : format.columns()) {
      Factory factory = BY_COLUMN.get(name);
      if (factory == null) {
        throw new IllegalStateException(
            "profile format "
                + format.name()
                + " fills column "
                + name
                + ", which is no column"
                + " of the profile source's schema");
      }
      int ordinal = cols.formatColumn(name);
      if (ordinal >= 0) {
        out.add(factory.create(reader, ordinal));
      }
    }
    if (out.isEmpty()) {
      return null;
    }
    if (out.size() == 1) {
      return out.get(0);
    }
    FormatColumns[] all = out.toArray(new FormatColumns[0]);
    boolean constant = out.stream().allMatch(FormatColumns::constantPerFile);
    return new FormatColumns() {
      @Override
      public void fill(GenericInternalRow row, ProfileRecordReader r) {
        for (FormatColumns c : all) {
          c.fill(row, r);
        }
      }

      @Override
      public boolean constantPerFile() {
        return constant;
      }
    };
  }
}
