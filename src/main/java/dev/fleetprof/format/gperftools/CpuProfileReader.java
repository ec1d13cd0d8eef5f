package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import java.io.InputStream;

/**
 * Streams the records ({@code count, n, pc[0..n-1]}, leaf first) of a gperftools CPU profile, from
 * a record boundary up to the trailer ({@code 0, 1, 0}), the end of the stream, or the end of a
 * split.
 *
 * <p>Split contract: a reader given {@code [start, end)} (start being a true record boundary) reads
 * every record whose first byte lies before {@code end}, finishing the last one past {@code end};
 * it then stops, and {@link #stopOffset()} is the first record boundary at or after {@code end}.
 *
 * <p>No length field is trusted: a call chain longer than {@link #MAX_DEPTH} is a format error, and
 * one longer than the bytes left is a truncated file, both found before anything is allocated for
 * it.
 */
public final class CpuProfileReader implements ProfileRecordReader {
  /**
   * Sanity cap on PCs per record. gperftools writes at most 254 (64 before 2.8.1); the cap only
   * stops a corrupt count from being believed, so it is far above any writer's limit.
   */
  public static final int MAX_DEPTH = 65536;

  /** Why a reader stopped. */
  public enum End {
    /** Still reading. */
    NONE,
    /** Reached the trailer: the file is complete. */
    TRAILER,
    /** Reached the end of its split (the next record starts at or after the split's end). */
    SPLIT_END,
    /** The stream ended before the trailer: the file was cut off (the profiled process died). */
    TRUNCATED
  }

  private final String file;
  private final CpuProfileHeader header;
  private final SlotStream in;
  private final long end;
  private final long fileLength;
  private final boolean decodePcs;
  private final int width;

  private long[] pcs = new long[256];
  private long count;
  private int depth;
  private long recordOffset;
  private End ended = End.NONE;
  private long stopOffset = -1;
  private long records;

  /**
   * @param in the file's bytes from {@code startOffset} on (the caller closes it)
   * @param startOffset a record boundary (or {@link CpuProfileHeader#recordsStart()})
   * @param end records starting at or after this offset belong to the next split; Long.MAX_VALUE
   *     for the whole file
   * @param fileLength the file's length, or -1 when unknown (compressed)
   * @param decodePcs false to skip over call chains (only {@link #count()} and {@link #depth()})
   * @param buffer a reusable read buffer, or null
   */
  public CpuProfileReader(
      String file,
      CpuProfileHeader header,
      InputStream in,
      long startOffset,
      long end,
      long fileLength,
      boolean decodePcs,
      byte[] buffer) {
    this.file = file;
    this.header = header;
    this.width = header.slotWidth();
    this.in = new SlotStream(in, startOffset, width, header.bigEndian(), buffer);
    this.end = end;
    this.fileLength = fileLength;
    this.decodePcs = decodePcs;
  }

  @Override
  public boolean next() throws IOException {
    if (ended != End.NONE) {
      return false;
    }
    long at = in.position();
    if (at >= end) {
      return stop(End.SPLIT_END, at);
    }
    if (!in.ensure(2 * width)) {
      return stop(End.TRUNCATED, at);
    }
    long c = in.slot();
    long n = in.slot();
    if (Long.compareUnsigned(n, MAX_DEPTH) > 0) {
      throw new ProfileFormatException(
          file,
          at + width,
          "record claims "
              + Long.toUnsignedString(n)
              + " PCs in its call chain, more than the limit of "
              + MAX_DEPTH
              + " (corrupt file?)");
    }
    int k = (int) n;
    long bytes = (long) k * width;
    if (fileLength >= 0 && at + 2L * width + bytes > fileLength) {
      return stop(End.TRUNCATED, at); // the record runs past the end of the file
    }
    if (c == 0 && k == 1) { // possibly the trailer, whatever we decode
      if (!in.ensure(width)) {
        return stop(End.TRUNCATED, at);
      }
      long pc = in.slot();
      if (pc == 0) {
        return stop(End.TRAILER, at);
      }
      pcs[0] = pc;
    } else if (decodePcs) {
      if (!in.ensure((int) bytes)) {
        return stop(End.TRUNCATED, at);
      }
      if (pcs.length < k) {
        pcs = new long[Math.max(k, pcs.length * 2)];
      }
      in.slots(pcs, k);
    } else if (!in.skip(bytes)) {
      return stop(End.TRUNCATED, at);
    }
    count = c;
    depth = k;
    recordOffset = at;
    records++;
    return true;
  }

  private boolean stop(End why, long at) {
    ended = why;
    stopOffset = at;
    return false;
  }

  @Override
  public String kind() {
    return "sample";
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public int depth() {
    return depth;
  }

  /**
   * Only valid when call chains are decoded (and always for {@code i = 0} of the trailer check).
   */
  @Override
  public long pc(int i) {
    return pcs[i];
  }

  /** The current record's call chain in {@code [0, depth())}; reused by the next record. */
  public long[] pcs() {
    return pcs;
  }

  @Override
  public long recordOffset() {
    return recordOffset;
  }

  public CpuProfileHeader header() {
    return header;
  }

  /** Why reading stopped ({@link End#NONE} while records remain). */
  public End end() {
    return ended;
  }

  /**
   * Where reading stopped: the trailer's offset, the first record boundary at or after the split's
   * end, or the offset of the incomplete record of a truncated file.
   */
  public long stopOffset() {
    return stopOffset;
  }

  /** Records returned so far. */
  public long records() {
    return records;
  }

  /** Bytes consumed from the stream so far, as an absolute offset. */
  public long position() {
    return in.position();
  }

  /** The bytes after the trailer (the maps text), as a stream over what is left of the input. */
  InputStream afterTrailer() {
    if (ended != End.TRAILER) {
      throw new IllegalStateException("not at the trailer");
    }
    return in.remaining();
  }

  @Override
  public void close() {
    // The caller owns the stream.
  }

  /**
   * Convenience: a reader over a whole file's records, positioned after the header. A stream that
   * ends inside the header is a {@link ProfileFormatException}.
   */
  public static CpuProfileReader wholeFile(
      String file, CpuProfileHeader header, InputStream in, long fileLength, boolean decodePcs)
      throws IOException {
    return wholeFile(file, header, in, fileLength, decodePcs, null);
  }

  /**
   * As {@link #wholeFile(String, CpuProfileHeader, InputStream, long, boolean)}, with a reusable
   * buffer.
   */
  public static CpuProfileReader wholeFile(
      String file,
      CpuProfileHeader header,
      InputStream in,
      long fileLength,
      boolean decodePcs,
      byte[] buffer)
      throws IOException {
    int skip = (int) header.recordsStart(); // at most (2 + MAX_HEADER_SLOTS) slots of 8 bytes
    int got = in.readNBytes(new byte[skip], 0, skip);
    if (got < skip) { // only a stream of unknown length gets here: parse() checks a known one
      throw new ProfileFormatException(
          file,
          got,
          "the file ends inside its header of "
              + header.headerSlots()
              + " header slots ("
              + skip
              + " bytes)");
    }
    return new CpuProfileReader(
        file, header, in, skip, Long.MAX_VALUE, fileLength, decodePcs, buffer);
  }
}
