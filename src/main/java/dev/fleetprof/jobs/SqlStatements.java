package dev.fleetprof.jobs;

import java.util.ArrayList;
import java.util.List;

/** The statements of a SQL script, as spark-sql separates them. */
final class SqlStatements {
  private SqlStatements() {}

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
