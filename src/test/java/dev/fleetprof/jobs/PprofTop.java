package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code go tool pprof -top -sample_index=samples} says of a profile, with its binaries found
 * through {@code PPROF_BINARY_PATH}: per row (function, or {@code [module]} for what pprof cannot
 * name) flat and cum counts and percentages, and the total.
 */
record PprofTop(long total, Map<String, long[]> counts, Map<String, double[]> percents) {
  private static final Pattern TOTAL =
      Pattern.compile("Showing nodes accounting for \\d+, [\\d.]+% of (\\d+) total");

  static PprofTop of(Path profile, Path binaries, Path work) throws Exception {
    Path go = ExternalTool.require("go", "golang-go");
    ExternalTool.Result r =
        ExternalTool.run(
            List.of(
                go.toString(),
                "tool",
                "pprof",
                "-top",
                "-sample_index=samples",
                "-nodecount=1000000",
                "-nodefraction=0",
                profile.toAbsolutePath().toString()),
            work.resolve("home"),
            Map.of(
                "PPROF_TMPDIR",
                work.resolve("pprof-tmp").toString(),
                "PPROF_BINARY_PATH",
                binaries.toAbsolutePath().toString()),
            300);
    assertEquals(0, r.exit(), r.stderr());
    Matcher showing = TOTAL.matcher(r.stdout());
    assertTrue(showing.find(), r.stdout());
    Map<String, long[]> counts = new TreeMap<>();
    Map<String, double[]> percents = new TreeMap<>();
    boolean rows = false;
    for (String line : r.stdout().split("\n")) {
      if (line.strip().startsWith("flat")) {
        rows = true;
        continue;
      }
      String[] t = line.strip().split("\\s+", 6);
      if (rows && t.length == 6) {
        counts.put(t[5], new long[] {Long.parseLong(t[0]), Long.parseLong(t[3])});
        percents.put(t[5], new double[] {percent(t[1]), percent(t[4])});
      }
    }
    assertTrue(
        counts.keySet().stream().anyMatch(n -> !n.startsWith("[")),
        "pprof names functions:\n" + r.stdout());
    return new PprofTop(Long.parseLong(showing.group(1)), counts, percents);
  }

  /**
   * The functions pprof names (not its {@code [module]} rows), each with its flat and cum; pprof's
   * mark of a function it shows only inlined ({@code "strings.Contains (inline)"}) left out.
   */
  Map<String, List<Long>> namedFunctions() {
    Map<String, List<Long>> out = new java.util.TreeMap<>();
    counts.forEach(
        (f, v) -> {
          if (!f.startsWith("[")) {
            assertEquals(
                null, out.put(f.replaceFirst(" \\(inline\\)$", ""), List.of(v[0], v[1])), f);
          }
        });
    return out;
  }

  /**
   * Asserts that a SQL job's rows ({@code function}, {@code self_count}, {@code total_count}) give
   * each function pprof names its flat and cum (summed over the rows' modules).
   */
  void assertFunctionsOf(org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> rows) {
    Map<String, List<Long>> want = namedFunctions();
    Map<String, List<Long>> got = new java.util.TreeMap<>();
    for (org.apache.spark.sql.Row r : rows.collectAsList()) {
      if (want.containsKey(r.<String>getAs("function"))) {
        got.merge(
            r.getAs("function"),
            List.of(
                ((java.math.BigDecimal) r.getAs("self_count")).longValueExact(),
                ((java.math.BigDecimal) r.getAs("total_count")).longValueExact()),
            (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
      }
    }
    assertEquals(want, got);
  }

  /**
   * The CPU time {@code go tool pprof -top -sample_index=cpu} gives a profile in all, in
   * nanoseconds (pprof's own samples x period).
   */
  static long cpuNanos(Path profile, Path work) throws Exception {
    String top = cpuTopInNanos(profile, work);
    Matcher m = Pattern.compile("of (\\d+)ns total").matcher(top);
    assertTrue(m.find(), top);
    return Long.parseLong(m.group(1));
  }

  /**
   * What {@code go tool pprof -top -symbolize=none -sample_index=cpu -unit=ns} prints of a profile,
   * every node listed: the names and CPU time the profile itself carries.
   */
  static String cpuTopInNanos(Path profile, Path work) throws Exception {
    Path go = ExternalTool.require("go", "golang-go");
    ExternalTool.Result r =
        ExternalTool.run(
            List.of(
                go.toString(),
                "tool",
                "pprof",
                "-top",
                "-symbolize=none",
                "-sample_index=cpu",
                "-unit=ns",
                "-nodecount=1000000",
                profile.toAbsolutePath().toString()),
            work.resolve("home"),
            Map.of("PPROF_TMPDIR", work.resolve("pprof-tmp").toString()),
            300);
    assertEquals(0, r.exit(), r.stderr());
    return r.stdout();
  }

  private static double percent(String text) {
    assertTrue(text.endsWith("%"), text);
    return Double.parseDouble(text.substring(0, text.length() - 1));
  }
}
