package dev.fleetprof.format.gprof;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Streams the rows of one gmon file (GNU or BSD) with a known {@link GmonLayout}. One pass, one
 * fixed buffer, no object per row; histograms are never held in memory.
 *
 * <h2>Rows</h2>
 *
 * <ul>
 *   <li>{@code histogram}: one row per <em>non-zero</em> bin. {@code pc(0)} = bin start address,
 *       {@link #binEnd()} = bin end address (exclusive), {@code count} = the bin's u16 value;
 *       {@link #profRate()}, {@link #dimension()}, {@link #dimensionAbbrev()} describe the
 *       histogram, so the bin's time is {@code count / profRate} {@code dimension}s.
 *   <li>{@code arc}: {@code pcs = [self_pc, from_pc]} (callee first, like every call chain in
 *       fleetprof), {@code count} = traversals (u32 in GNU files, pointer-sized in BSD files).
 *   <li>{@code basic_block}: {@code pcs = [address]}, {@code count} = executions (pointer-sized).
 * </ul>
 *
 * <h2>Bin addresses</h2>
 *
 * Computed exactly as gprof's {@code hist.c} does, which works in 2-byte units ({@code UNIT}) with
 * a floating-point scale: {@code s = (double) ((high - low) / 2) / n} (integer division first,
 * unsigned), then bin {@code i} covers {@code [2 * (low / 2 + floor(s * i)), 2 * (low / 2 + floor(s
 * * (i + 1))))}. This is the range gprof credits to functions (proportionally to overlap). It
 * differs by up to a couple of bytes from the exact rational {@code low + i * (high - low) / n}:
 * glibc sizes the histogram so that a bin covers just under 4 bytes. Each histogram uses its own
 * scale (gprof uses the first histogram's and refuses files whose scales differ).
 *
 * <h2>recordOffset</h2>
 *
 * The byte offset of the row's own bytes: for a bin, its two bytes; for a GNU arc, the record's tag
 * byte; for a BSD arc, its first byte; for a basic block, its (address, count) pair. {@link
 * #containerOffset()} gives the offset of the enclosing histogram or basic-block record's tag byte
 * (0 for a BSD histogram, whose header starts the file).
 *
 * <h2>Errors</h2>
 *
 * {@link ProfileFormatException} naming the file and offset: a bad tag (offset of the tag byte); a
 * record cut short by the end of file (offset of the record's tag byte, or for BSD arcs of the
 * arc); a {@code hist_size}, BSD {@code ncnt} or basic-block {@code ncounts} asking for more bytes
 * than the file has left, whether absurd or the file was cut inside the bins (offset of that count
 * field; with a known length this is checked before any bin is read); a histogram whose {@code
 * low_pc} is above its {@code high_pc}; a histogram range that partly overlaps an earlier one
 * (gprof refuses these; identical ranges are fine and are meant to be summed); version-0
 * basic-block records (never written by any tool still in use; their layout depended on the host).
 */
public final class GmonReader implements ProfileRecordReader {
  public static final String KIND_HISTOGRAM = "histogram";
  public static final String KIND_ARC = "arc";
  public static final String KIND_BASIC_BLOCK = "basic_block";

  /** Distinct histogram ranges remembered for the overlap check; later ones are not checked. */
  static final int MAX_RANGES_CHECKED = 4096;

  /** Where {@link #next()} is in the file. */
  private enum State {
    /** Before the file header (GNU or BSD). */
    HEADER,
    /** GNU files: before a record's tag byte, or at the end of the file. */
    RECORDS,
    /** Inside a histogram's bins. */
    HISTOGRAM_BINS,
    /** Inside a GNU basic-block record's (address, count) pairs. */
    BASIC_BLOCKS,
    /** BSD files: in the arcs that follow the one histogram, up to the end of the file. */
    BSD_ARCS,
    /** The end of the file was reached, or the reader was closed. */
    DONE
  }

  private static final String SECONDS = "seconds";

  private final String file;
  private final GmonLayout layout;
  private final GmonInput in;
  private final long length;
  private final boolean walkOnly;
  private final int ptr;
  private final boolean gnu;

  private State state = State.HEADER;

  // current histogram
  private long histOffset;
  private long histLow;
  private long histHigh;
  private long histBins;
  private long histRate;
  private String histDimension = SECONDS;
  private char histAbbrev = 's';
  private long histLowUnits;
  private double histScale;
  private long histCountFieldOffset;
  private long binIndex;
  private final byte[] dimBytes = new byte[15];

  // current basic-block record
  private long bbLeft;
  private long bbOffset;
  private long bbCountFieldOffset;
  private long bbTotal;

  // current row
  private String kind;
  private long count;
  private int depth;
  private long pc0;
  private long pc1;
  private long rowOffset;
  private long rowBin;

  // statistics (used by detection)
  private long records;
  private boolean sawBasicBlocks;
  private long maxAddress;

  // overlap check: the distinct histogram ranges seen, low -> high; pairwise disjoint, so a new
  // range
  // can only overlap the one starting at or before its low end or the first one starting after it
  private final java.util.TreeMap<Long, Long> ranges =
      new java.util.TreeMap<>(Long::compareUnsigned);

  GmonReader(ByteSource source, GmonLayout layout, boolean walkOnly) throws IOException {
    this.file = source.name();
    this.layout = layout;
    this.walkOnly = walkOnly;
    this.ptr = layout.pointerSize();
    this.gnu = layout.flavor().isGnu();
    long len = source.length();
    this.length = len >= 0 ? len : -1;
    this.in = new GmonInput(source.open(0), 0, layout.byteOrder());
  }

  /** The layout this reader decodes with. */
  public GmonLayout layout() {
    return layout;
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      switch (state) {
        case HEADER:
          if (gnu) {
            readGnuHeader();
            state = State.RECORDS;
          } else {
            readBsdHeader();
            state = State.HISTOGRAM_BINS;
          }
          break;
        case RECORDS:
          {
            if (in.atEnd()) {
              state = State.DONE;
              return false;
            }
            long off = in.position();
            int tag = in.u8();
            records++;
            switch (tag) {
              case 0:
                readHistogramHeader(off);
                state = State.HISTOGRAM_BINS;
                break;
              case 1:
                if (readGnuArc(off)) {
                  return true;
                }
                break;
              case 2:
                readBasicBlockHeader(off);
                state = State.BASIC_BLOCKS;
                break;
              default:
                throw error(
                    off,
                    String.format(
                        "bad record tag %d (0x%02x): only 0 (histogram), 1 (call arc) and 2 (basic-block"
                            + " counts) exist; the file is corrupt or not a %s file",
                        tag, tag, describeLayout()));
            }
            break;
          }
        case HISTOGRAM_BINS:
          if (nextBin()) {
            return true;
          }
          state = gnu ? State.RECORDS : State.BSD_ARCS;
          break;
        case BASIC_BLOCKS:
          if (bbLeft == 0) {
            state = State.RECORDS;
            break;
          }
          if (nextBasicBlock()) {
            return true;
          }
          break;
        case BSD_ARCS:
          if (in.atEnd()) {
            state = State.DONE;
            return false;
          }
          if (readBsdArc()) {
            return true;
          }
          break;
        case DONE:
          return false;
        default:
          throw new AssertionError(state);
      }
    }
  }

  // ---------------------------------------------------------------- headers

  private void readGnuHeader() throws IOException {
    if (!in.ensure(20)) {
      throw error(in.position() + in.buffered(), "file too short for the 20-byte gmon header");
    }
    int g = in.u8();
    int m = in.u8();
    int o = in.u8();
    int n = in.u8();
    if (g != 'g' || m != 'm' || o != 'o' || n != 'n') {
      throw error(0, "no 'gmon' magic at the start of the file");
    }
    long version = in.u32();
    int expected = layout.version();
    if (version != expected) {
      throw error(
          4,
          "header version word reads "
              + version
              + " ("
              + describeLayout()
              + "), expected "
              + expected);
    }
    in.skip(12); // spare bytes: not always zero, not validated
  }

  private void readBsdHeader() throws IOException {
    int hdr = layout.headerSize();
    if (!in.ensure(hdr)) {
      throw error(
          in.position() + in.buffered(),
          "file too short for the "
              + hdr
              + "-byte "
              + (layout.flavor() == GmonFlavor.BSD_44 ? "4.4BSD" : "old BSD")
              + " header ("
              + describeLayout()
              + ")");
    }
    long low = in.word(ptr);
    long high = in.word(ptr);
    long ncntOffset = in.position();
    long ncnt = in.u32();
    long rate;
    if (layout.flavor() == GmonFlavor.BSD_44) {
      long version = in.u32();
      if (version != GmonFile.BSD44_VERSION) {
        throw error(
            ncntOffset + 4,
            String.format(
                "4.4BSD version word reads 0x%08x, expected 0x%08x (%s)",
                version, GmonFile.BSD44_VERSION, describeLayout()));
      }
      rate = in.u32();
      in.skip(12);
    } else {
      rate = layout.oldBsdProfRate();
    }
    if (Long.compareUnsigned(low, high) > 0) {
      throw error(
          0,
          String.format("histogram lpc 0x%x is above hpc 0x%x (%s)", low, high, describeLayout()));
    }
    if (ncnt < hdr) {
      throw error(
          ncntOffset,
          "ncnt "
              + ncnt
              + " is smaller than the "
              + hdr
              + "-byte header it includes ("
              + describeLayout()
              + ")");
    }
    if (((ncnt - hdr) & 1) != 0) {
      throw error(
          ncntOffset,
          "ncnt "
              + ncnt
              + " leaves an odd number of bytes for 2-byte bins ("
              + describeLayout()
              + ")");
    }
    if (length >= 0 && ncnt > length) {
      throw error(
          ncntOffset,
          "ncnt says the histogram ends at byte "
              + ncnt
              + " but the file has only "
              + length
              + " bytes ("
              + describeLayout()
              + ")");
    }
    startHistogram(0, low, high, (ncnt - hdr) / 2, rate, SECONDS, 's', ncntOffset);
  }

  private void readHistogramHeader(long off) throws IOException {
    int need = 2 * ptr + 24;
    if (!in.ensure(need)) {
      throw truncated(off, "histogram record header", 1 + need);
    }
    long low = in.word(ptr);
    long high = in.word(ptr);
    long countField = in.position();
    long bins = in.u32();
    long rate = in.u32();
    in.bytes(dimBytes, 15);
    char abbrev = (char) in.u8();
    if (Long.compareUnsigned(low, high) > 0) {
      throw error(
          off,
          String.format(
              "histogram low_pc 0x%x is above high_pc 0x%x (%s)", low, high, describeLayout()));
    }
    if (length >= 0 && bins * 2 > length - in.position()) {
      throw error(
          countField,
          "hist_size "
              + bins
              + " bins needs "
              + bins * 2
              + " bytes but only "
              + (length - in.position())
              + " are left in the file ("
              + describeLayout()
              + ")");
    }
    checkOverlap(off, low, high);
    int dimLen = 0;
    while (dimLen < 15 && dimBytes[dimLen] != 0) {
      dimLen++;
    }
    String dim = new String(dimBytes, 0, dimLen, StandardCharsets.ISO_8859_1);
    startHistogram(off, low, high, bins, rate, dim, abbrev, countField);
  }

  private void startHistogram(
      long off,
      long low,
      long high,
      long bins,
      long rate,
      String dim,
      char abbrev,
      long countField) {
    histOffset = off;
    histLow = low;
    histHigh = high;
    histBins = bins;
    histRate = rate;
    histDimension = dim;
    histAbbrev = abbrev;
    histCountFieldOffset = countField;
    histLowUnits = Long.divideUnsigned(low, 2);
    histScale =
        bins == 0 ? 0.0 : unsignedToDouble(Long.divideUnsigned(high - low, 2)) / (double) bins;
    binIndex = 0;
    noteAddress(low);
    noteAddress(high);
  }

  private void checkOverlap(long off, long low, long high) throws ProfileFormatException {
    if (low == high) {
      return;
    }
    java.util.Map.Entry<Long, Long> before = ranges.floorEntry(low);
    if (before != null && before.getKey() == low && before.getValue() == high) {
      return;
    }
    java.util.Map.Entry<Long, Long> after = ranges.higherEntry(low);
    java.util.Map.Entry<Long, Long> hit =
        before != null && Long.compareUnsigned(low, before.getValue()) < 0
            ? before
            : after != null && Long.compareUnsigned(after.getKey(), high) < 0 ? after : null;
    if (hit != null) {
      throw error(
          off,
          String.format(
              "histogram range [0x%x, 0x%x) partly overlaps an earlier histogram's [0x%x, 0x%x)"
                  + " (gprof refuses this; identical ranges are summed)",
              low, high, hit.getKey(), hit.getValue()));
    }
    if (ranges.size() < MAX_RANGES_CHECKED) {
      ranges.put(low, high);
    }
  }

  // ---------------------------------------------------------------- bins

  private boolean nextBin() throws IOException {
    if (walkOnly) {
      long need = (histBins - binIndex) * 2;
      long got = in.skip(need);
      if (got < need) {
        binIndex += got / 2;
        throw binsTruncated();
      }
      binIndex = histBins;
      return false;
    }
    while (binIndex < histBins) {
      long off = in.position();
      if (!in.ensure(2)) {
        throw binsTruncated();
      }
      int v = in.u16();
      long i = binIndex++;
      if (v != 0) {
        kind = KIND_HISTOGRAM;
        count = v;
        depth = 1;
        pc0 = binStart(i);
        rowBin = i;
        rowOffset = off;
        return true;
      }
    }
    return false;
  }

  private ProfileFormatException binsTruncated() throws IOException {
    return error(
        histCountFieldOffset,
        (gnu ? "hist_size " : "ncnt: ")
            + histBins
            + " bins, but the file ends after "
            + binIndex
            + " of them at offset "
            + (in.position() + in.buffered())
            + " ("
            + describeLayout()
            + ")");
  }

  private long binStart(long i) {
    return 2 * (histLowUnits + (long) (histScale * (double) i));
  }

  // ---------------------------------------------------------------- arcs

  private boolean readGnuArc(long off) throws IOException {
    int need = 2 * ptr + 4;
    if (!in.ensure(need)) {
      throw truncated(off, "call-arc record", 1 + need);
    }
    long from = in.word(ptr);
    long self = in.word(ptr);
    long c = in.u32();
    return arcRow(off, from, self, c);
  }

  private boolean readBsdArc() throws IOException {
    long off = in.position();
    int need = 3 * ptr;
    if (!in.ensure(need)) {
      throw error(
          off,
          "the last "
              + in.buffered()
              + " bytes are not a whole "
              + need
              + "-byte arc (frompc, selfpc, count); the file is truncated or not "
              + describeLayout());
    }
    records++;
    long from = in.word(ptr);
    long self = in.word(ptr);
    long c = in.word(ptr);
    return arcRow(off, from, self, c);
  }

  private boolean arcRow(long off, long from, long self, long c) {
    noteAddress(from);
    noteAddress(self);
    if (walkOnly) {
      return false;
    }
    kind = KIND_ARC;
    count = c;
    depth = 2;
    pc0 = self;
    pc1 = from;
    rowOffset = off;
    return true;
  }

  // ---------------------------------------------------------------- basic blocks

  private void readBasicBlockHeader(long off) throws IOException {
    if (layout.flavor() == GmonFlavor.GNU_V0) {
      throw error(
          off,
          "version-0 basic-block records are not supported (their layout depended on"
              + " the host that wrote them)");
    }
    sawBasicBlocks = true; // before any check: detection retries 64-bit files with the other width
    int w = layout.bbCountWidth();
    if (!in.ensure(w)) {
      throw truncated(off, "basic-block record header", 1 + w);
    }
    long countField = in.position();
    long n = in.word(w);
    long pair = 2L * ptr;
    if (length >= 0) {
      long left = length - in.position();
      if (Long.compareUnsigned(n, left / pair) > 0) {
        throw error(
            countField,
            "basic-block ncounts "
                + Long.toUnsignedString(n)
                + " needs "
                + (n >= 0 && n < Long.MAX_VALUE / pair ? n * pair + " bytes" : "more bytes")
                + " but only "
                + left
                + " are left in the file ("
                + describeLayout()
                + ", "
                + w
                + "-byte ncounts)");
      }
    }
    bbOffset = off;
    bbCountFieldOffset = countField;
    bbLeft = n;
    bbTotal = n;
  }

  private boolean nextBasicBlock() throws IOException {
    long off = in.position();
    int need = 2 * ptr;
    if (!in.ensure(need)) {
      throw error(
          bbCountFieldOffset,
          "basic-block ncounts "
              + Long.toUnsignedString(bbTotal)
              + ", but the file ends after "
              + Long.toUnsignedString(bbTotal - bbLeft)
              + " of them at offset "
              + (off + in.buffered())
              + " ("
              + describeLayout()
              + ")");
    }
    long addr = in.word(ptr);
    long c = in.word(ptr);
    bbLeft--;
    noteAddress(addr);
    if (walkOnly) {
      return false;
    }
    kind = KIND_BASIC_BLOCK;
    count = c;
    depth = 1;
    pc0 = addr;
    rowOffset = off;
    return true;
  }

  // ---------------------------------------------------------------- helpers

  private void noteAddress(long a) {
    if (Long.compareUnsigned(a, maxAddress) > 0) {
      maxAddress = a;
    }
  }

  private String describeLayout() {
    return (layout.flavor() == GmonFlavor.BSD_44
            ? "4.4BSD"
            : layout.flavor() == GmonFlavor.BSD_OLD ? "old BSD" : "GNU gmon")
        + " with pointer size "
        + ptr
        + ", "
        + (layout.byteOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? "little-endian" : "big-endian");
  }

  private ProfileFormatException truncated(long off, String what, int size) throws IOException {
    long end = in.position() + in.buffered();
    return error(
        off,
        "truncated "
            + what
            + ": it needs "
            + size
            + " bytes from offset "
            + off
            + " but the file ends at offset "
            + end
            + " ("
            + describeLayout()
            + ")");
  }

  private ProfileFormatException error(long off, String problem) {
    return new ProfileFormatException(file, off, problem);
  }

  static double unsignedToDouble(long v) {
    double d = (double) (v >>> 1) * 2.0;
    return v >= 0 ? (double) v : d + (double) (v & 1);
  }

  // ---------------------------------------------------------------- row accessors

  @Override
  public String kind() {
    return kind;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public int depth() {
    return depth;
  }

  @Override
  public long pc(int i) {
    if (i < 0 || i >= depth) {
      throw new IndexOutOfBoundsException("pc " + i + " of a " + depth + "-address row");
    }
    return i == 0 ? pc0 : pc1;
  }

  @Override
  public long recordOffset() {
    return rowOffset;
  }

  /**
   * Offset of the record that holds the current row: the histogram's or basic-block record's tag
   * byte (0 for a BSD histogram), or for an arc the same as {@link #recordOffset()}.
   */
  public long containerOffset() {
    if (KIND_HISTOGRAM.equals(kind)) {
      return histOffset;
    }
    if (KIND_BASIC_BLOCK.equals(kind)) {
      return bbOffset;
    }
    return rowOffset;
  }

  /** Histogram rows: end address (exclusive) of the bin; else 0. */
  public long binEnd() {
    return KIND_HISTOGRAM.equals(kind) ? binStart(rowBin + 1) : 0;
  }

  /** Histogram rows: index of the bin within its histogram; else -1. */
  public long binIndex() {
    return KIND_HISTOGRAM.equals(kind) ? rowBin : -1;
  }

  /**
   * Histogram rows: the histogram's sampling rate ({@code prof_rate}, Hz; for old-BSD files the
   * {@code gmon.oldBsdProfRate} option); else 0.
   */
  public long profRate() {
    return KIND_HISTOGRAM.equals(kind) ? histRate : 0;
  }

  /**
   * Histogram rows: the physical dimension of a bin count once divided by the rate ("seconds");
   * else null.
   */
  public String dimension() {
    return KIND_HISTOGRAM.equals(kind) ? histDimension : null;
  }

  /** Histogram rows: the dimension's one-character abbreviation ('s'); else 0. */
  public char dimensionAbbrev() {
    return KIND_HISTOGRAM.equals(kind) ? histAbbrev : 0;
  }

  /** Histogram rows: the histogram's low_pc; else 0. */
  public long histogramLowPc() {
    return KIND_HISTOGRAM.equals(kind) ? histLow : 0;
  }

  /** Histogram rows: the histogram's high_pc; else 0. */
  public long histogramHighPc() {
    return KIND_HISTOGRAM.equals(kind) ? histHigh : 0;
  }

  /** Histogram rows: the histogram's number of bins; else 0. */
  public long histogramBins() {
    return KIND_HISTOGRAM.equals(kind) ? histBins : 0;
  }

  /**
   * Histogram rows: the microseconds one bin count stands for ({@code 1e6 / prof_rate}), when the
   * histogram counts seconds and that is a whole number; else -1 (arcs and basic blocks count calls
   * and executions, not time).
   */
  @Override
  public long period() {
    long rate = profRate();
    return rate > 0 && 1_000_000 % rate == 0 && "seconds".equals(dimension())
        ? 1_000_000 / rate
        : -1;
  }

  /** {@code microseconds} where {@link #period()} is known; else null. */
  @Override
  public String periodUnit() {
    return period() > 0 ? "microseconds" : null;
  }

  // ---------------------------------------------------------------- detection statistics

  long recordsSeen() {
    return records;
  }

  boolean sawBasicBlocks() {
    return sawBasicBlocks;
  }

  long maxAddress() {
    return maxAddress;
  }

  long position() {
    return in.position();
  }

  @Override
  public void close() throws IOException {
    state = State.DONE;
    in.close();
  }
}
