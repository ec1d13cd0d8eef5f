package dev.fleetprof.format;

import java.io.Closeable;
import java.io.IOException;

/**
 * A pull-style reader over the records of one profile file (or one split of it), as every format's
 * decoder exposes it (opened through {@link ProfileFormat#open}). It builds no object per record:
 * after {@link #next()} returns true, the accessors describe the current record until the next
 * call. What every format has (kind, count, call chain, period, the file's mappings) is here; facts
 * only one format has (histogram rate, DCPI header lines...) are exposed by the implementing
 * classes.
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

  /**
   * The current call chain, leaf first, in its first {@link #depth()} entries: {@code into} (or a
   * larger array when it is too small) filled by {@link #pc}, or the reader's own array where it
   * has one. Valid until the next record.
   */
  default long[] chain(long[] into) {
    int depth = depth();
    long[] out = into.length >= depth ? into : new long[Math.max(depth, 2 * into.length)];
    for (int i = 0; i < depth; i++) {
      out[i] = pc(i);
    }
    return out;
  }

  /** Byte offset of the current record's first byte in the (uncompressed) file. */
  long recordOffset();

  /** How many {@link #periodUnit() units} one count of the current record stands for, or -1. */
  default long period() {
    return -1;
  }

  /** The unit of {@link #period()} ({@code microseconds}, a DCPI event name, ...), or null. */
  default String periodUnit() {
    return null;
  }

  /**
   * The file's mappings, to place each pc in a module ({@code frames}, {@code mapping}); empty when
   * the format's addresses are already module-relative or it lists none. Valid after opening.
   */
  default MappingIndex mappings() {
    return MappingIndex.EMPTY;
  }

  /**
   * Whether every record has the same kind and period (and only count, chain and offset change), so
   * that a caller may set those once per file.
   */
  default boolean uniformRecords() {
    return false;
  }

  /** Bytes of the (uncompressed) file consumed so far, for progress metrics; 0 when not tracked. */
  default long bytesRead() {
    return 0;
  }

  /**
   * Whether reading stopped because the file ends before its end marker (a profiled process that
   * was killed): the problem {@link #next()} then throws is that, after the complete records.
   */
  /**
   * How many invalid UTF-8 sequences of the file's own text (a CPU profile's maps text: module
   * paths) were read as U+FFFD, known once the reader is open; 0 for formats without such text.
   */
  default long replacedCharacters() {
    return 0;
  }

  default boolean truncated() {
    return false;
  }

  /**
   * Whether this reader (over a slice of a file, {@link ProfileFormat#openSplit}) started inside
   * the file and found its first record with the format's boundary checker.
   */
  default boolean resynced() {
    return false;
  }
}
