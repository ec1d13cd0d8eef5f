package dev.fleetprof.spark.read;

import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.spark.ProblemPolicy;
import dev.fleetprof.spark.ReadOptions;
import dev.fleetprof.spark.columnar.FlatBatch;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.IOException;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.InputFileBlockHolder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Walks the slices of one partition in turn: the {@link SliceOpener} opens each, its rows are
 * returned, and a problem goes to the {@link ProblemHandler}, which returns an error row, drops it,
 * or fails the task as the read's mode says. Rows read before a problem are kept; the rest of that
 * file (or split) is skipped, since none of the formats can be resynchronised after a bad record.
 */
final class ProfilePartitionReader implements PartitionReader<InternalRow> {
  private final ProfileInputPartition partition;
  private final SliceOpener opener;
  private final ProblemHandler problems;
  private final RequiredColumns columns;
  private final ProblemPolicy policy;
  private final ReadMetrics metrics;

  private int next;
  private Slice slice;
  private RowSource current;
  private InternalRow row;
  private boolean errorRow;
  private long rowsReturned;
  private IOException pending;

  ProfilePartitionReader(
      ProfileInputPartition partition,
      SliceOpener opener,
      RequiredColumns columns,
      ProblemPolicy policy,
      ReadMetrics metrics) {
    this.partition = partition;
    this.opener = opener;
    this.columns = columns;
    this.policy = policy;
    this.metrics = metrics;
    this.problems = new ProblemHandler(policy, columns, metrics);
  }

  @Override
  public boolean next() throws IOException {
    injectFaultForTests();
    while (true) {
      if (current != null) {
        try {
          if (current.next()) {
            row = current.row();
            errorRow = false;
            rowsReturned++;
            return true;
          }
        } catch (IOException e) {
          if (problem(e)) {
            return true;
          }
        }
      }
      switch (advance()) {
        case END:
          return false;
        case ERROR_ROW:
          return true;
        default:
      }
    }
  }

  /**
   * Columnar reads: fills the batch with the next rows of one slice (or one error row); false at
   * the end of the partition. A problem found after some of a batch's rows is handled (as the mode
   * says) on the next call, so that those rows are kept.
   */
  boolean nextBatch(FlatBatch batch) throws IOException {
    injectFaultForTests();
    if (pending != null) {
      IOException e = pending;
      pending = null;
      if (problem(e)) {
        return errorBatch(batch);
      }
    }
    while (true) {
      if (current != null) {
        batch.reset();
        try {
          if (current.fillBatch(batch)) {
            rowsReturned += batch.size();
            return true;
          }
        } catch (IOException e) {
          if (batch.size() > 0) {
            pending = e;
            rowsReturned += batch.size();
            return true;
          }
          if (problem(e)) {
            return errorBatch(batch);
          }
        }
      }
      switch (advance()) {
        case END:
          return false;
        case ERROR_ROW:
          return errorBatch(batch);
        default:
      }
    }
  }

  /** A batch of the one error row that {@link #problem} made. */
  private boolean errorBatch(FlatBatch batch) {
    batch.reset();
    batch.addRow(row);
    return true;
  }

  private enum Opened {
    END,
    SLICE,
    ERROR_ROW
  }

  /**
   * Closes the finished slice (if a problem has not already) and opens the partition's next one; a
   * problem opening it becomes an error row, or is skipped.
   */
  private Opened advance() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
    if (next >= partition.size()) {
      return Opened.END;
    }
    int i = next++;
    slice = partition.slice(i);
    // What input_file_name() and the other input-file functions report for the rows that follow.
    InputFileBlockHolder.set(slice.path(), slice.start(), slice.end() - slice.start());
    try {
      current = opener.open(slice, partition.notRegular(i));
      if (current != RowSource.EMPTY) {
        columns.setPartitionValues(current.row(), partition.partitionValues(i));
        columns.setFileMetadata(current.row(), slice, partition.modified(i));
      }
    } catch (IOException e) {
      if (problem(e)) {
        return Opened.ERROR_ROW;
      }
    }
    return Opened.SLICE;
  }

  @Override
  public InternalRow get() {
    return row;
  }

  /** Whether the row {@link #get()} returns reports a problem rather than a record. */
  boolean errorRow() {
    return errorRow;
  }

  /**
   * The mappings of the file the current row came from (none for an error row): what the row's
   * {@code frames} and {@code mapping} are computed from.
   */
  MappingIndex currentMappings() {
    return errorRow || current == null ? MappingIndex.EMPTY : current.mappings();
  }

  /** Whether the current file's callers' frames are at their return address minus one. */
  boolean currentCallersMinusOne() {
    return !errorRow && current != null && current.callersMinusOne();
  }

  /** The size of the file of the slice being read, as listed. */
  long currentFileLength() {
    return slice == null ? 0 : slice.fileLength();
  }

  /** The file of the slice being read. */
  String currentPath() {
    return slice == null ? "" : slice.path();
  }

  /**
   * A problem found by the caller in the current slice's last record (before using it), handled as
   * one found by the decoder: true when {@link #get()} now returns its error row; the rest of the
   * slice is skipped either way.
   */
  boolean failCurrentSlice(IOException e) throws IOException {
    return problem(e);
  }

  /**
   * Handles a problem of the current slice's file; true when it became an error row to return. The
   * file's remaining rows are skipped either way.
   */
  private boolean problem(IOException e) throws IOException {
    closeQuietly();
    GenericInternalRow error =
        problems.handle(e, slice, opener.format(), partition.partitionValues(next - 1));
    if (error == null) {
      return false;
    }
    columns.setFileMetadata(error, slice, partition.modified(next - 1));
    row = error;
    errorRow = true;
    return true;
  }

  private void injectFaultForTests() throws IOException {
    if (policy.failFirstAttemptAfterRows() >= 0
        && rowsReturned >= policy.failFirstAttemptAfterRows()) {
      TaskContext task = TaskContext.get();
      if (task != null && task.attemptNumber() == 0) {
        throw new IOException(
            "fault injected by the test hook "
                + ReadOptions.FAIL_FIRST_ATTEMPT_AFTER_ROWS
                + " after "
                + rowsReturned
                + " rows");
      }
    }
  }

  private void closeQuietly() {
    if (current != null) {
      try {
        current.close();
      } catch (IOException | RuntimeException ignored) {
        // the file is already being reported; a failing close adds nothing
      }
      current = null;
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.values();
  }

  @Override
  public void close() throws IOException {
    InputFileBlockHolder.unset();
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
