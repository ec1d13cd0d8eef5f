package dev.fleetprof.jobs;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code ${KEY}} variables in statements, as spark-sql's {@code --define} replaces them. */
final class SqlVariables {
  private static final Pattern VARIABLE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(?::-([^}]*))?}");

  private SqlVariables() {}

  /**
   * Replaces {@code ${KEY}} and {@code ${KEY:-default}}; a KEY with neither value nor default
   * fails.
   */
  static String substitute(String sql, Map<String, String> vars) {
    Matcher m = VARIABLE.matcher(sql);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = vars.getOrDefault(m.group(1), m.group(2));
      if (v == null) {
        throw new IllegalArgumentException(
            "${" + m.group(1) + "} has no value: pass -d " + m.group(1) + "=...");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }
}
