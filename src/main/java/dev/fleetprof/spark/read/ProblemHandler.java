package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.StackIds;
import dev.fleetprof.spark.ProblemPolicy;
import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a file's problem into what the read's policy asks for: an error row (PERMISSIVE), a counted
 * and logged drop (DROPMALFORMED, {@code ignoreCorruptFiles}, {@code ignoreMissingFiles}), or a
 * failed task (FAILFAST, or a missing file that is not to be ignored).
 */
final class ProblemHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ProblemHandler.class);
  private static final UTF8String KIND_ERROR = UTF8String.fromString(ProfileSchema.KIND_ERROR);
  private static final UTF8String UNKNOWN_FORMAT = UTF8String.fromString("unknown");

  private final ProblemPolicy policy;
  private final RequiredColumns columns;
  private final ReadMetrics metrics;
  private GenericInternalRow errorRow;

  ProblemHandler(ProblemPolicy policy, RequiredColumns columns, ReadMetrics metrics) {
    this.policy = policy;
    this.columns = columns;
    this.metrics = metrics;
  }

  /**
   * Handles a problem reading {@code slice} (of a file of {@code format}, null when not yet known).
   *
   * @return the error row to return, or null when the problem is only counted and logged
   * @throws IOException when the policy says the task fails
   */
  GenericInternalRow handle(IOException e, Slice slice, String format, Object[] partitionValues)
      throws IOException {
    if (e instanceof FileNotFoundException) {
      if (!policy.ignoreMissingFiles()) {
        throw new FileNotFoundException(
            slice.path()
                + ": the file was listed when the query was"
                + " planned but is gone now ("
                + e.getMessage()
                + "); set ignoreMissingFiles to skip"
                + " such files");
      }
      metrics.missingFiles++;
      LOG.warn("profile source: skipped {}: it is gone (ignoreMissingFiles)", slice.path());
      return null;
    }
    ProfileFormatException p =
        e instanceof ProfileFormatException pfe
            ? pfe
            : new ProfileFormatException(
                slice.path(),
                slice.start(),
                "reading failed at or after" + " this offset: " + e,
                e);
    metrics.problems++;
    if (policy.ignoreCorruptFiles()) {
      LOG.warn(
          "profile source: skipped the rest of a corrupt file (ignoreCorruptFiles): {}",
          p.getMessage());
      return null;
    }
    switch (policy.mode()) {
      case FAILFAST:
        throw p;
      case DROPMALFORMED:
        LOG.warn("profile source: dropped (mode DROPMALFORMED): {}", p.getMessage());
        return null;
      default:
        return errorRow(p, slice, format, partitionValues);
    }
  }

  /** A {@code kind = 'error'} row: count 0 and empty chains, so that sums are unaffected. */
  private GenericInternalRow errorRow(
      ProfileFormatException p, Slice slice, String format, Object[] partitionValues) {
    if (errorRow == null) {
      errorRow = new GenericInternalRow(columns.width());
      if (columns.kind() >= 0) {
        errorRow.update(columns.kind(), KIND_ERROR);
      }
      if (columns.pcs() >= 0) {
        errorRow.update(columns.pcs(), UnsafeArrayData.fromPrimitiveArray(new long[0]));
      }
      if (columns.count() >= 0) {
        errorRow.setLong(columns.count(), 0);
      }
      if (columns.frames() >= 0) {
        errorRow.update(columns.frames(), new GenericArrayData(new Object[0]));
      }
      if (columns.stackId() >= 0) {
        errorRow.setLong(columns.stackId(), StackIds.empty());
      }
    }
    if (columns.path() >= 0) {
      errorRow.update(columns.path(), UTF8String.fromString(slice.path()));
    }
    if (columns.format() >= 0) {
      errorRow.update(
          columns.format(), format == null ? UNKNOWN_FORMAT : UTF8String.fromString(format));
    }
    if (columns.recordOffset() >= 0) {
      errorRow.setLong(columns.recordOffset(), p.offset());
    }
    if (columns.error() >= 0) {
      errorRow.update(columns.error(), UTF8String.fromString(p.getMessage()));
    }
    columns.setPartitionValues(errorRow, partitionValues);
    return errorRow;
  }
}
