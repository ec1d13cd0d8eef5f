package dev.fleetprof.output.pprof;

import dev.fleetprof.output.Frame;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code go tool pprof -raw} printed: the period, the samples (values and location ids) and the
 * locations (with their symbolized lines) and mappings they point to, resolved to frames of (mapping
 * file, address).
 */
final class PprofText {
  record RawSample(List<Long> values, List<Long> locationIds) {}

  record RawMapping(long start, long limit, long offset, String file, String flags) {}

  /**
   * One {@code Location.line} as pprof prints it ({@code name file:line s=start(system name)}); the
   * system name is the name when pprof printed none (they are equal).
   */
  record RawLine(String function, String file, long line, String systemName) {}

  record RawLocation(long address, long mappingId, List<RawLine> lines) {}

  // "   12: 0x1234 M=1 " then the first line, if any; further lines are indented continuations.
  private static final Pattern LOCATION =
      Pattern.compile("^\\s*(\\d+): (0x[0-9a-f]+) (?:M=(\\d+) )?(?:\\[F\\] )?(.*)$");
  private static final Pattern LINE =
      Pattern.compile("^(.*) (\\S*):(-?\\d+) s=-?\\d+(?:\\((.*)\\))?$");

  String periodType = "";
  long period;
  final List<RawSample> samples = new ArrayList<>();
  final Map<Long, RawLocation> locations = new HashMap<>();
  final Map<Long, RawMapping> mappings = new HashMap<>();

  static PprofText parse(String text) {
    PprofText out = new PprofText();
    String section = "";
    long location = 0;
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (t.startsWith("PeriodType:")) {
        out.periodType = t.substring("PeriodType:".length()).strip();
      } else if (t.startsWith("Period:")) {
        out.period = Long.parseLong(t.substring("Period:".length()).strip());
      } else if (t.equals("Samples:") || t.equals("Locations") || t.equals("Mappings")) {
        section = t;
      } else if (!t.isEmpty() && section.equals("Samples:") && t.matches("-?\\d.*:.*")) {
        int colon = t.indexOf(':');
        List<Long> values = new ArrayList<>();
        for (String v : t.substring(0, colon).strip().split("\\s+")) {
          values.add(Long.parseLong(v));
        }
        List<Long> ids = new ArrayList<>();
        for (String id : t.substring(colon + 1).strip().split("\\s+")) {
          if (!id.isEmpty()) {
            ids.add(Long.parseLong(id));
          }
        }
        out.samples.add(new RawSample(values, ids));
      } else if (!t.isEmpty() && section.equals("Locations")) {
        Matcher m = LOCATION.matcher(line);
        if (m.matches()) {
          location = Long.parseLong(m.group(1));
          out.locations.put(location, new RawLocation(hex(m.group(2)),
              m.group(3) == null ? 0 : Long.parseLong(m.group(3)), new ArrayList<>()));
        }
        String rest = m.matches() ? m.group(4).strip() : t;
        if (!rest.isEmpty()) {
          out.locations.get(location).lines().add(rawLine(rest));
        }
      } else if (!t.isEmpty() && section.equals("Mappings")) {
        String[] f = t.split("\\s+", 4); // "1: 0x0/0x1106/0x0 /path/libwork.so  [FN]"
        String[] r = f[1].split("/");
        out.mappings.put(Long.parseLong(f[0].replace(":", "")), new RawMapping(hex(r[0]),
            hex(r[1]), hex(r[2]), f.length > 2 ? f[2] : "", f.length > 3 ? f[3].strip() : ""));
      }
    }
    return out;
  }

  private static RawLine rawLine(String text) {
    Matcher m = LINE.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a pprof location line: " + text);
    }
    return new RawLine(m.group(1), m.group(2), Long.parseLong(m.group(3)),
        m.group(4) == null ? m.group(1) : m.group(4));
  }

  private static long hex(String s) {
    return Long.parseUnsignedLong(s.substring(2), 16);
  }

  /** A sample's frames as (mapping file, location address), leaf first; null file: no mapping. */
  List<Frame> frames(RawSample s) {
    List<Frame> out = new ArrayList<>();
    for (long id : s.locationIds()) {
      RawLocation l = locations.get(id);
      RawMapping m = mappings.get(l.mappingId());
      out.add(new Frame(m == null ? null : m.file(), l.address()));
    }
    return out;
  }

  /**
   * The leaf of a sample as (mapping file, offset in that file): the address translated through
   * its mapping, as for a profile with absolute addresses such as pprof's reading of a legacy file.
   */
  Frame leafFileOffset(RawSample s) {
    RawLocation l = locations.get(s.locationIds().get(0));
    RawMapping m = mappings.get(l.mappingId());
    return m == null ? new Frame(null, l.address())
        : new Frame(m.file(), l.address() - m.start() + m.offset());
  }
}
