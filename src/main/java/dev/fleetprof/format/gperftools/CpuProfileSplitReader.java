package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import java.io.InputStream;

/**
 * The records of a whole CPU profile or of one split of it, with the checks that make splitting
 * safe. A split that starts inside the file finds its first record with the boundary checker; a
 * split, having read past its end, checks that the checker finds the same boundary where the next
 * split starts, so that each record is read by exactly one split or reading fails naming the file
 * and offset. A whole file ends at its trailer; one that ends before it is reported as truncated,
 * after its complete records. Likewise, a file whose maps text could not be read (longer than the
 * limit, or not where the records end) is reported after its records, which are read with no module
 * in their frames: module names are never lost silently.
 */
public final class CpuProfileSplitReader implements ProfileRecordReader {
  /** The kind of every record: a sample of CPU time. */
  public static final String KIND = "sample";

  private static final String MICROSECONDS = "microseconds";

  private final ByteSource src;
  private final CpuProfileLayout splitLayout;
  private final long splitEnd;
  private final CpuProfileBoundaryChecker checker;
  private final long startBoundary;
  private final boolean resynced;
  private final MappingIndex mappings;

  /** The layout the mappings came from (split or whole file), or null when none were read. */
  private final CpuProfileLayout mapsLayout;

  private final InputStream in;
  private final CpuProfileReader reader;
  private boolean finished;
  private boolean truncated;

