package dev.fleetprof.testing;

import dev.fleetprof.output.Frame;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code go tool pprof -raw} printed for a profile: the period, the samples (values and
 * location ids), the locations (address, mapping and, when symbolized, their lines) and the
 * mappings. The independent reference the decoders and writers are checked against, read from
 * pprof's output or from the dumps saved beside the samples ({@link SampleData#pprofRaw}).
 */
public final class PprofRaw {
  /** A sample: its values in the order of the sample types, its location ids leaf first. */
  public record Sample(List<Long> values, List<Long> locationIds) {
    /** The first value: the number of samples for a CPU profile. */
    public long count() {
      return values.get(0);
    }
  }

  public record Mapping(long start, long limit, long offset, String file, String flags) {}

  /**
   * One {@code Location.line} as pprof prints it ({@code name file:line s=start(system name)}); the
   * system name is the name when pprof printed none (they are equal).
   */
  public record Line(String function, String file, long line, String systemName) {}

  /** A location; {@code mappingId} 0 when pprof printed none. */
  public record Location(long address, long mappingId, List<Line> lines) {}

  // "   12: 0x1234 M=1 " then the first line, if any; further lines are indented continuations.
  private static final Pattern LOCATION =
      Pattern.compile("^\\s*(\\d+): (0x[0-9a-f]+)(?: M=(\\d+))?(?: \\[F\\])?\\s*(.*)$");
  private static final Pattern LINE =
      Pattern.compile("^(.*) (\\S*):(-?\\d+) s=-?\\d+(?:\\((.*)\\))?$");

  public final String periodType;
  public final long period;
  public final List<Sample> samples = new ArrayList<>();
  public final Map<Long, Location> locations = new HashMap<>();
  public final Map<Long, Mapping> mappings = new HashMap<>();

  private PprofRaw(String periodType, long period) {
    this.periodType = periodType;
    this.period = period;
  }

  /** A saved dump. */
  public static PprofRaw read(Path file) {
    try {
      return parse(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  public static PprofRaw parse(String text) {
    String periodType = "";
    Long period = null;
    String section = "";
    PprofRaw out = null;
    long location = 0;
    for (String line : text.split("\n")) {
      String t = line.strip();
      if (t.startsWith("PeriodType:")) {
        periodType = t.substring("PeriodType:".length()).strip();
      } else if (t.startsWith("Period:")) {
        period = Long.parseLong(t.substring("Period:".length()).strip());
      } else if (t.equals("Samples:") || t.equals("Locations") || t.equals("Mappings")) {
        section = t;
        if (out == null) {
          if (period == null) {
            throw new IllegalArgumentException("not go tool pprof -raw output: no Period line");
          }
          out = new PprofRaw(periodType, period);
        }
      } else if (t.isEmpty() || out == null) {
        continue;
      } else if (section.equals("Samples:") && t.matches("-?\\d.*:.*")) {
        // "  2    2000000: 1 2 3 " (the "samples/count cpu/nanoseconds" header has no colon)
        int colon = t.indexOf(':');
        out.samples.add(
            new Sample(numbers(t.substring(0, colon)), numbers(t.substring(colon + 1))));
      } else if (section.equals("Locations")) {
        Matcher m = LOCATION.matcher(line);
        if (m.matches()) {
          location = Long.parseLong(m.group(1));
          out.locations.put(
              location,
              new Location(
                  hex(m.group(2)),
                  m.group(3) == null ? 0 : Long.parseLong(m.group(3)),
                  new ArrayList<>()));
        }
        String rest = m.matches() ? m.group(4).strip() : t;
        if (!rest.isEmpty()) {
          out.locations.get(location).lines().add(line(rest));
        }
      } else if (section.equals("Mappings")) {
        String[] f = t.split("\\s+", 4); // "1: 0x0/0x1106/0x0 /path/libwork.so  [FN]"
        String[] r = f[1].split("/");
        out.mappings.put(
            Long.parseLong(f[0].replace(":", "")),
            new Mapping(
                hex(r[0]),
                hex(r[1]),
                hex(r[2]),
                f.length > 2 ? f[2] : "",
                f.length > 3 ? f[3].strip() : ""));
      }
    }
    if (out == null) {
      throw new IllegalArgumentException("not go tool pprof -raw output: no Samples section");
    }
    return out;
  }

  private static List<Long> numbers(String text) {
    List<Long> out = new ArrayList<>();
    for (String n : text.strip().split("\\s+")) {
      if (!n.isEmpty()) {
        out.add(Long.parseLong(n));
      }
    }
    return out;
  }

  private static Line line(String text) {
    Matcher m = LINE.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a pprof location line: " + text);
    }
    return new Line(
        m.group(1),
        m.group(2),
        Long.parseLong(m.group(3)),
        m.group(4) == null ? m.group(1) : m.group(4));
  }

  private static long hex(String s) {
    return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
  }

  /** The sum of every sample's first value: the number of samples for a CPU profile. */
  public long totalSamples() {
    return samples.stream().mapToLong(Sample::count).sum();
  }

  /** The samples as address chains (leaf first), their counts summed per chain. */
  public Map<List<Long>, Long> addressChains() {
    Map<List<Long>, Long> out = new HashMap<>();
    for (Sample s : samples) {
      List<Long> chain = new ArrayList<>();
      for (long id : s.locationIds()) {
        chain.add(locations.get(id).address());
      }
      out.merge(chain, s.count(), Long::sum);
    }
    return out;
  }

  /** A sample's frames as (mapping file, location address), leaf first; null file: no mapping. */
  public List<Frame> frames(Sample s) {
    List<Frame> out = new ArrayList<>();
    for (long id : s.locationIds()) {
      Location l = locations.get(id);
      Mapping m = mappings.get(l.mappingId());
      out.add(new Frame(m == null ? null : m.file(), l.address()));
    }
    return out;
  }

  /**
   * The leaf of a sample as (mapping file, offset in that file): the address translated through its
   * mapping, as for a profile with absolute addresses such as pprof's reading of a legacy file.
   */
  public Frame leafFileOffset(Sample s) {
    Location l = locations.get(s.locationIds().get(0));
    Mapping m = mappings.get(l.mappingId());
    return m == null
        ? new Frame(null, l.address())
        : new Frame(m.file(), l.address() - m.start() + m.offset());
  }
}
