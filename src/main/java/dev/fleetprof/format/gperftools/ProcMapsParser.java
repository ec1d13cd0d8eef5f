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
 * and 2.17+'s trailing space after an empty path), brief lines {@code start-end: path
 * [...@offset]}, and {@code name=value} lines whose value replaces {@code $name} in later lines
 * (the old {@code build=} convention). Lines that match nothing are ignored. Unlike pprof, the path
 * keeps everything after the inode (paths may contain spaces, and " (deleted)" is part of what the
 * kernel said).
 *
 * <p>The text comes from the file, so substitution is bounded: it is done in one pass per line, as
 * pprof's {@code strings.Replacer} does (a value is never expanded again, so definitions cannot
 * nest into an exponential blow-up); at most {@link #MAX_VARIABLES} names are honoured, names
 * containing {@code $} are not (which keeps matching linear in the line); and once substitution
 * would add more than {@code 4 x text length + 1 Mi} characters in all, that line and later ones
 * are parsed as written.
 */
public final class ProcMapsParser {
  /**
   * Variables honoured; real maps text defines one ({@code build=}), later definitions are ignored.
   */
  public static final int MAX_VARIABLES = 64;

  private static final Pattern PROC_MAPS =
      Pattern.compile(
          "([0-9a-fA-F]+)-([0-9a-fA-F]+)\\s+([-rwxpsS]+)\\s+([0-9a-fA-F]+)\\s+"
              + "([0-9a-fA-F]+):([0-9a-fA-F]+)\\s+([0-9]+)\\s*(.*)");
  private static final Pattern BRIEF_MAPS =
      Pattern.compile("([0-9a-fA-F]+)-([0-9a-fA-F]+):\\s*(\\S+)(?:\\s.*@\\s*([0-9a-fA-F]+))?.*");

  private final List<Mapping> out = new ArrayList<>();
  private final Map<String, String> vars = new LinkedHashMap<>();
  private final boolean executableOnly;
  private long budget; // characters substitution may still add
  private int listed;

  /**
   * A parser fed one line at a time, for maps text read as a stream.
   *
   * @param textLength the length of the whole text (in bytes or characters), which sets how much
   *     substitution may add
   * @param executableOnly keep only executable mappings (the others are counted): a text of a
   *     million data mappings then costs no memory
   */
  public ProcMapsParser(long textLength, boolean executableOnly) {
    this.budget = 4L * textLength + (1 << 20);
    this.executableOnly = executableOnly;
  }

  /** All mappings listed in {@code text}, executable or not, in file order. */
  public static List<Mapping> parse(String text) {
    ProcMapsParser p = new ProcMapsParser(text.length(), false);
    int pos = 0;
    int n = text.length();
    while (pos < n) {
      int eol = text.indexOf('\n', pos);
      if (eol < 0) {
        eol = n;
      }
      p.line(text.substring(pos, eol));
      pos = eol + 1;
    }
    return p.mappings();
  }

  /**
   * Parses one line (without its newline). A line that is neither a mapping nor a definition is
   * skipped, as pprof skips it ({@code parseProcMapsFromScanner} ignores lines its patterns do not
   * recognise and keeps going).
   */
  public void line(String raw) {
    String line = raw.strip();
    if (line.isEmpty()) {
      return;
    }
    if (!vars.isEmpty() && budget > 0 && line.indexOf('$') >= 0) {
      String expanded = expand(line, vars, budget);
      if (expanded == null) {
        budget = 0; // each try may cost the budget: there is no second one
      } else {
        budget -= Math.max(0, expanded.length() - line.length());
        line = expanded;
      }
    }
    Mapping m = parseLine(line);
    if (m != null) {
      listed++;
      if (m.executable() || !executableOnly) {
        out.add(m);
      }
    } else {
      int eq = line.indexOf('=');
      if (eq > 0) {
        String name = "$" + line.substring(0, eq).strip();
        if (name.indexOf('$', 1) < 0 && (vars.size() < MAX_VARIABLES || vars.containsKey(name))) {
          vars.put(name, line.substring(eq + 1).strip());
        }
      }
    }
  }

  /**
   * The mappings of the lines parsed so far in file order: all of them, or only the executable
   * ones.
   */
  public List<Mapping> mappings() {
    return out;
  }

  /** How many mappings the lines parsed so far listed, executable or not. */
  public int listed() {
    return listed;
  }

  /**
   * {@code line} with each {@code $name} replaced in one left-to-right pass (the first variable
   * defined wins where several names match), or null if that would add more than {@code budget}
   * characters.
   */
  private static String expand(String line, Map<String, String> vars, long budget) {
    StringBuilder b = new StringBuilder(line.length());
    int i = 0;
    while (i < line.length()) {
      int d = line.indexOf('$', i);
      if (d < 0) {
        b.append(line, i, line.length());
        break;
      }
      b.append(line, i, d);
      i = d + 1;
      String value = "$";
      for (Map.Entry<String, String> v : vars.entrySet()) {
        if (line.startsWith(v.getKey(), d)) {
          value = v.getValue();
          i = d + v.getKey().length();
          break;
        }
      }
      b.append(value);
      if (b.length() - i > budget) {
        return null;
      }
    }
    return b.toString();
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
