package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jobs/gprof-flat.sql} against {@code gprof -b -p} on the bundled gmon.out files and their
 * bundled binaries, the programs named by {@code program=NAME} directories: the same functions,
 * calls exactly, self seconds within one sample. (gprof splits a histogram bin that straddles two
 * functions; the job gives it to the function of its first byte.) GCC clone suffixes ({@code
 * .isra.0}, {@code .constprop.0}, ...) are dropped on both sides: gprof names the ELF symbol, the
 * job the function DWARF names.
 */
class GprofFlatTest {
  private static final Pattern ROW =
      Pattern.compile(
          "^\\s*([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)"
              + "\\s+(?:(\\d+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+)?(\\S.*)$");
  private static final Pattern CLONE =
      Pattern.compile("(\\.(isra|constprop|part|cold|lto_priv)\\.\\d+)+| \\[clone [^]]*\\]");

  @TempDir static Path tmp;
  private static SparkSession spark;
  private static String out;

  @BeforeAll
  static void aggregate() throws Exception {
    spark = TestSpark.get();
    for (String[] s :
        new String[][] {
          {"c-pie-64", "workload"}, {"cxx-nopie-64", "shapes"}, {"c-32", "workload32"}
        }) {
      Path dir = Files.createDirectories(tmp.resolve("in/program=" + s[1]));
      Files.copy(SampleData.gmonOut(s[0]), dir.resolve("gmon.out"));
    }
    out = tmp.resolve("out").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              tmp.resolve("in").toString(),
              "--output",
              out,
              "--date",
              "2026-11-21",
              "--binaries",
              bin().toString()
            }));
  }

  private static Path bin() {
    return SampleData.GPROF_BINARIES.toAbsolutePath();
  }

  @ParameterizedTest
  @CsvSource({"c-pie-64, workload", "cxx-nopie-64, shapes", "c-32, workload32"})
  void flatProfileEqualsGprof(String sample, String program) throws Exception {
    ExternalTool.require("gprof", "binutils");
    ExternalTool.Result r =
        ExternalTool.run(
            List.of(
                "gprof",
                "-b",
                "-p",
                bin().resolve(program).toString(),
                SampleData.gmonOut(sample).toAbsolutePath().toString()),
            tmp.resolve("home"),
            Map.of(),
            120);
    assertEquals(0, r.exit(), r.stderr());
    Map<String, String> want = new TreeMap<>();
    Map<String, Double> wantSeconds = new HashMap<>();
    for (String line : r.stdout().split("\n")) {
      Matcher m = ROW.matcher(line);
      if (m.matches() && !line.contains("seconds")) {
        String name = CLONE.matcher(m.group(7).strip()).replaceAll("");
        want.put(name, "calls " + (m.group(4) == null ? "-" : m.group(4)));
        wantSeconds.merge(name, Double.parseDouble(m.group(3)), Double::sum);
      }
    }
    assertTrue(want.size() > 3, r.stdout());

    Map<String, String> got = new TreeMap<>();
    Map<String, Double> gotSeconds = new HashMap<>();
    for (Row row : runSql("gprof-flat.sql", "program", program).collectAsList()) {
      String name = CLONE.matcher(row.<String>getAs("function")).replaceAll("");
      Object calls = row.getAs("calls");
      double seconds = ((Number) row.getAs("self_seconds")).doubleValue();
      if (calls == null && seconds == 0) {
        continue;
      }
      got.merge(name, "calls " + (calls == null ? "-" : calls.toString()), (a, b) -> a + "+" + b);
      gotSeconds.merge(name, seconds, Double::sum);
    }
    // gprof lists functions with no samples and no calls too, with zeros: nothing to compare.
    want.keySet()
        .removeIf(
            n -> want.get(n).equals("calls -") && wantSeconds.get(n) == 0.0 && !got.containsKey(n));
    assertEquals(want, got, "functions and calls of " + sample);
    for (String name : want.keySet()) {
      assertEquals(
          wantSeconds.get(name),
          gotSeconds.getOrDefault(name, 0.0),
          0.0101,
          "self seconds of " + name + " in " + sample);
    }
  }

  /** Without -d date, a program's flat profile is of its own latest day, not the output's. */
  @org.junit.jupiter.api.Test
  void defaultsToTheProgramsLatestDay() throws Exception {
    Path in = tmp.resolve("days");
    Files.createDirectories(in.resolve("date=2026-10-01/program=workload"));
    Files.createDirectories(in.resolve("date=2026-10-05/program=shapes"));
    Files.copy(
        SampleData.gmonOut("c-pie-64"), in.resolve("date=2026-10-01/program=workload/gmon.out"));
    Files.copy(
        SampleData.gmonOut("cxx-nopie-64"), in.resolve("date=2026-10-05/program=shapes/gmon.out"));
    String days = tmp.resolve("days-out").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input", in.toString(), "--output", days, "--binaries", bin().toString()
            }));
    String saved = out;
    out = days;
    try {
      List<Row> rows = runSql("gprof-flat.sql", "program", "workload").collectAsList();
      assertTrue(rows.stream().anyMatch(r -> "merge".equals(r.getAs("function"))), rows.toString());
    } finally {
      out = saved;
    }
  }

  private static Dataset<Row> runSql(String file, String... defines) throws Exception {
    return SqlFiles.run(spark, out, file, defines);
  }
}
