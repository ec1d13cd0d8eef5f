package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.SplitLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What must be known about a gperftools CPU profile before its records can be split or given
 * mappings: the header, where the trailer is, and the executable mappings from the maps text at the
 * end of the file (see {@link MapsText} for how that text is read).
 *
 * <p>The trailer ({@code 0, 1, 0} slots) is found from the file's tail, so that planning reads only
 * the head and the tail of a large file: slot-aligned positions holding {@code 0, 1, 0} are looked
 * for scanning back from the end, at most {@code maxMapsText} bytes of text away, and the latest
 * one that passes two checks is taken: a record ends exactly there (slot {@code p + w} holds {@code
 * n} where {@code p = trailer - (2 + n) w}, or the trailer is the first record), and what follows
 * it starts as maps text does (a mapping or a {@code name=value} line) or is empty. Nothing is
 * assumed about what the maps text holds (a NUL byte in it is only a byte), and the scan reads each
 * byte of the window once. pprof, and the record reader here, find the trailer by walking the
 * records from the start; the split and whole-file readers check, when they reach the trailer, that
 * it is the one found here, and report a {@link ProfileFormatException} after the records when it
 * is not or when the maps text could not be read (over the limit), so module names are never lost
 * silently.
 *
 * @param trailerOffset the trailer's offset, or -1 when none was found from the tail (a truncated
 *     file, or maps text over the limit): such a file is never split
 * @param mappingsListed how many mappings the maps text listed (executable or not)
 * @param invalidUtf8 how many invalid UTF-8 sequences of the maps text were read as U+FFFD
 * @param mapsProblem why the maps text was not read (its mappings are empty), or null
 * @param maxMapsText the most maps text this layout was allowed to read, in bytes
 */
