package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet job's and the export job's pprof, folded and flame graph files agree with the Parquet
 * tables they came from; pprof's totals are read by the real {@code go tool pprof}.
 */
class StandardOutputsJobTest {
  private static SparkSession spark;
  @TempDir static Path tmp;
  private static String out;

  @BeforeAll
  static void runTheJob() throws Exception {
    spark = TestSpark.get();
    Path in =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "web041", SampleData.gperftoolsProfiles())
            .copy(
                "2026-11-20",
                "web042",
                List.of(SampleData.GPERFTOOLS.resolve("multithreaded.prof")))
            .copy(
                "2026-11-21",
                "web041",
                SampleData.GPERFTOOLS.resolve("deep_recursion.prof"),
                "cpu.prof")
            .root();
    out = tmp.resolve("fleet").toString();
    FleetAggregate.run(spark, withProfileOutputs(in, out));
    FleetAggregate.run(
        spark,
        job(
            in,
            out,
            "2026-11-21",
            "--binaries",
            SampleData.GPERFTOOLS_BINARIES.toAbsolutePath().toString()));
  }

  @Test
  void aRunTooLargeToKeepItsOutputsRowsOnTheDriverWritesTheSameFiles() throws Exception {
    // The run above kept its outputs' rows on the driver (a small run); this one streams them
    // from the executors after the commit, as a large run does.
    String streamed = tmp.resolve("streamed").toString();
    FleetAggregate.run(
        spark,
        withProfileOutputs(tmp.resolve("in"), streamed),
        new FleetAggregate.Hooks(-1L, () -> {}, FleetAggregate.BROADCAST_FROM_ROWS, () -> {}, 0));
    assertEquals(
        Files.readAllLines(Path.of(out, "cpu.folded")).stream().sorted().toList(),
        Files.readAllLines(Path.of(streamed, "cpu.folded")).stream().sorted().toList());
    assertEquals(
        Files.readString(Path.of(out, "cpu.html")),
        Files.readString(Path.of(streamed, "cpu.html")));
    assertEquals(pprofTotal(Path.of(out, "cpu.pb.gz")), pprofTotal(Path.of(streamed, "cpu.pb.gz")));
  }

  /** The job on 2026-11-20 of {@code in}, writing all three profile outputs into {@code out}. */
  private static FleetAggregate.Args withProfileOutputs(Path in, String out) {
    return job(
        in,
        out,
        "2026-11-20",
        "--pprof",
        out + "/cpu.pb.gz",
        "--folded",
        out + "/cpu.folded",
        "--flamegraph",
        out + "/cpu.html");
  }

  private static FleetAggregate.Args job(Path in, String out, String date, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("--input", in.toString()));
    args.addAll(List.of("--output", out, "--date", date));
    args.addAll(List.of(more));
    return FleetAggregate.Args.parse(args.toArray(new String[0]));
  }

  private static long parquetTotal(String table, String where) {
    BigDecimal d =
        spark
            .read()
            .parquet(out + "/" + table)
            .where("measure = 'cpu' AND " + where)
            .selectExpr("sum(value)")
            .first()
            .getDecimal(0);
    return d.longValueExact();
  }

  /** CPU time in the profile, in nanoseconds, as go tool pprof sums it. */
  private static long pprofTotal(Path profile) throws Exception {
    return PprofTop.cpuNanos(profile, tmp);
  }

  private static Map<String, BigDecimal> counts(String date) {
    Map<String, BigDecimal> out = new java.util.HashMap<>();
    for (var r :
        spark
            .read()
            .parquet(StandardOutputsJobTest.out + "/stacks")
            .where("measure = 'cpu' AND date = '" + date + "'")
            .select("frames", "value")
            .collectAsList()) {
      out.merge(r.getList(0).toString(), r.getDecimal(1), BigDecimal::add);
    }
    return out;
  }

  @Test
  void theDaysPprofTotalsEqualTheParquetTotals() throws Exception {
    long parquet = parquetTotal("stacks", "date = '2026-11-20'");
    assertTrue(parquet > 0);
    assertEquals(parquet, pprofTotal(Path.of(out, "cpu.pb.gz")));
  }

  @Test
  void foldedStacksAndTheFlameGraphCarryTheSameTotal() throws Exception {
    long parquet = parquetTotal("stacks", "date = '2026-11-20'");
    long folded = 0;
    for (String line : Files.readAllLines(Path.of(out, "cpu.folded"))) {
      folded += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
      assertTrue(line.indexOf(' ') == line.lastIndexOf(' '), "one space per line: " + line);
    }
    assertEquals(parquet, folded);
    String html = Files.readString(Path.of(out, "cpu.html"));
    assertTrue(html.contains("fleetprof: CPU time of "), "titled");
    assertTrue(html.contains(" on 2026-11-20: "), "titled with the date");
  }

  /**
   * An export of a symbolized date names functions by itself: {@code go tool pprof} with {@code
   * -symbolize=none} (no binaries looked at) lists the functions of {@code functions/} with their
   * flat counts.
   */
  @Test
  void exportsCarryTheFunctionNames() throws Exception {
    Path day = tmp.resolve("named.pb.gz");
    ExportProfile.run(
        spark,
        ExportProfile.Args.parse(
            new String[] {"--from", out, "--date", "2026-11-21", "--pprof", day.toString()}));
    String top = PprofTop.cpuTopInNanos(day, tmp);
    assertTrue(
        top.contains("File: " + Path.of(out).getFileName() + " 2026-11-21"),
        "pprof's File: names the output and day: " + top);
    List<Row> named =
        spark
            .read()
            .parquet(out + "/functions")
            .where("date = '2026-11-21' AND function IN ('spin', 'descend', 'main')")
            .where("measure = 'cpu'")
            .selectExpr("function", "CAST(self_value AS BIGINT)")
            .collectAsList();
    assertEquals(3, named.size(), "functions/ names them: " + named);
    for (Row f : named) {
      assertTrue(
          Pattern.compile("(?m)^\\s*" + f.getLong(1) + "(?:ns)?\\s.*\\s" + f.getString(0) + "$")
              .matcher(top)
              .find(),
          f + " in\n" + top);
    }
  }

  @Test
  void aHostAndADiffExportAsPprof() throws Exception {
    Path host = tmp.resolve("web042.pb.gz");
    ExportProfile.run(
        spark,
        ExportProfile.Args.parse(
            new String[] {
              "--from", out, "--date", "2026-11-20", "--host", "web042", "--pprof", host.toString()
            }));
    assertEquals(
        parquetTotal("host_stacks", "date = '2026-11-20' AND host = 'web042'"), pprofTotal(host));

    Path diff = tmp.resolve("diff.pb.gz");
    ExportProfile.run(
        spark,
        ExportProfile.Args.parse(
            new String[] {
              "--from",
              out,
              "--date",
              "2026-11-21",
              "--base",
              "2026-11-20",
              "--pprof",
              diff.toString()
            }));
    // pprof's total is the sum of |value| over samples: computed here from the tables, with the
    // base scaled to the day's total as the export promises.
    Map<String, BigDecimal> day = counts("2026-11-21");
    Map<String, BigDecimal> base = counts("2026-11-20");
    BigDecimal dayTotal = day.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    BigDecimal baseTotal = base.values().stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    Map<String, BigDecimal> value = new java.util.HashMap<>(day);
    base.forEach(
        (k, v) ->
            value.merge(
                k,
                v.negate()
                    .multiply(dayTotal)
                    .divide(baseTotal, java.math.MathContext.DECIMAL128)
                    .setScale(0, java.math.RoundingMode.HALF_UP),
                BigDecimal::add));
    long expected = value.values().stream().mapToLong(v -> v.abs().longValueExact()).sum();
    assertEquals(expected, pprofTotal(diff));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ExportProfile.Args.parse(
                new String[] {
                  "--from", out, "--date", "2026-11-21", "--base", "2026-11-20", "--folded", "x"
                }));
  }
}
