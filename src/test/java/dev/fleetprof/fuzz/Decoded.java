package dev.fleetprof.fuzz;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.DecodedRecord;
import java.util.List;

/**
 * What one decoder made of one input, in a form that two decodes can be compared by: the records it
 * yielded (copied out of the reader), how it ended, and the executable mappings it found.
 *
 * @param error the ProfileFormatException that stopped decoding, or null
 * @param end how a reader without an error stopped: {@code TRAILER} or {@code TRUNCATED} for
 *     gperftools (its documented truncation signal), {@code COMPLETE} otherwise; null after an
 *     error
 */
record Decoded(
    List<DecodedRecord> records, ProfileFormatException error, String end, List<Mapping> mappings) {
  static final String COMPLETE = "COMPLETE";
  static final String TRUNCATED = "TRUNCATED";

  /** The decoder read the whole input as a valid file: no error and no truncation signal. */
  boolean clean() {
    return error == null && !TRUNCATED.equals(end);
  }

  String outcome() {
    return error != null ? "error at " + error.offset() + ": " + error.problem() : end;
  }
}