  private CpuProfileSplitReader(
      ByteSource src,
      CpuProfileHeader header,
      CpuProfileLayout layout,
      long start,
      long end,
      DecodeOptions options,
      long maxMapsText)
      throws IOException {
    this.src = src;
    this.splitLayout = layout;
    this.splitEnd = end;
    if (layout != null) {
      this.mappings = layout.mappings();
      this.mapsLayout = layout;
      this.checker = new CpuProfileBoundaryChecker(src, layout);
      this.resynced = start != 0;
      this.startBoundary =
          start == 0 ? header.recordsStart() : checker.firstBoundaryAtOrAfter(start);
    } else {
      this.mapsLayout = options.needsMappings() ? CpuProfileLayout.read(src, maxMapsText) : null;
      this.mappings = mapsLayout != null ? mapsLayout.mappings() : MappingIndex.EMPTY;
      this.checker = null;
      this.resynced = false;
      this.startBoundary = header.recordsStart();
    }
    // A split opens where its first record starts; a whole file (compressed ones always are read
    // whole) is read from its start, past the header.
    this.in = src.open(layout == null ? 0 : startBoundary);
    try {
      this.reader =
          layout == null
              ? CpuProfileReader.wholeFile(
                  src.name(), header, in, src.length(), options.needsChains(), options.buffer())
              : new CpuProfileReader(
                  src.name(),
                  header,
                  in,
                  startBoundary,
                  end,
                  src.length(),
                  options.needsChains(),
                  options.buffer());
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** A reader over a whole file, whose header was already parsed. */
  public static CpuProfileSplitReader wholeFile(
      ByteSource src, CpuProfileHeader header, DecodeOptions options) throws IOException {
    return wholeFile(src, header, options, CpuProfileLayout.MAX_MAPS_TEXT);
  }

  /**
   * As {@link #wholeFile(ByteSource, CpuProfileHeader, DecodeOptions)}, reading at most {@code
   * maxMapsText} bytes of maps text.
   */
  public static CpuProfileSplitReader wholeFile(
      ByteSource src, CpuProfileHeader header, DecodeOptions options, long maxMapsText)
      throws IOException {
    return new CpuProfileSplitReader(src, header, null, 0, Long.MAX_VALUE, options, maxMapsText);
  }

  /**
   * A reader over the records that start in {@code [start, end)} of a file whose layout was read
   * when the splits were planned ({@link CpuProfileLayout#read}); the mappings come from the
   * layout.
   */
  public static CpuProfileSplitReader split(
      ByteSource src, CpuProfileLayout layout, long start, long end, DecodeOptions options)
      throws IOException {
    return new CpuProfileSplitReader(
        src, layout.header(), layout, start, end, options, layout.maxMapsText());
  }

  /**
   * How many invalid UTF-8 sequences of the file's maps text were read as U+FFFD (in module names);
   * 0 when no maps text was read.
   */
  public long mapsTextInvalidUtf8() {
    return mapsLayout == null ? 0 : mapsLayout.invalidUtf8();
  }

  @Override
  public long replacedCharacters() {
    return mapsTextInvalidUtf8();
  }

  /** Whether this split started inside the file and found its first record with the checker. */
  @Override
  public boolean resynced() {
    return resynced;
  }

  @Override
  public boolean next() throws IOException {
    if (finished) {
      return false;
    }
    if (reader.next()) {
      return true;
    }
    finished = true;
    checkEnd();
    return false;
  }

  /** Checks how reading ended: the split hand-off, the trailer, or a truncated file. */
  private void checkEnd() throws IOException {
    switch (reader.end()) {
      case SPLIT_END:
        {
          long expected = checker.firstBoundaryAtOrAfter(splitEnd);
          if (expected != reader.stopOffset()) {
            throw new ProfileFormatException(
                src.name(),
                splitEnd,
                "split boundary check failed:"
                    + " reading sequentially reached the record boundary at byte "
                    + reader.stopOffset()
                    + ", but the boundary checker, run where the next split"
                    + " starts, finds "
                    + expected
                    + "; the file cannot be split safely (read it with"
                    + " a larger maxPartitionBytes, and please report the file)");
          }
          break;
        }
      case TRAILER:
        if (splitLayout != null && reader.stopOffset() != splitLayout.trailerOffset()) {
          throw new ProfileFormatException(
              src.name(),
              reader.stopOffset(),
              "found a trailer"
                  + " where planning (from the file's tail) placed it at byte "
                  + splitLayout.trailerOffset()
                  + "; was the file changed while being read?");
        }
        checkMaps(reader.stopOffset());
        break;
      case TRUNCATED:
        if (splitLayout != null) {
          throw new ProfileFormatException(
              src.name(),
              reader.stopOffset(),
              "the file ended"
                  + " before the trailer that planning found at byte "
                  + splitLayout.trailerOffset()
                  + "; was the file changed while being read?");
        }
        truncated = true;
        throw new ProfileFormatException(
            src.name(),
            reader.stopOffset(),
            "truncated: the file"
                + " ends without the trailer that closes a CPU profile (the profiled process was"
                + " probably killed); its "
                + reader.records()
                + " complete records before this"
                + " offset were read");
      default:
        throw new IllegalStateException("reader ended as " + reader.end());
    }
  }

  /**
   * Having reached the trailer at {@code trailer} (where pprof, walking the records, finds it too),
   * reports the maps text that could not be read: frames of the records just read have no module
   * (or modules from the wrong text), which must not pass silently.
   */
  private void checkMaps(long trailer) throws ProfileFormatException {
    if (mapsLayout == null) {
      return; // no module was asked for
    }
    long textStart = trailer + 3L * mapsLayout.header().slotWidth();
    String why;
    if (mapsLayout.trailerOffset() == trailer) {
      if (mapsLayout.mapsProblem() == null) {
        return;
      }
      why = mapsLayout.mapsProblem();
    } else if (mapsLayout.fileLength() >= 0
        && mapsLayout.fileLength() - textStart > mapsLayout.maxMapsText()) {
      why =
          "its maps text (from byte "
              + textStart
              + ") is "
              + (mapsLayout.fileLength() - textStart)
              + " bytes, more than the limit of "
              + mapsLayout.maxMapsText()
              + " bytes";
    } else if (!mapsLayout.hasTrailer()) {
      why =
          "its maps text (from byte "
              + textStart
              + ") was not found from the file's end: "
              + mapsLayout.whyNotSplittable();
    } else {
      throw new ProfileFormatException(
          src.name(),
          textStart,
          "module names may be wrong: the records end at the trailer at byte "
              + trailer
              + ", but the maps text was read after a trailer-like pattern at byte "
              + mapsLayout.trailerOffset()
              + " (corrupt file?)");
    }
    throw new ProfileFormatException(
        src.name(),
        textStart,
        "module names are missing: "
            + why
            + "; the "
            + reader.records()
            + " records were read with no module in their frames");
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public long count() {
    return reader.count();
  }

  @Override
  public int depth() {
    return reader.depth();
  }

  @Override
  public long pc(int i) {
    return reader.pc(i);
  }

  /** The current chain's pcs (leaf first) in a reused array, valid for {@link #depth()} entries. */
  public long[] pcs() {
    return reader.pcs();
  }

  /** The decoder's own array: no copy. */
  @Override
  public long[] chain(long[] into) {
    return reader.pcs();
  }

  @Override
  public long recordOffset() {
    return reader.recordOffset();
  }

  @Override
  public long period() {
    return reader.header().periodMicros();
  }

  @Override
  public String periodUnit() {
    return MICROSECONDS;
  }

  @Override
  public MappingIndex mappings() {
    return mappings;
  }

  @Override
  public boolean uniformRecords() {
    return true;
  }

  @Override
  public long bytesRead() {
    return reader.position() - startBoundary;
  }

  @Override
  public boolean truncated() {
    return truncated;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
