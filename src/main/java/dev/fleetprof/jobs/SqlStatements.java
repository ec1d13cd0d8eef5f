package dev.fleetprof.jobs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The statements of a SQL script, as spark-sql separates them. */
final class SqlStatements {
  /** spark-sql's {@code source FILE} command: FILE's statements run in its place. */
  private static final Pattern SOURCE = Pattern.compile("(?is)source\\s+(?:'([^']+)'|(\\S+))");

  private SqlStatements() {}

  /**
   * The statements of the script {@code file}, each {@code SOURCE FILE} replaced by FILE's
   * statements (read the same way; FILE relative to the including script's folder), so that SQL
   * jobs share a view's definition instead of copying it.
   *
   * @throws IllegalArgumentException naming the script that cannot be read or a cycle of SOURCEs
   */
  static List<String> read(Path file) {
    List<String> out = new ArrayList<>();
    read(file.toAbsolutePath().normalize(), new ArrayList<>(), out);
    return out;
  }

  /**
   * {@code statements} given inline, each {@code SOURCE FILE} replaced as {@link #read} does, FILE
   * relative to the working directory.
   */
  static List<String> expand(List<String> statements) {
    List<String> out = new ArrayList<>();
    expand(statements, Path.of("").toAbsolutePath(), new ArrayList<>(), out);
    return out;
  }

  private static void read(Path file, List<Path> including, List<String> out) {
    if (including.contains(file)) {
      throw new IllegalArgumentException("SOURCE cycle: " + including + " -> " + file);
    }
    String script;
    try {
      script = Files.readString(file);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot read "
              + file
              + (including.isEmpty()
                  ? ""
                  : " (SOURCE in " + including.get(including.size() - 1) + ")")
              + ": "
              + e);
    }
    including.add(file);
    expand(split(script), file.getParent(), including, out);
    including.remove(including.size() - 1);
  }

  private static void expand(
      List<String> statements, Path folder, List<Path> including, List<String> out) {
    for (String sql : statements) {
      Matcher m = SOURCE.matcher(sql);
      if (m.matches()) {
        String name = m.group(1) != null ? m.group(1) : m.group(2);
        read(folder.resolve(name).normalize(), including, out);
      } else {
        out.add(sql);
      }
    }
  }

  /** Splits a script on ';' outside quotes, backquotes and comments; drops empty statements. */
  static List<String> split(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < script.length(); i++) {
      char c = script.charAt(i);
      if (quote != 0) {
        cur.append(c);
        if (c == '\\' && i + 1 < script.length()) {
          cur.append(script.charAt(++i));
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
        cur.append(c);
      } else if (c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
        int eol = script.indexOf('\n', i);
        i = eol < 0 ? script.length() : eol;
        cur.append('\n');
      } else if (c == ';') {
        add(out, cur);
      } else {
        cur.append(c);
      }
    }
    add(out, cur);
    return out;
  }

  private static void add(List<String> out, StringBuilder cur) {
    String s = cur.toString().strip();
    if (!s.isEmpty()) {
      out.add(s);
    }
    cur.setLength(0);
  }
}
