package dev.fleetprof.format.gperftools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code go tool pprof -raw -symbolize=none} printed for a profile: samples as lists of location
 * ids with their counts, locations as addresses with a mapping id, and mappings. This is the
 * independent reference the decoder is checked against.
 */
final class PprofRaw {
  record Sample(long count, List<Long> locationIds) {}

  record PprofMapping(long start, long limit, long offset, String file) {}

  final long periodNanos;
  final List<Sample> samples = new ArrayList<>();
  final Map<Long, Long> addresses = new HashMap<>();
  final Map<Long, Long> locationMapping = new HashMap<>();
  final Map<Long, PprofMapping> mappings = new HashMap<>();

  private PprofRaw(long periodNanos) {
    this.periodNanos = periodNanos;
  }

  static PprofRaw parse(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    long period = -1;
    String section = "";
    PprofRaw out = null;
    for (String line : lines) {
      String t = line.strip();
      if (t.startsWith("Period:")) {
        period = Long.parseLong(t.substring("Period:".length()).strip());
        out = new PprofRaw(period);
        continue;
      }
      if (t.equals("Samples:") || t.equals("Locations") || t.equals("Mappings")) {
        section = t;
        continue;
      }
      if (t.isEmpty() || out == null) {
        continue;
      }
      switch (section) {
        case "Samples:": {
          int colon = t.indexOf(':');
          if (colon < 0) {
            continue; // the "samples/count cpu/nanoseconds" header line
          }
          String[] values = t.substring(0, colon).strip().split("\\s+");
          List<Long> ids = new ArrayList<>();
          for (String id : t.substring(colon + 1).strip().split("\\s+")) {
            if (!id.isEmpty()) {
              ids.add(Long.parseLong(id));
            }
          }
          out.samples.add(new Sample(Long.parseLong(values[0]), ids));
          break;
        }
        case "Locations": {
          // "1: 0x7fdf18ccf10d M=2"
          String[] f = t.split("\\s+");
          long id = Long.parseLong(f[0].replace(":", ""));
          out.addresses.put(id, Long.parseUnsignedLong(f[1].substring(2), 16));
          for (String x : f) {
            if (x.startsWith("M=")) {
              out.locationMapping.put(id, Long.parseLong(x.substring(2)));
            }
          }
          break;
        }
        case "Mappings": {
          // "2: 0x7fdf18ccf000/0x7fdf18cd0000/0x1000 /path/libwork.so  [flags]"
          String[] f = t.split("\\s+");
          long id = Long.parseLong(f[0].replace(":", ""));
          String[] r = f[1].split("/");
          out.mappings.put(id, new PprofMapping(hex(r[0]), hex(r[1]), hex(r[2]),
              f.length > 2 ? f[2] : ""));
          break;
        }
        default:
          break;
      }
    }
    if (out == null) {
      throw new IOException(file + ": no Period line");
    }
    return out;
  }

  private static long hex(String s) {
    return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
  }

  /** pprof's samples as address chains (leaf first), summed per chain. */
  Map<List<Long>, Long> chains() {
    Map<List<Long>, Long> out = new HashMap<>();
    for (Sample s : samples) {
      List<Long> chain = new ArrayList<>();
      for (long id : s.locationIds()) {
        chain.add(addresses.get(id));
      }
      out.merge(chain, s.count(), Long::sum);
    }
    return out;
  }

  long totalSamples() {
    return samples.stream().mapToLong(Sample::count).sum();
  }
}
