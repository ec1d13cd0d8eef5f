package dev.fleetprof.fuzz;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.ProfileFormatException;
import java.util.Arrays;
import java.util.List;

/**
 * What one decoder made of one input, in a form that two decodes can be compared by: the records it
 * yielded (copied out of the reader), how it ended, and the executable mappings it found.
 *
 * @param error the ProfileFormatException that stopped decoding, or null
 * @param end how a reader without an error stopped: {@code TRAILER} or {@code TRUNCATED} for gperftools
 *     (its documented truncation signal), {@code COMPLETE} otherwise; null after an error
 */
record Decoded(List<Rec> records, ProfileFormatException error, String end, List<Mapping> mappings) {
  static final String COMPLETE = "COMPLETE";
  static final String TRUNCATED = "TRUNCATED";

  /** The decoder read the whole input as a valid file: no error and no truncation signal. */
  boolean clean() {
    return error == null && !TRUNCATED.equals(end);
  }

  String outcome() {
    return error != null ? "error at " + error.offset() + ": " + error.problem() : end;
  }

  /**
   * One record. {@code extra} holds the format's per-record facts beyond the call chain (gprof
   * histogram bin end, rate and dimension), so that equal records mean equal rows.
   */
  record Rec(long offset, String kind, long count, long[] pcs, String extra) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Rec r && r.offset == offset && r.kind.equals(kind) && r.count == count
          && Arrays.equals(r.pcs, pcs) && r.extra.equals(extra);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(offset) * 31 + Arrays.hashCode(pcs);
    }

    @Override
    public String toString() {
      return kind + "@" + offset + "[count=" + Long.toUnsignedString(count) + ", pcs="
          + Arrays.toString(pcs) + (extra.isEmpty() ? "" : ", " + extra) + "]";
    }
  }
}
