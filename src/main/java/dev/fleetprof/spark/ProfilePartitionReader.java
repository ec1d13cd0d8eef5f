package dev.fleetprof.spark;

import dev.fleetprof.format.ByteArraySource;
import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.FormatDetector;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.format.dcpi.DcpiOffsetUnit;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.spark.columnar.FlatBatch;
import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the slices of one partition in turn, picking each file's decoder from its bytes, and turns a
 * file's problems into what the read's mode asks for: an error row (PERMISSIVE), a counted and logged
 * drop (DROPMALFORMED), or a failed task (FAILFAST). Rows read before a problem are kept; the rest of
 * that file (or split) is skipped, since none of the formats can be resynchronised after a bad record.
 */
final class ProfilePartitionReader implements PartitionReader<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(ProfilePartitionReader.class);
  private static final UTF8String KIND_ERROR = UTF8String.fromString(ProfileSchema.KIND_ERROR);
  private static final UTF8String UNKNOWN_FORMAT = UTF8String.fromString("unknown");
  /** Files up to this size are read whole with one open (see {@link ByteArraySource}). */
  static final long WHOLE_FILE_BYTES = 1 << 20;

  private final ProfileInputPartition partition;
  private final Configuration conf;
  private final Map<String, CpuProfileLayout> splitLayouts;
  private final String format;
  private final Map<String, String> decoderOptions;
  private final RequiredColumns columns;
  private final ProblemPolicy policy;
  private final ReadMetrics metrics = new ReadMetrics();
  private final byte[] buffer;
  /** Holds the current file when it is small enough to read whole; grown as needed. */
  private byte[] wholeFile;

  private int next;
  private Slice slice;
  private String sliceFormat;
  private RowSource current;
  private GenericInternalRow errorRow;
  private InternalRow row;
  private long rowsReturned;
  private IOException pending;

  ProfilePartitionReader(ProfileInputPartition partition, Configuration conf,
      Map<String, CpuProfileLayout> splitLayouts, String format,
      Map<String, String> decoderOptions, RequiredColumns columns, ProblemPolicy policy) {
    this.partition = partition;
    this.decoderOptions = decoderOptions;
    this.conf = conf;
    this.splitLayouts = splitLayouts;
    this.format = format;
    this.columns = columns;
    this.policy = policy;
    long bytes = 0;
    for (int i = 0; i < partition.size(); i++) {
      bytes += partition.slice(i).fileLength();
    }
    // One read buffer for every file of the task: 1 MiB, or less when the task reads less.
    this.buffer = new byte[(int) Math.max(4096, Math.min(1 << 20, bytes))];
  }

  @Override
  public boolean next() throws IOException {
    injectFaultForTests();
    while (true) {
      if (current != null) {
        try {
          if (current.next()) {
            row = current.row();
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
   * Columnar reads: fills the batch with the next rows of one slice (or one error row); false at the
   * end of the partition. A problem found after some of a batch's rows is handled (as the mode says)
   * on the next call, so that those rows are kept.
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

  private enum Opened { END, SLICE, ERROR_ROW }

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
    sliceFormat = null;
    try {
      current = open(slice);
      if (current != RowSource.EMPTY) {
        columns.setPartitionValues(current.row(), partition.partitionValues(i));
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

  /**
   * Handles a problem of the current slice's file; true when it became an error row to return. The
   * file's remaining rows are skipped either way.
   */
  private boolean problem(IOException e) throws IOException {
    closeQuietly();
    if (e instanceof FileNotFoundException) {
      if (!policy.ignoreMissingFiles()) {
        throw new FileNotFoundException(slice.path() + ": the file was listed when the query was"
            + " planned but is gone now (" + e.getMessage() + "); set ignoreMissingFiles to skip"
            + " such files");
      }
      metrics.missingFiles++;
      LOG.warn("profile source: skipped {}: it is gone (ignoreMissingFiles)", slice.path());
      return false;
    }
    ProfileFormatException p = e instanceof ProfileFormatException pfe ? pfe
        : new ProfileFormatException(slice.path(), slice.start(), "reading failed at or after"
            + " this offset: " + e, e);
    metrics.problems++;
    if (policy.ignoreCorruptFiles()) {
      LOG.warn("profile source: skipped the rest of a corrupt file (ignoreCorruptFiles): {}",
          p.getMessage());
      return false;
    }
    switch (policy.mode()) {
      case FAILFAST:
        throw p;
      case DROPMALFORMED:
        LOG.warn("profile source: dropped (mode DROPMALFORMED): {}", p.getMessage());
        return false;
      default:
        row = errorRow(p);
        return true;
    }
  }

  /** A {@code kind = 'error'} row: count 0 and empty chains, so that sums are unaffected. */
  private InternalRow errorRow(ProfileFormatException p) {
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
    }
    if (columns.path() >= 0) {
      errorRow.update(columns.path(), UTF8String.fromString(slice.path()));
    }
    if (columns.format() >= 0) {
      errorRow.update(columns.format(),
          sliceFormat == null ? UNKNOWN_FORMAT : UTF8String.fromString(sliceFormat));
    }
    if (columns.recordOffset() >= 0) {
      errorRow.setLong(columns.recordOffset(), p.offset());
    }
    if (columns.error() >= 0) {
      errorRow.update(columns.error(), UTF8String.fromString(p.getMessage()));
    }
    columns.setPartitionValues(errorRow, partition.partitionValues(next - 1));
    return errorRow;
  }

  private void injectFaultForTests() throws IOException {
    if (policy.failFirstAttemptAfterRows() >= 0
        && rowsReturned >= policy.failFirstAttemptAfterRows()) {
      TaskContext task = TaskContext.get();
      if (task != null && task.attemptNumber() == 0) {
        throw new IOException("fault injected by the test hook "
            + ReadOptions.FAIL_FIRST_ATTEMPT_AFTER_ROWS + " after " + rowsReturned + " rows");
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

  private RowSource open(Slice slice) throws IOException {
    HadoopByteSource file = new HadoopByteSource(slice.path(), slice.fileLength(), conf);
    CpuProfileLayout layout = splitLayouts.get(slice.path());
    if (layout != null) { // a split of a large profile: the driver already read its layout
      if (slice.start() == 0) {
        metrics.files++;
      }
      sliceFormat = FormatDetector.GPERFTOOLS;
      return new CpuProfileRows(file, slice, layout, layout.header(), columns, metrics, buffer);
    }
    metrics.files++;
    ByteSource src = file;
    if (!file.gzip() && slice.fileLength() <= WHOLE_FILE_BYTES) {
      // Small files (a fleet's usual profile is tens of KB) are read once, then decoded from memory.
      int length = (int) slice.fileLength();
      if (wholeFile == null || wholeFile.length < length) {
        wholeFile = new byte[Math.max(length, 64 << 10)];
      }
      file.readFully(wholeFile, length);
      src = new ByteArraySource(file.name(), wholeFile, length);
    }
    byte[] head = new byte[FormatDetector.HEAD_BYTES];
    int n;
    try (InputStream in = src.open(0)) {
      n = in.readNBytes(head, 0, head.length);
    }
    if (n == 0) {
      return RowSource.EMPTY; // a profiler reset before its first flush leaves a 0-byte file
    }
    String want = format.equals("auto")
        ? FormatDetector.require(src.name(), head, n, src.length()) : format;
    sliceFormat = want;
    switch (want) {
      case FormatDetector.GPERFTOOLS:
        CpuProfileHeader header = CpuProfileHeader.parse(src.name(), head, n, src.length());
        return new CpuProfileRows(src, slice, null, header, columns, metrics, buffer);
      case FormatDetector.GPROF:
        return new GprofRows(GmonFile.open(src, GmonOptions.fromMap(decoderOptions)), src.name(),
            columns, metrics);
      case FormatDetector.DCPI:
        return new DcpiRows(DcpiProfileReader.open(src, DcpiOffsetUnit.parse(
            decoderOptions.getOrDefault(ReadOptions.DCPI_OFFSET_UNIT, "bytes"))), src.name(),
            columns, metrics);
      default:
        throw new IllegalStateException("unknown format " + want);
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.values();
  }

  @Override
  public void close() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  /** The task's running metric values. */
  static final class ReadMetrics {
    long files;
    long records;
    long bytes;
    long resyncedSplits;
    long truncatedFiles;
    long chainsDecoded;
    long problems;
    long missingFiles;

    CustomTaskMetric[] values() {
      return new CustomTaskMetric[] {
          ProfileMetrics.task(ProfileMetrics.FILES, files),
          ProfileMetrics.task(ProfileMetrics.RECORDS, records),
          ProfileMetrics.task(ProfileMetrics.BYTES, bytes),
          ProfileMetrics.task(ProfileMetrics.RESYNCED_SPLITS, resyncedSplits),
          ProfileMetrics.task(ProfileMetrics.TRUNCATED_FILES, truncatedFiles),
          ProfileMetrics.task(ProfileMetrics.CHAINS_DECODED, chainsDecoded),
          ProfileMetrics.task(ProfileMetrics.PROBLEMS, problems),
          ProfileMetrics.task(ProfileMetrics.MISSING_FILES, missingFiles),
      };
    }
  }
}
