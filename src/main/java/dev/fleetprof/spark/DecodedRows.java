package dev.fleetprof.spark;

import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Rows from a format whose decoder is a plain {@link ProfileRecordReader} (gprof, DCPI): the shared
 * columns come from the reader, the format-specific ones from the subclass.
 */
abstract class DecodedRows implements RowSource {
  private final ProfileRecordReader reader;
  private final UTF8String path;
  private final UTF8String format;
  protected final RequiredColumns cols;
  private final ProfilePartitionReader.ReadMetrics metrics;
  protected final GenericInternalRow row;
  private long[] pcs = new long[4];
  private String lastKind;
  private UTF8String lastKindUtf8;

  DecodedRows(ProfileRecordReader reader, String path, String format, RequiredColumns cols,
      ProfilePartitionReader.ReadMetrics metrics) {
    this.reader = reader;
    this.path = UTF8String.fromString(path);
    this.format = UTF8String.fromString(format);
    this.cols = cols;
    this.metrics = metrics;
    this.row = new GenericInternalRow(cols.width());
  }

  /** The module and offset of {@code pc}, as a {@code frames} element. */
  abstract InternalRow frame(long pc);

  /** The {@code mapping} of the current record, or null. */
  abstract InternalRow mapping(long leaf);

  /** Fills the format's own columns (period, histogram, dcpi, ...) for the current record. */
  abstract void fillDetails(ProfileRecordReader r);

  @Override
  public boolean next() throws IOException {
    if (!reader.next()) {
      return false;
    }
    metrics.records++;
    int depth = reader.depth();
    if (cols.path() >= 0) {
      row.update(cols.path(), path);
    }
    if (cols.format() >= 0) {
      row.update(cols.format(), format);
    }
    if (cols.kind() >= 0) {
      String k = reader.kind();
      if (!k.equals(lastKind)) {
        lastKind = k;
        lastKindUtf8 = UTF8String.fromString(k);
      }
      row.update(cols.kind(), lastKindUtf8);
    }
    if (cols.count() >= 0) {
      row.setLong(cols.count(), reader.count());
    }
    if (cols.needsPcs()) {
      metrics.chainsDecoded++;
      if (pcs.length < depth) {
        pcs = new long[depth];
      }
      for (int i = 0; i < depth; i++) {
        pcs[i] = reader.pc(i);
      }
      if (cols.pcs() >= 0) {
        row.update(cols.pcs(), UnsafeArrayData.fromPrimitiveArray(java.util.Arrays.copyOf(pcs,
            depth)));
      }
      if (cols.mapping() >= 0) {
        row.update(cols.mapping(), depth > 0 ? mapping(pcs[0]) : null);
      }
      if (cols.frames() >= 0) {
        Object[] frames = new Object[depth];
        for (int i = 0; i < depth; i++) {
          frames[i] = frame(pcs[i]);
        }
        row.update(cols.frames(), new GenericArrayData(frames));
      }
    }
    if (cols.recordOffset() >= 0) {
      row.setLong(cols.recordOffset(), reader.recordOffset());
    }
    fillDetails(reader);
    return true;
  }

  @Override
  public GenericInternalRow row() {
    return row;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
