package dev.fleetprof.jobs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs Spark SQL statements (given inline or from .sql files) on an embedded Spark session where the
 * {@code profile} source is available, and prints each result: ad-hoc SQL over profiles without a
 * notebook or a cluster.
 */
public final class SqlRunner {
  static final String USAGE = String.join("\n",
      "Usage: jobs/sql [-d KEY=VALUE ...] [--view NAME=PATH ...] [--max-rows N]",
      "                (-e 'SQL;...' | FILE.sql)...",
      "",
      "  -d KEY=VALUE       replace ${KEY} in the statements (${KEY:-default} has a default), as",
      "                     spark-sql's --define does; e.g. -d date=2026-11-20",
      "  --view NAME=PATH   first run CREATE TEMPORARY VIEW NAME USING profile OPTIONS (path 'PATH')",
      "  -e SQL             statements to run (separated by ';')",
      "  FILE.sql           a file of statements to run",
      "  --max-rows N       rows to print per result (default 50)",
      "",
      "Example: jobs/sql --view p=sample-data/gperftools \\",
      "           -e \"SELECT path, sum(count) AS samples FROM p GROUP BY path\"");

  public static void main(String[] argv) throws IOException {
    List<String> statements = new ArrayList<>();
    java.util.Map<String, String> vars = new java.util.HashMap<>();
    int maxRows = 50;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (a.equals("--help") || a.equals("-h")) {
        System.out.println(USAGE);
        return;
      } else if (a.equals("--view") && i + 1 < argv.length) {
        String[] kv = argv[++i].split("=", 2);
        if (kv.length != 2) {
          fail("--view needs NAME=PATH");
        }
        statements.add("CREATE OR REPLACE TEMPORARY VIEW " + kv[0]
            + " USING profile OPTIONS (path '" + kv[1].replace("'", "\\'") + "')");
      } else if ((a.equals("-d") || a.equals("--define")) && i + 1 < argv.length) {
        String[] kv = argv[++i].split("=", 2);
        if (kv.length != 2) {
          fail(a + " needs KEY=VALUE");
        }
        vars.put(kv[0], kv[1]);
      } else if (a.equals("-e") && i + 1 < argv.length) {
        statements.addAll(split(argv[++i]));
      } else if (a.equals("--max-rows") && i + 1 < argv.length) {
        maxRows = Integer.parseInt(argv[++i]);
      } else if (!a.startsWith("-")) {
        statements.addAll(split(Files.readString(Path.of(a))));
      } else {
        fail("unknown argument '" + a + "'");
      }
    }
    if (statements.isEmpty()) {
      fail("no statements given");
    }
    List<String> resolved = new ArrayList<>();
    for (String sql : statements) {
      try {
        resolved.add(substitute(sql, vars));
      } catch (IllegalArgumentException e) {
        fail(e.getMessage());
      }
    }
    statements = resolved;
    SparkSession spark = Sessions.start("fleetprof sql");
    try {
      for (String sql : statements) {
        System.out.println("-- " + sql.replaceAll("\\s+", " "));
        Dataset<Row> result = spark.sql(sql);
        if (result.columns().length > 0) {
          result.show(maxRows, false);
        }
      }
    } finally {
      spark.stop();
    }
  }

  private static void fail(String message) {
    System.err.println("sql: " + message + "\n\n" + USAGE);
    System.exit(2);
  }

  private static final java.util.regex.Pattern VARIABLE =
      java.util.regex.Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(?::-([^}]*))?}");

  /** Replaces {@code ${KEY}} and {@code ${KEY:-default}}; a KEY with neither value nor default fails. */
  static String substitute(String sql, java.util.Map<String, String> vars) {
    java.util.regex.Matcher m = VARIABLE.matcher(sql);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = vars.getOrDefault(m.group(1), m.group(2));
      if (v == null) {
        throw new IllegalArgumentException("${" + m.group(1) + "} has no value: pass -d "
            + m.group(1) + "=...");
      }
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
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
