package dev.fleetprof.spark;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.FormatDetector;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.gperftools.CpuProfileBoundaryChecker;
import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import dev.fleetprof.spark.columnar.FlatBatch;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.IOException;
import java.io.InputStream;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of one slice of a gperftools CPU profile. A slice that starts inside the file finds its
 * first record with the boundary checker; every split, having walked past its end, checks that the
 * checker finds the same boundary where the next split starts, so that each record is read exactly
 * once or the task fails naming the file and offset.
 */
final class CpuProfileRows implements RowSource {
  private static final UTF8String FORMAT = UTF8String.fromString(FormatDetector.GPERFTOOLS);
  private static final UTF8String KIND = UTF8String.fromString("sample");
  private static final UTF8String MICROSECONDS = UTF8String.fromString("microseconds");

  private final ByteSource src;
  private final Slice slice;
  private final CpuProfileLayout splitLayout;
  private final RequiredColumns cols;
  private final ProfilePartitionReader.ReadMetrics metrics;
  private final InputStream in;
  private final CpuProfileReader reader;
  private final CpuProfileBoundaryChecker checker;
  private final long startBoundary;
  private final long period;
  private final UTF8String path;
  private final UnsafeChains chains;
  private final GenericInternalRow row;
  private long lastPosition;
  private boolean finished;

