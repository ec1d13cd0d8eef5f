package dev.fleetprof.spark.read;

import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.spark.columnar.FlatBatch;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import java.io.IOException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of one slice, from any format's decoder: the columns every format shares come from the
 * {@link ProfileRecordReader}, the call-chain columns are built in Spark's binary layout by {@link
 * UnsafeChains} from the file's mappings, and a format's own columns by its {@link FormatColumns}.
 */
final class ProfileRows implements RowSource {
  private final ProfileRecordReader reader;
  private final RequiredColumns cols;
  private final ReadMetrics metrics;
  private final FormatColumns formatColumns;
  private final UnsafeChains chains;
  private final boolean callersMinusOne;
  private final boolean uniform;
  private final String path;
  private final GenericInternalRow row;
  private long[] pcs = new long[64];
  private long lastBytes;
  private String kind;
  private UTF8String kindUtf8;
  private String periodUnit;
  private UTF8String periodUnitUtf8;

  ProfileRows(
      ProfileRecordReader reader,
      ProfileFormat format,
      String path,
      RequiredColumns cols,
      ReadMetrics metrics,
      boolean callersMinusOne) {
    this.reader = reader;
    this.cols = cols;
    this.metrics = metrics;
    this.path = path;
    this.formatColumns = FormatColumns.of(format, reader, cols);
    this.chains = cols.needsPcs() ? new UnsafeChains(reader.mappings(), callersMinusOne) : null;
    this.callersMinusOne = callersMinusOne;
    this.uniform =
        reader.uniformRecords() && (formatColumns == null || formatColumns.constantPerFile());
    this.row = new GenericInternalRow(cols.width());
    // What every row of the file shares is set once; fill() sets what changes per record.
    if (cols.path() >= 0) {
      row.update(cols.path(), UTF8String.fromString(path));
    }
    if (cols.format() >= 0) {
      row.update(cols.format(), UTF8String.fromString(format.name()));
    }
  }

  @Override
  public boolean next() throws IOException {
    if (!advance()) {
      return false;
    }
    metrics.records++;
    fill();
    return true;
  }

  /** The reader's next record; bytes and truncated files are counted as they are found. */
  private boolean advance() throws IOException {
    try {
      return reader.next();
    } catch (ProfileFormatException e) {
      if (reader.truncated()) {
        metrics.truncatedFiles++;
      }
      throw e;
    } finally {
      long bytes = reader.bytesRead();
      metrics.bytes += bytes - lastBytes;
      lastBytes = bytes;
    }
  }

  private void fill() throws ProfileFormatException {
    if (cols.kind() >= 0) {
      String k = reader.kind();
      if (!k.equals(kind)) {
        kind = k;
        kindUtf8 = UTF8String.fromString(k);
      }
      row.update(cols.kind(), kindUtf8);
    }
    if (cols.count() >= 0) {
      row.setLong(cols.count(), reader.count());
    }
    if (cols.needsPcs()) {
      fillChain();
    }
    if (cols.period() >= 0) {
      long period = reader.period();
      if (period >= 0) {
        row.setLong(cols.period(), period);
      } else {
        row.setNullAt(cols.period());
      }
    }
    if (cols.periodUnit() >= 0) {
      String unit = reader.periodUnit();
      if (unit != null && !unit.equals(periodUnit)) {
        periodUnit = unit;
        periodUnitUtf8 = UTF8String.fromString(unit);
      }
      row.update(cols.periodUnit(), unit == null ? null : periodUnitUtf8);
    }
    if (cols.recordOffset() >= 0) {
      row.setLong(cols.recordOffset(), reader.recordOffset());
    }
    if (formatColumns != null) {
      formatColumns.fill(row, reader);
    }
  }

  private void fillChain() throws ProfileFormatException {
    metrics.chainsDecoded++;
    int depth = reader.depth();
    long[] pcs = reader.chain(this.pcs);
    if (pcs.length > this.pcs.length) {
      this.pcs = pcs; // a grown array serves the next records
    }
    if (cols.pcs() >= 0) {
      row.update(cols.pcs(), chains.pcs(pcs, depth));
    }
    if (cols.mapping() >= 0) {
      row.update(cols.mapping(), depth > 0 ? chains.mapping(pcs[0]) : null);
    }
    if (cols.frames() >= 0) {
      UnsafeArrayData frames = chains.frames(pcs, depth);
      if (frames == null) {
        throw UnsafeChains.framesTooLarge(path, reader.recordOffset(), depth);
      }
      row.update(cols.frames(), frames);
      if (cols.stackId() >= 0) {
        row.setLong(cols.stackId(), chains.lastStackId());
      }
    } else if (cols.stackId() >= 0) {
      row.setLong(cols.stackId(), chains.stackId(pcs, depth));
    }
  }

  /**
   * Without call chains a record of a uniform file (same kind and period throughout) changes only
   * its count and offset: those go straight into the batch's vectors, and the other columns are
   * taken from the batch's first row once.
   */
  @Override
  public boolean fillBatch(FlatBatch batch) throws IOException {
    if (cols.needsPcs() || !uniform) {
      return RowSource.super.fillBatch(batch);
    }
    if (!next()) {
      return false;
    }
    int count = cols.count();
    int offset = cols.recordOffset();
    batch.useConstants(row, count, offset);
    while (true) {
      if (count >= 0) {
        batch.putLong(count, reader.count());
      }
      if (offset >= 0) {
        batch.putLong(offset, reader.recordOffset());
      }
      batch.endRow();
      if (batch.full() || !advance()) {
        break;
      }
      metrics.records++;
    }
    return true;
  }

  @Override
  public GenericInternalRow row() {
    return row;
  }

  @Override
  public MappingIndex mappings() {
    return reader.mappings();
  }

  @Override
  public boolean callersMinusOne() {
    return callersMinusOne;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
