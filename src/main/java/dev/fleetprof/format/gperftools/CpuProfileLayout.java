package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What must be known about a gperftools CPU profile before its records can be split or given
 * mappings: the header, where the trailer is, and the executable mappings from the maps text at the
 * end of the file. Reading it costs the file's first bytes and its tail (the maps text sits after
 * the trailer and contains no NUL byte, while the trailer's last slot is all NUL bytes, so the maps
 * text is exactly what follows the file's last NUL byte). A last line without its newline is
 * ignored: the file was cut inside it.
 *
 * @param trailerOffset the trailer's offset, or -1 when there is no trailer where the tail says it
 *     should be (a truncated file): such a file is never split
 * @param mappingsListed how many mappings the maps text listed (executable or not)
 */
public record CpuProfileLayout(
    CpuProfileHeader header,
    long fileLength,
    long trailerOffset,
    MappingIndex mappings,
    int mappingsListed)
    implements Serializable {

  /** The most maps text believed; more (or no trailer within it) makes the file unsplittable. */
  public static final int MAX_MAPS_TEXT = 64 << 20;

  public boolean hasTrailer() {
    return trailerOffset >= 0;
  }

  /**
   * Whether the boundary checker can be trusted on this file: it has an exact trailer and
   * executable mappings to check PCs against.
   */
  public boolean splittable() {
    return hasTrailer() && !mappings.isEmpty();
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

  /**
   * Reads the layout of {@code src}. With a known length it reads only the head and the tail; a
   * source of unknown length (compressed) is walked once, skipping call chains.
   */
  public static CpuProfileLayout read(ByteSource src) throws IOException {
    long length = src.length();
    CpuProfileHeader header = readHeader(src, length);
    if (length < 0) {
      return walk(src, header);
    }
    long recordsStart = header.recordsStart();
    int w = header.slotWidth();
    long window = Math.min(length - recordsStart, 64 * 1024);
    while (true) {
      long from = length - window;
      byte[] tail = new byte[(int) window];
      try (InputStream in = src.open(from)) {
        int got = in.readNBytes(tail, 0, tail.length);
        if (got != tail.length) {
          throw new ProfileFormatException(
              src.name(),
              from + got,
              "file ended early while reading its last " + window + " bytes");
        }
      }
      int lastNul = -1;
      for (int i = tail.length - 1; i >= 0; i--) {
        if (tail[i] == 0) {
          lastNul = i;
          break;
        }
      }
      if (lastNul >= 0) {
        long trailerEnd = from + lastNul + 1;
        long trailerOffset = trailerEnd - 3L * w;
        boolean exact =
            trailerOffset >= recordsStart
                && (trailerOffset % w) == 0
                && lastNul + 1 >= 3 * w
                && CpuProfileHeader.readSlot(tail, lastNul + 1 - 3 * w, w, header.bigEndian()) == 0
                && CpuProfileHeader.readSlot(tail, lastNul + 1 - 2 * w, w, header.bigEndian()) == 1
                && CpuProfileHeader.readSlot(tail, lastNul + 1 - w, w, header.bigEndian()) == 0;
        if (!exact) {
          return new CpuProfileLayout(header, length, -1, MappingIndex.EMPTY, 0);
        }
        String text =
            new String(tail, lastNul + 1, tail.length - lastNul - 1, StandardCharsets.ISO_8859_1);
        return withMaps(header, length, trailerOffset, text);
      }
      if (window >= length - recordsStart || window >= MAX_MAPS_TEXT) {
        return new CpuProfileLayout(header, length, -1, MappingIndex.EMPTY, 0);
      }
      window = Math.min(length - recordsStart, window * 4);
    }
  }

  private static CpuProfileLayout walk(ByteSource src, CpuProfileHeader header) throws IOException {
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
      byte[] text = r.restAfterTrailer(MAX_MAPS_TEXT);
      if (text == null) {
        return new CpuProfileLayout(header, -1, r.stopOffset(), MappingIndex.EMPTY, 0);
      }
      return withMaps(header, -1, r.stopOffset(), new String(text, StandardCharsets.ISO_8859_1));
    }
  }

  private static CpuProfileLayout withMaps(
      CpuProfileHeader header, long length, long trailer, String text) {
    // gperftools ends every line of the maps text with a newline: whatever follows the last one is
    // a
    // line the file was cut inside, whose limit or path may be cut short, so it is not believed.
    List<Mapping> all = ProcMapsParser.parse(text.substring(0, text.lastIndexOf('\n') + 1));
    return new CpuProfileLayout(header, length, trailer, new MappingIndex(all), all.size());
  }
}
