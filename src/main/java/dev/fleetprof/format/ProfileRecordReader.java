package dev.fleetprof.format;

import java.io.Closeable;
import java.io.IOException;

/**
 * A pull-style reader over the records of one profile file (or one split of it). It builds no object
 * per record: after {@link #next()} returns true, the accessors describe the current record until the
 * next call. Format-specific facts (period, histogram rate, DCPI header lines...) are exposed by the
 * implementing classes.
 */
public interface ProfileRecordReader extends Closeable {
  /** Advances to the next record; false at the end of the file or split. */
  boolean next() throws IOException;

  /** What the current record counts: {@code sample}, {@code histogram}, {@code arc}, ... */
  String kind();

  /** The current record's count, as an unsigned 64-bit bit pattern. */
  long count();

  /** Number of addresses in the current record's call chain (leaf first). */
  int depth();

  /** Address {@code i} (0 = leaf) of the current record, as an unsigned 64-bit bit pattern. */
  long pc(int i);

  /** Byte offset of the current record's first byte in the (uncompressed) file. */
  long recordOffset();
}