  CpuProfileRows(ByteSource src, Slice slice, CpuProfileLayout splitLayout,
      CpuProfileHeader header, RequiredColumns cols, ProfilePartitionReader.ReadMetrics metrics,
      byte[] buffer) throws IOException {
    this.src = src;
    this.slice = slice;
    this.splitLayout = splitLayout;
    this.cols = cols;
    this.metrics = metrics;
    this.period = header.periodMicros();
    this.path = UTF8String.fromString(src.name());
    this.row = new GenericInternalRow(cols.width());
    // What every row of the file shares is set once; fill() sets what changes per record.
    if (cols.path() >= 0) {
      row.update(cols.path(), path);
    }
    if (cols.format() >= 0) {
      row.update(cols.format(), FORMAT);
    }
    if (cols.kind() >= 0) {
      row.update(cols.kind(), KIND);
    }
    if (cols.period() >= 0) {
      row.setLong(cols.period(), period);
    }
    if (cols.periodUnit() >= 0) {
      row.update(cols.periodUnit(), MICROSECONDS);
    }

    MappingIndex index = MappingIndex.EMPTY;
    if (splitLayout != null) {
      index = splitLayout.mappings();
    } else if (cols.needsMappings()) {
      index = CpuProfileLayout.read(src).mappings();
    }
    this.chains = new UnsafeChains(index);

    if (splitLayout != null) {
      checker = new CpuProfileBoundaryChecker(src, splitLayout);
      if (slice.start() == 0) {
        startBoundary = header.recordsStart();
      } else {
        startBoundary = checker.firstBoundaryAtOrAfter(slice.start());
        metrics.resyncedSplits++;
      }
    } else {
      checker = null;
      startBoundary = header.recordsStart();
    }
    // A split opens where its first record starts; a whole file (compressed ones always are read
    // whole) is read from its start, past the header.
    this.in = src.open(splitLayout == null ? 0 : startBoundary);
    try {
      this.reader = splitLayout == null
          ? CpuProfileReader.wholeFile(src.name(), header, in, src.length(), cols.needsPcs(), buffer)
          : new CpuProfileReader(src.name(), header, in, startBoundary, slice.end(), src.length(),
              cols.needsPcs(), buffer);
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
    this.lastPosition = startBoundary;
  }

  @Override
  public boolean next() throws IOException {
    if (!reader.next()) {
      finish();
      return false;
    }
    metrics.records++;
    long pos = reader.position();
    metrics.bytes += pos - lastPosition;
    lastPosition = pos;
    fill();
    return true;
  }

  private void fill() throws ProfileFormatException {
    int depth = reader.depth();
    long[] pcs = reader.pcs();
    if (cols.needsPcs()) {
      metrics.chainsDecoded++;
    }
    if (cols.pcs() >= 0) {
      row.update(cols.pcs(), chains.pcs(pcs, depth));
    }
    if (cols.count() >= 0) {
      row.setLong(cols.count(), reader.count());
    }
    if (cols.mapping() >= 0) {
      row.update(cols.mapping(), depth > 0 ? chains.mapping(pcs[0]) : null);
    }
    if (cols.frames() >= 0) {
      UnsafeArrayData frames = chains.frames(pcs, depth);
      if (frames == null) {
        throw new ProfileFormatException(src.name(), reader.recordOffset(), "the record's "
            + depth + " frames would take more than " + (UnsafeChains.MAX_FRAMES_BYTES >> 20)
            + " MiB (each repeats its module's path; is the maps text corrupt?)");
      }
      row.update(cols.frames(), frames);
    }
    if (cols.recordOffset() >= 0) {
      row.setLong(cols.recordOffset(), reader.recordOffset());
    }
  }

  /**
   * Without call chains a record changes only its count and offset: those go straight into the
   * batch's vectors, and the file's constant columns are set once per batch.
   */
  @Override
  public boolean fillBatch(FlatBatch batch) throws IOException {
    if (cols.needsPcs()) {
      return RowSource.super.fillBatch(batch);
    }
    int count = cols.count();
    int offset = cols.recordOffset();
    batch.useConstants(row, count, offset);
    try {
      while (!batch.full()) {
        if (!reader.next()) {
          finish();
          break;
        }
        if (count >= 0) {
          batch.putLong(count, reader.count());
        }
        if (offset >= 0) {
          batch.putLong(offset, reader.recordOffset());
        }
        batch.endRow();
      }
    } finally {
      metrics.records += batch.size();
      metrics.bytes += reader.position() - lastPosition;
      lastPosition = reader.position();
    }
    return batch.size() > 0;
  }

  /** Checks how reading ended: the split contract, the trailer, or a truncated file. */
  private void finish() throws IOException {
    if (finished) {
      return; // a batch that ended with the file already checked how reading ended
    }
    finished = true;
    metrics.bytes += reader.position() - lastPosition;
    lastPosition = reader.position();
    switch (reader.end()) {
      case SPLIT_END: {
        long expected = checker.firstBoundaryAtOrAfter(slice.end());
        if (expected != reader.stopOffset()) {
          throw new ProfileFormatException(src.name(), slice.end(), "split boundary check failed:"
              + " reading sequentially reached the record boundary at byte "
              + reader.stopOffset() + ", but the boundary checker, run where the next split"
              + " starts, finds " + expected + "; the file cannot be split safely (read it with"
              + " a larger maxPartitionBytes, and please report the file)");
        }
        break;
      }
      case TRAILER:
        if (splitLayout != null && reader.stopOffset() != splitLayout.trailerOffset()) {
          throw new ProfileFormatException(src.name(), reader.stopOffset(), "found a trailer"
              + " where planning (from the file's tail) placed it at byte "
              + splitLayout.trailerOffset() + "; was the file changed while being read?");
        }
        break;
      case TRUNCATED:
        if (splitLayout != null) {
          throw new ProfileFormatException(src.name(), reader.stopOffset(), "the file ended"
              + " before the trailer that planning found at byte " + splitLayout.trailerOffset()
              + "; was the file changed while being read?");
        }
        metrics.truncatedFiles++;
        // A problem of the file like any other (an error row, a dropped count or a failure, as the
        // mode says), after its complete records.
        throw new ProfileFormatException(src.name(), reader.stopOffset(), "truncated: the file"
            + " ends without the trailer that closes a CPU profile (the profiled process was"
            + " probably killed); its " + reader.records() + " complete records before this"
            + " offset were read");
      default:
        throw new IllegalStateException("reader ended as " + reader.end());
    }
  }

  @Override
  public GenericInternalRow row() {
    return row;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
