package dev.fleetprof.format.gprof;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsers for what gprof and nm printed at regeneration time (the tests' reference values). */
final class GprofText {
  private GprofText() {}

  // ------------------------------------------------------------------ gprof -b -p

  record FlatLine(String name, double cumulative, double self, Long calls) {}

  record Flat(double secondsPerSample, List<FlatLine> lines) {
    double lastCumulative() {
      return lines.isEmpty() ? 0 : lines.get(lines.size() - 1).cumulative();
    }

    /** Self seconds per name (names gprof prints more than once are summed). */
    Map<String, Double> selfByName() {
      Map<String, Double> m = new HashMap<>();
      for (FlatLine l : lines) {
        m.merge(l.name(), l.self(), Double::sum);
      }
      return m;
    }
  }

  private static final Pattern FLAT =
      Pattern.compile(
          "^\\s*(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(?:(\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+)?(\\S.*?)\\s*$");
  private static final Pattern EACH =
      Pattern.compile("Each sample counts as ([0-9.e+-]+) seconds\\.");

  static Flat flat(Path p) throws IOException {
    double each = Double.NaN;
    List<FlatLine> lines = new ArrayList<>();
    for (String s : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      Matcher e = EACH.matcher(s);
      if (e.find()) {
        each = Double.parseDouble(e.group(1));
        continue;
      }
      Matcher m = FLAT.matcher(s);
      if (m.matches()) {
        lines.add(
            new FlatLine(
                m.group(7),
                Double.parseDouble(m.group(2)),
                Double.parseDouble(m.group(3)),
                m.group(4) == null ? null : Long.parseLong(m.group(4))));
      }
    }
    if (Double.isNaN(each) || lines.isEmpty()) {
      throw new IOException(p + ": not a gprof flat profile");
    }
    return new Flat(each, lines);
  }

  // ------------------------------------------------------------------ gprof -b -q

  record CallGraph(double totalSeconds, Map<String, Long> arcs) {}

  private static final Pattern GRANULARITY =
      Pattern.compile(
          "granularity: each sample hit covers \\d+ byte\\(s\\) (?:for [0-9.]+% of ([0-9.]+) seconds|no time propagated)");
  private static final Pattern PRIMARY =
      Pattern.compile(
          "^\\[(\\d+)\\]\\s+\\d+\\.\\d+\\s+\\d+\\.\\d+\\s+\\d+\\.\\d+\\s+(?:\\d+(?:\\+\\d+)?\\s+)?(\\S.*?)\\s+\\[(\\d+)\\]\\s*$");
  private static final Pattern RELATIVE =
      Pattern.compile(
          "^\\s+(?:\\d+\\.\\d+\\s+\\d+\\.\\d+\\s+)?(\\d+)(?:/\\d+)?\\s+(\\S.*?)\\s+\\[(\\d+)\\]\\s*$");
  private static final Pattern CYCLE_SUFFIX = Pattern.compile("\\s+<cycle \\d+>$");

  /** Key of the arc map: caller, then callee, separated by this string. */
  static final String ARROW = " --> ";

  /**
   * The call graph's total time (granularity line) and, from each entry's child lines, the number
   * of calls along each (caller, callee) arc, by function name. "cycle as a whole" entries are
   * skipped (their child lines are the members, not arcs).
   */
  static CallGraph callGraph(Path p) throws IOException {
    double total = Double.NaN;
    Map<String, Long> arcs = new TreeMap<>();
    String primary = null;
    for (String s : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      Matcher g = GRANULARITY.matcher(s);
      if (g.find()) {
        total = g.group(1) == null ? 0 : Double.parseDouble(g.group(1));
        continue;
      }
      if (s.startsWith("-----")) {
        primary = null;
        continue;
      }
      if (s.startsWith("Index by function name")) {
        break;
      }
      Matcher pm = PRIMARY.matcher(s);
      if (pm.matches()) {
        String name = stripCycle(pm.group(2));
        primary = name.startsWith("<cycle ") && name.endsWith(" as a whole>") ? "<skip>" : name;
        continue;
      }
      if (primary == null || primary.equals("<skip>")) {
        continue; // a parent line, or an entry we skip
      }
      Matcher rm = RELATIVE.matcher(s);
      if (rm.matches()) {
        arcs.merge(
            primary + ARROW + stripCycle(rm.group(2)), Long.parseLong(rm.group(1)), Long::sum);
      }
    }
    if (Double.isNaN(total)) {
      throw new IOException(p + ": no granularity line");
    }
    return new CallGraph(total, arcs);
  }

  private static String stripCycle(String name) {
    return CYCLE_SUFFIX.matcher(name).replaceFirst("");
  }

  // ------------------------------------------------------------------ gprof --debug=64

  record Bin(long low, long high, long count) {}

  private static final Pattern ASSIGN_BIN =
      Pattern.compile(
          "^\\[assign_samples\\] bin_low_pc=0x([0-9a-f]+), bin_high_pc=0x([0-9a-f]+), bin_count=(\\d+)$");

  /** The non-zero bins gprof assigned, with the bin ranges exactly as gprof computed them. */
  static List<Bin> assignedBins(Path p) throws IOException {
    List<Bin> bins = new ArrayList<>();
    for (String s : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      Matcher m = ASSIGN_BIN.matcher(s);
      if (m.matches()) {
        bins.add(
            new Bin(
                Long.parseUnsignedLong(m.group(1), 16),
                Long.parseUnsignedLong(m.group(2), 16),
                Long.parseLong(m.group(3))));
      }
    }
    return bins;
  }

  // ------------------------------------------------------------------ nm -n -C

  /** Function symbols of a binary (nm types T, t, W), by address; one name per address. */
  static final class Symbols {
    final long[] addrs;
    final String[] names;

    Symbols(long[] addrs, String[] names) {
      this.addrs = addrs;
      this.names = names;
    }

    /** Name of the function containing {@code pc}: the symbol with the greatest address <= pc. */
    String lookup(long pc) {
      int lo = 0;
      int hi = addrs.length - 1;
      int found = -1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (Long.compareUnsigned(addrs[mid], pc) <= 0) {
          found = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      return found < 0 ? null : names[found];
    }
  }

  private static final Pattern NM = Pattern.compile("^([0-9a-f]+) ([TtWw]) (.+)$");

  static Symbols symbols(Path p) throws IOException {
    TreeMap<Long, String> byAddr = new TreeMap<>(Long::compareUnsigned);
    for (String s : Files.readAllLines(p, StandardCharsets.UTF_8)) {
      Matcher m = NM.matcher(s);
      if (m.matches()) {
        long a = Long.parseUnsignedLong(m.group(1), 16);
        String name = m.group(3);
        byAddr.putIfAbsent(a, name); // aliases at one address: keep the first
      }
    }
    long[] addrs = new long[byAddr.size()];
    String[] names = new String[byAddr.size()];
    int i = 0;
    for (Map.Entry<Long, String> e : byAddr.entrySet()) {
      addrs[i] = e.getKey();
      names[i] = e.getValue();
      i++;
    }
    return new Symbols(addrs, names);
  }
}
