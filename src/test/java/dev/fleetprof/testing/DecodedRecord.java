package dev.fleetprof.testing;

import java.util.Arrays;
import org.apache.spark.sql.Row;

/**
 * One record a decoder yielded, copied out of the reader so that two decodes (or a decode and the
 * rows of a read) can be compared: equal records mean equal rows.
 *
 * @param offset the record's byte offset in its file
 * @param kind the {@code kind} column: {@code sample}, or {@code arc} or {@code histogram} for
 *     gprof
 * @param count an unsigned 64-bit bit pattern
 * @param pcs the call chain, leaf first
 * @param extra the format's per-record facts beyond the call chain (gprof histogram bin end, rate
 *     and dimension); empty when there are none
 */
public record DecodedRecord(long offset, String kind, long count, long[] pcs, String extra) {
  private static final String SAMPLE = "sample";

  /** A sample: what a gperftools or DCPI record is. */
  public DecodedRecord(long offset, long count, long[] pcs) {
    this(offset, SAMPLE, count, pcs, "");
  }

  /** A sample from a row of the {@code profile} source's (record_offset, count, pcs) columns. */
  public static DecodedRecord ofRow(Row r) {
    return new DecodedRecord(
        r.getLong(0),
        r.getLong(1),
        r.<Long>getList(2).stream().mapToLong(Long::longValue).toArray());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DecodedRecord r
        && r.offset == offset
        && r.kind.equals(kind)
        && r.count == count
        && Arrays.equals(r.pcs, pcs)
        && r.extra.equals(extra);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(offset) * 31 + Arrays.hashCode(pcs);
  }

  @Override
  public String toString() {
    return kind
        + "@"
        + offset
        + "[count="
        + Long.toUnsignedString(count)
        + ", pcs="
        + Arrays.toString(pcs)
        + (extra.isEmpty() ? "" : ", " + extra)
        + "]";
  }
}
