package dev.fleetprof.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code ${KEY}} variables in statements, as spark-sql's {@code --define} replaces them. */
final class SqlVariables {
  private static final Pattern VARIABLE =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(?::-([^}]*))?}");

  private SqlVariables() {}

  /**
   * A SQL predicate over the {@code dimensions} column of the per-host datasets that keeps the rows
   * every dimension filter ({@link #dimensionFilters}) keeps; {@code true} without filters.
   */
  static final String DIMENSION_FILTER = "dimension_filter";

  /** {@code yes} when a dimension filter is given, else empty: which rows a script reads. */
  static final String DIMENSION_FILTERED = "dimension_filtered";

  /** Variables the runner gives every script (a -d of the same name replaces them). */
  static final Set<String> SUPPLIED = Set.of(DIMENSION_FILTER, DIMENSION_FILTERED);

  /** Variables the runner reads itself, whatever the statements name. */
  private static final Set<String> RUNNER_VARIABLES = Set.of("output");

  /**
   * The {@code -d KEY=VALUE} that no statement names as {@code ${KEY}}: filters on the dimension
   * KEY of the fleet job's per-host datasets (a {@code KEY=VALUE} directory level), in the order of
   * their names. Statements that take them name {@code ${dimension_filter}}; given to statements
   * that do not, they are an error, so that a misspelt variable never passes silently.
   */
  static Map<String, String> dimensionFilters(List<String> statements, Map<String, String> vars) {
    Set<String> named = new TreeSet<>();
    for (String sql : statements) {
      Matcher m = VARIABLE.matcher(sql);
      while (m.find()) {
        named.add(m.group(1));
      }
    }
    Map<String, String> filters = new TreeMap<>();
    for (Map.Entry<String, String> v : vars.entrySet()) {
      if (!named.contains(v.getKey()) && !RUNNER_VARIABLES.contains(v.getKey())) {
        filters.put(v.getKey(), v.getValue());
      }
    }
    if (!filters.isEmpty() && !named.contains(DIMENSION_FILTER)) {
      String given = String.join(" ", filters.keySet().stream().map(k -> "-d " + k).toList());
      throw new IllegalArgumentException(
          given
              + ": no statement takes ${"
              + String.join("}, ${", filters.keySet())
              + "}, and these statements take no dimension filters; top-functions.sql,"
              + " diff-dates.sql, by-host.sql and top-modules.sql do (see docs/sql-jobs.md)");
    }
    return new LinkedHashMap<>(filters);
  }

  /** The {@link #DIMENSION_FILTER} predicate of {@code filters}. */
  static String dimensionPredicate(Map<String, String> filters) {
    if (filters.isEmpty()) {
      return "true";
    }
    StringBuilder out = new StringBuilder("(");
    for (Map.Entry<String, String> f : filters.entrySet()) {
      out.append(out.length() == 1 ? "" : " AND ")
          .append("exists(dimensions, d -> d.key = ")
          .append(Dimensions.literal(f.getKey()))
          .append(" AND d.value = ")
          .append(Dimensions.literal(f.getValue()))
          .append(")");
    }
    return out.append(")").toString();
  }

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