public record CpuProfileLayout(
    CpuProfileHeader header,
    long fileLength,
    long trailerOffset,
    MappingIndex mappings,
    int mappingsListed,
    long invalidUtf8,
    String mapsProblem,
    long maxMapsText)
    implements SplitLayout, Serializable {

  /**
   * The most maps text read by default; more (or no trailer within it) makes the file unsplittable.
   */
  public static final int MAX_MAPS_TEXT = 64 << 20;

  /**
   * The most trailer-like patterns checked in a file's tail; real files have one, more is a corrupt
   * or hostile file, which is then read whole (its reader finds the trailer by walking).
   */
  public static final int MAX_TRAILER_CANDIDATES = 64;

  /** Bytes read per step of the scan back from the end. */
  private static final int SCAN_CHUNK = 1 << 20;

  /** Bytes of the text after a trailer candidate looked at to see whether it is maps text. */
  private static final int TEXT_PROBE = 4096;

  /**
   * Maps text starts with a mapping ({@code start-end ...}, as pprof reads them) or a definition.
   */
  private static final Pattern MAPS_TEXT_START =
      Pattern.compile("\\s*(?:0x)?[0-9a-fA-F]+[-\\s].*|[\\x20-\\x7e&&[^=]]+=.*", Pattern.DOTALL);

  /** A layout whose maps text was read in full (or that has none), with the default limit. */
  public CpuProfileLayout(
      CpuProfileHeader header,
      long fileLength,
      long trailerOffset,
      MappingIndex mappings,
      int mappingsListed) {
    this(header, fileLength, trailerOffset, mappings, mappingsListed, 0, null, MAX_MAPS_TEXT);
  }

  public boolean hasTrailer() {
    return trailerOffset >= 0;
  }

  /**
   * Whether the boundary checker can be trusted on this file: it has an exact trailer and
   * executable mappings to check PCs against.
   */
  @Override
  public boolean splittable() {
    return hasTrailer() && !mappings.isEmpty();
  }

  /** The records end at the trailer: no split starts in the maps text. */
  @Override
  public long recordsEnd() {
    return trailerOffset;
  }

  /** Where the maps text starts (after the trailer), or -1 without a trailer. */
  public long mapsTextOffset() {
    return hasTrailer() ? trailerOffset + 3L * header.slotWidth() : -1;
  }

  /** Why this file is not {@link #splittable()}, for the planning log; null when it is. */
  @Override
  public String whyNotSplittable() {
    if (!hasTrailer()) {
      return mapsProblem != null ? mapsProblem : "it has no trailer (truncated?)";
    }
    if (mapsProblem != null) {
      return mapsProblem;
    }
    return mappings.isEmpty() ? "its maps text lists no executable mapping" : null;
  }

  /** Reads the header from the start of {@code src}. */
  public static CpuProfileHeader readHeader(ByteSource src, long length) throws IOException {
    byte[] head = new byte[CpuProfileHeader.DETECT_BYTES];
    int n;
    try (InputStream in = src.open(0)) {
      n = in.readNBytes(head, 0, head.length);
    }
    return CpuProfileHeader.parse(src.name(), head, n, length);
  }

  /** Reads the layout of {@code src}, with at most {@link #MAX_MAPS_TEXT} bytes of maps text. */
  public static CpuProfileLayout read(ByteSource src) throws IOException {
    return read(src, MAX_MAPS_TEXT);
  }

  /**
   * Reads the layout of {@code src}, with at most {@code maxMapsText} bytes of maps text. With a
   * known length it reads only the head and the tail; a source of unknown length (compressed) is
   * walked once, skipping call chains.
   */
  public static CpuProfileLayout read(ByteSource src, long maxMapsText) throws IOException {
    long length = src.length();
    CpuProfileHeader header = readHeader(src, length);
    if (length < 0) {
      return walk(src, header, maxMapsText);
    }
    TrailerSearch search = new TrailerSearch(src, header, length, maxMapsText);
    long trailer = search.find();
    if (trailer < 0) {
      return new CpuProfileLayout(
          header, length, -1, MappingIndex.EMPTY, 0, 0, search.why(), maxMapsText);
    }
    long textStart = trailer + 3L * header.slotWidth();
    try (InputStream in = src.open(textStart)) {
      return withMaps(
          header, length, trailer, MapsText.read(in, length - textStart, maxMapsText), maxMapsText);
    }
  }

  private static CpuProfileLayout walk(ByteSource src, CpuProfileHeader header, long maxMapsText)
      throws IOException {
    try (InputStream in = src.open(0)) {
      CpuProfileReader r = CpuProfileReader.wholeFile(src.name(), header, in, -1, false);
      try {
        while (r.next()) {
          // Skip records: only the trailer's position and what follows it matter here.
        }
      } catch (ProfileFormatException e) {
        // A corrupt record hides the trailer, as a cut does. The record reader reports it where it
        // is, after the good records before it: failing here would lose those.
        return new CpuProfileLayout(header, -1, -1, MappingIndex.EMPTY, 0);
      }
      if (r.end() != CpuProfileReader.End.TRAILER) {
        return new CpuProfileLayout(header, -1, -1, MappingIndex.EMPTY, 0);
      }
      return withMaps(
          header,
          -1,
          r.stopOffset(),
          MapsText.read(r.afterTrailer(), -1, maxMapsText),
          maxMapsText);
    }
  }

  private static CpuProfileLayout withMaps(
      CpuProfileHeader header, long length, long trailer, MapsText.Parsed text, long maxMapsText) {
    String problem = null;
    if (text.overLimit()) {
      problem =
          "its maps text (from byte "
              + (trailer + 3L * header.slotWidth())
              + ") is longer than the limit of "
              + maxMapsText
              + " bytes";
    }
    List<Mapping> all = text.mappings();
    return new CpuProfileLayout(
        header,
        length,
        trailer,
        new MappingIndex(all),
        text.listed(),
        text.invalidUtf8(),
        problem,
        maxMapsText);
  }

  /** The scan back from a file's end for its trailer (see the class comment). */
  private static final class TrailerSearch {
    private final ByteSource src;
    private final CpuProfileHeader header;
    private final long length;
    private final long maxMapsText;
    private final int w;
    private final boolean big;
    private int candidates;
    private String why;

    TrailerSearch(ByteSource src, CpuProfileHeader header, long length, long maxMapsText) {
      this.src = src;
      this.header = header;
      this.length = length;
      this.maxMapsText = maxMapsText;
      this.w = header.slotWidth();
      this.big = header.bigEndian();
    }

    /** Why no trailer was found, for the planning log. */
    String why() {
      return why;
    }

    long find() throws IOException {
      long recordsStart = header.recordsStart();
      long lowest = Math.max(recordsStart, length - 3L * w - maxMapsText);
      lowest = recordsStart + ceilDiv(lowest - recordsStart, w) * w;
      long p = recordsStart + Math.floorDiv(length - 3L * w - recordsStart, w) * w;
      byte[] buf = new byte[SCAN_CHUNK + 3 * w];
      while (p >= lowest) {
        long windowEnd = Math.min(length, p + 3L * w);
        long windowStart = Math.max(lowest, p - SCAN_CHUNK + w);
        windowStart = recordsStart + ceilDiv(windowStart - recordsStart, w) * w;
        int n = (int) (windowEnd - windowStart);
        readFully(windowStart, buf, n);
        for (; p >= windowStart; p -= w) {
          int at = (int) (p - windowStart);
          if (CpuProfileHeader.readSlot(buf, at + w, w, big) == 1
              && CpuProfileHeader.readSlot(buf, at, w, big) == 0
              && CpuProfileHeader.readSlot(buf, at + 2 * w, w, big) == 0) {
            if (++candidates > MAX_TRAILER_CANDIDATES) {
              why =
                  "more than "
                      + MAX_TRAILER_CANDIDATES
                      + " trailer-like patterns (0, 1, 0) in its last bytes, none followed by maps"
                      + " text and preceded by a record (corrupt?)";
              return -1;
            }
            if (recordEndsAt(p) && mapsTextFollows(p + 3L * w)) {
              return p;
            }
          }
        }
      }
      if (candidates > 0) {
        why =
            "none of the "
                + candidates
                + " trailer-like patterns (0, 1, 0) in its last "
                + (length - lowest)
                + " bytes is preceded by a record and followed by maps text (corrupt?)";
      } else if (lowest > recordsStart && endsWithNewline()) {
        why =
            "no trailer in its last "
                + (length - lowest)
                + " bytes, which end as maps text does: its maps text is longer than the limit of "
                + maxMapsText
                + " bytes (or the file is truncated)";
      } else {
        why = "it has no trailer (truncated?)";
      }
      return -1;
    }

    private boolean endsWithNewline() throws IOException {
      byte[] last = new byte[1];
      readFully(length - 1, last, 1);
      return last[0] == '\n';
    }

    /** Whether a record ends at {@code trailer} (or {@code trailer} is where records start). */
    private boolean recordEndsAt(long trailer) throws IOException {
      long recordsStart = header.recordsStart();
      if (trailer == recordsStart) {
        return true;
      }
      long from = Math.max(recordsStart, trailer - (2L + CpuProfileReader.MAX_DEPTH) * w);
      byte[] before = new byte[(int) (trailer - from)];
      readFully(from, before, before.length);
      // A record of n PCs ending at the trailer starts at trailer - (2 + n) w; its slot 1 is n.
      for (long n = 1; n <= CpuProfileReader.MAX_DEPTH; n++) {
        long start = trailer - (2 + n) * w;
        if (start < from) {
          break;
        }
        if (CpuProfileHeader.readSlot(before, (int) (start - from) + w, w, big) == n) {
          return true;
        }
      }
      return false;
    }

    /** Whether what starts at {@code textStart} is empty or starts as maps text does. */
    private boolean mapsTextFollows(long textStart) throws IOException {
      int n = (int) Math.min(TEXT_PROBE, length - textStart);
      if (n == 0) {
        return true;
      }
      byte[] probe = new byte[n];
      readFully(textStart, probe, n);
      int first = 0; // blank lines before the first line say nothing
      while (first < n && (probe[first] == '\n' || probe[first] == '\r' || probe[first] == ' ')) {
        first++;
      }
      if (first == n) {
        return true;
      }
      int eol = first;
      while (eol < n && probe[eol] != '\n') {
        eol++;
      }
      return MAPS_TEXT_START
          .matcher(new String(probe, first, eol - first, StandardCharsets.ISO_8859_1))
          .matches();
    }

    private void readFully(long from, byte[] into, int n) throws IOException {
      try (InputStream in = src.open(from)) {
        int got = in.readNBytes(into, 0, n);
        if (got != n) {
          throw new ProfileFormatException(
              src.name(),
              from + got,
              "file ended early while reading its last bytes (was it changed while being read?)");
        }
      }
    }

    private static long ceilDiv(long a, long b) {
      return -Math.floorDiv(-a, b);
    }
  }
}
