package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.Mapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the text list of mapped objects at the end of a gperftools CPU profile.
 *
 * <p>Accepted, as pprof accepts them: {@code /proc/self/maps} lines ({@code start-end perms offset
 * dev inode [path]}, including gperftools 2.15.90-2.16's lines with no space between inode and path
 * and 2.17+'s trailing space after an empty path), brief lines {@code start-end: path [...@offset]},
 * and {@code name=value} lines whose value replaces {@code $name} in later lines (the old
 * {@code build=} convention). Lines that match nothing are ignored. Unlike pprof, the path keeps
 * everything after the inode (paths may contain spaces, and " (deleted)" is part of what the
 * kernel said).
 */
public final class ProcMapsParser {
  private static final Pattern PROC_MAPS = Pattern.compile(
      "([0-9a-fA-F]+)-([0-9a-fA-F]+)\\s+([-rwxpsS]+)\\s+([0-9a-fA-F]+)\\s+"
          + "([0-9a-fA-F]+):([0-9a-fA-F]+)\\s+([0-9]+)\\s*(.*)");
  private static final Pattern BRIEF_MAPS = Pattern.compile(
      "([0-9a-fA-F]+)-([0-9a-fA-F]+):\\s*(\\S+)(?:\\s.*@\\s*([0-9a-fA-F]+))?.*");

  private ProcMapsParser() {}

  /** All mappings listed in {@code text}, executable or not, in file order. */
  public static List<Mapping> parse(String text) {
    List<Mapping> out = new ArrayList<>();
    Map<String, String> vars = new LinkedHashMap<>();
    int pos = 0;
    int n = text.length();
    while (pos < n) {
      int eol = text.indexOf('\n', pos);
      if (eol < 0) {
        eol = n;
      }
      String line = text.substring(pos, eol).strip();
      pos = eol + 1;
      if (line.isEmpty()) {
        continue;
      }
      for (Map.Entry<String, String> v : vars.entrySet()) {
        line = line.replace(v.getKey(), v.getValue());
      }
      Mapping m = parseLine(line);
      if (m != null) {
        out.add(m);
      } else {
        int eq = line.indexOf('=');
        if (eq > 0) {
          vars.put("$" + line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
      }
    }
    return out;
  }

  static Mapping parseLine(String line) {
    Matcher m = PROC_MAPS.matcher(line);
    if (m.matches()) {
      Long start = hex(m.group(1));
      Long limit = hex(m.group(2));
      Long offset = hex(m.group(4));
      if (start == null || limit == null || offset == null) {
        return null;
      }
      return new Mapping(start, limit, offset, m.group(8).strip(), m.group(3).indexOf('x') >= 0);
    }
    m = BRIEF_MAPS.matcher(line);
    if (m.matches()) {
      Long start = hex(m.group(1));
      Long limit = hex(m.group(2));
      Long offset = m.group(4) == null ? Long.valueOf(0) : hex(m.group(4));
      if (start == null || limit == null || offset == null) {
        return null;
      }
      // Brief lines carry no permissions; pprof treats them as code.
      return new Mapping(start, limit, offset, m.group(3), true);
    }
    return null;
  }

  private static Long hex(String s) {
    if (s.length() > 16) {
      return null;
    }
    return Long.parseUnsignedLong(s, 16);
  }
}
