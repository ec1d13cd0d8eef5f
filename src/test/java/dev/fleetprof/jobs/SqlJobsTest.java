package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SQL jobs in jobs/*.sql, run as jobs/sql runs them, on the fleet job's output for two days of
 * the sample data: each works, and what it reports agrees with the tables. The by-function jobs
 * also run on a second output, a day per profile, against {@code go tool pprof -top} and {@code
 * gprof -b -p} of the same files.
 */
class SqlJobsTest {
  private static final List<String> PROFILES =
      List.of("deep_recursion", "shared_library", "multithreaded", "x86_32");

  /** gmon.out samples of the by-profile output: date, program, sample directory. */
  private static final String[][] GMON = {
    {"2026-10-01", "workload", "c-pie-64"}, {"2026-10-05", "shapes", "cxx-nopie-64"}
  };

  private static final Pattern GPROF_TICK =
      Pattern.compile("Each sample counts as ([\\d.]+) seconds");

  /** A row of gprof's flat profile: % time, cumulative s, self s, [calls ...], name. */
  private static final Pattern GPROF_ROW =
      Pattern.compile(
          "^\\s*([\\d.]+)\\s+([\\d.]+)\\s+"
              + "([\\d.]+)\\s+(?:\\d+\\s+[\\d.]+\\s+[\\d.]+\\s+)?(\\S.*)$");

  private static final Pattern GPROF_CLONE =
      Pattern.compile("(\\.(isra|constprop|part|cold|lto_priv)\\.\\d+)+| \\[clone [^]]*\\]");

  private static SparkSession spark;
  @TempDir static Path tmp;
  private static String out;
  private static String byProfile;

  @BeforeAll
  static void aggregateTwoDays() throws Exception {
    spark = TestSpark.get();
    FleetFixture fleet = new FleetFixture(tmp.resolve("in"));
    for (String day : List.of("2026-11-20", "2026-11-21")) {
      for (String host : List.of("web041", "web042")) {
        fleet.copy(day, host, SampleData.GPERFTOOLS.resolve("multithreaded.prof"), "a.prof");
      }
    }
    // The second day also ran a different program on one host: its stacks "grew" from nothing.
    fleet.copy(
        "2026-11-21", "web042", SampleData.GPERFTOOLS.resolve("deep_recursion.prof"), "b.prof");
    Path in = fleet.root();
    out = tmp.resolve("fleet").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input", in.toString(), "--output", out, "--binaries", gperftoolsBin().toString()
            }));
    aggregateOneDayPerProfile();
  }

  /**
   * A second output for the by-function jobs: one day per gperftools profile (so that a day is what
   * {@code pprof -top} shows of one profile), and gprof data on the first day (beside a CPU
   * profile, so the format filter matters) and on a day after all CPU profiles (so the default day
   * must be the latest with the chosen format and kind).
   */
  private static void aggregateOneDayPerProfile() throws Exception {
    Path in = tmp.resolve("by-profile");
    for (int i = 0; i < PROFILES.size(); i++) {
      Path dir =
          Files.createDirectories(
              in.resolve("date=" + profileDay(i)).resolve("program=" + PROFILES.get(i)));
      Files.copy(
          SampleData.GPERFTOOLS.resolve(PROFILES.get(i) + ".prof"),
          dir.resolve(PROFILES.get(i) + ".prof"));
    }
    for (String[] g : GMON) {
      Path dir = Files.createDirectories(in.resolve("date=" + g[0]).resolve("program=" + g[1]));
      Files.copy(SampleData.gmonOut(g[2]), dir.resolve("gmon.out"));
    }
    byProfile = tmp.resolve("by-profile-out").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              in.toString(),
              "--output",
              byProfile,
              "--binaries",
              gperftoolsBin().toString(),
              "--binaries",
              gprofBin().toString()
            }));
  }

  private static String profileDay(int i) {
    return "2026-10-0" + (i + 1);
  }

  private static Path gperftoolsBin() {
    return SampleData.GPERFTOOLS_BINARIES.toAbsolutePath();
  }

  private static Path gprofBin() {
    return SampleData.GPROF_BINARIES.toAbsolutePath();
  }

  private static Dataset<Row> runFile(String name, String... defines) throws Exception {
    return runOn(out, name, defines);
  }

  private static Dataset<Row> runByProfile(String name, String... defines) throws Exception {
    return runOn(byProfile, name, defines);
  }

  private static Dataset<Row> runOn(String output, String name, String... defines)
      throws Exception {
    return SqlFiles.run(spark, output, name, defines);
  }

  private static BigDecimal dayTotal(String table, String column, String day) {
    return spark
        .read()
        .parquet(out + "/" + table)
        .where("date = '" + day + "'")
        .selectExpr("sum(" + column + ")")
        .first()
        .getDecimal(0);
  }

  @Test
  void topStacksDefaultsToTheLatestDay() throws Exception {
    List<Row> rows = runFile("top-stacks.sql").collectAsList();
    assertFalse(rows.isEmpty());
    assertTrue(rows.stream().allMatch(r -> r.getDate(0).toString().equals("2026-11-21")));
    BigDecimal sum =
        rows.stream()
            .map(r -> (BigDecimal) r.getAs("count"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(dayTotal("stacks", "count", "2026-11-21"), sum, "the limit lists them all");
    assertEquals(1, runFile("top-stacks.sql", "date", "2026-11-20", "limit", "1").count());
  }

  @Test
  void topModulesAndLocationsAddUpToTheDay() throws Exception {
    BigDecimal day = dayTotal("stacks", "count", "2026-11-20");
    BigDecimal modules =
        runFile("top-modules.sql", "date", "2026-11-20").collectAsList().stream()
            .map(r -> (BigDecimal) r.getAs("self_count"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(day, modules);
    BigDecimal locations =
        runFile("top-locations.sql", "date", "2026-11-20").collectAsList().stream()
            .map(r -> (BigDecimal) r.getAs("self_count"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertTrue(locations.compareTo(day) <= 0 && locations.signum() > 0);
  }

  @Test
  void byHostSharesAddUpToTheFleet() throws Exception {
    List<Row> rows = runFile("by-host.sql", "date", "2026-11-21").collectAsList();
    assertEquals(2, rows.size());
    double pct =
        rows.stream().mapToDouble(r -> ((BigDecimal) r.getAs("pct_of_fleet")).doubleValue()).sum();
    assertEquals(100.0, pct, 0.02);
    assertEquals("web042", rows.get(0).getAs("host"), "the host with two programs leads");
  }

  @Test
  void diffStacksShowsWhatGrewAndIsNormalised() throws Exception {
    List<Row> rows = runFile("diff-stacks.sql").collectAsList();
    assertEquals("2026-11-20", rows.get(0).getAs("base").toString());
    double delta =
        rows.stream().mapToDouble(r -> ((BigDecimal) r.getAs("delta_pct")).doubleValue()).sum();
    // Each delta is rounded to 0.001 points.
    assertEquals(
        0.0,
        delta,
        0.0005 * rows.size() + 1e-9,
        "shares move between stacks, they add up to 100 on both days");
    assertTrue(
        rows.stream()
            .anyMatch(
                r ->
                    r.getAs("change").equals("grew")
                        && ((BigDecimal) r.getAs("base_count")).signum() == 0),
        "a new program's stacks grew");
    assertTrue(rows.stream().anyMatch(r -> r.getAs("change").equals("shrank")));
  }

  /**
   * {@code diff-dates.sql} per function: self shares move between functions and add up to 100 on
   * both days; the second program's functions (on web042 only) grew from nothing, web042 named as
   * where; {@code -d host=web041} sees only that host's program, which did not change.
   */
  @Test
  void diffDatesPerFunctionNamesTheHostsWhereItGrew() throws Exception {
    List<Row> rows = runFile("diff-dates.sql").collectAsList();
    assertEquals("2026-11-21", rows.get(0).getAs("date").toString());
    assertEquals("2026-11-20", rows.get(0).getAs("base").toString());
    double delta =
        rows.stream().mapToDouble(r -> ((BigDecimal) r.getAs("self_delta")).doubleValue()).sum();
    assertEquals(0.0, delta, 0.0005 * rows.size() + 1e-9, "self shares add up to 100 each day");
    Set<String> functions = new TreeSet<>();
    for (Row r : rows) {
      functions.add(r.getAs("function") + " in " + r.getAs("module"));
      BigDecimal self = r.getAs("self_delta");
      BigDecimal base = r.getAs("base_self_pct");
      assertEquals(
          ((BigDecimal) r.getAs("self_pct")).subtract(base).doubleValue(),
          self.doubleValue(),
          0.0011,
          "" + r);
      if (base.signum() == 0 && self.compareTo(new BigDecimal("0.01")) >= 0) {
        // a function of the second program only: all of its growth is web042's
        assertEquals("grew", r.getAs("change"), "" + r);
        Matcher m = HOST_PART.matcher(r.<String>getAs("hosts"));
        assertTrue(m.matches(), "" + r);
        assertEquals("web042", m.group(1), "" + r);
        assertEquals(self.doubleValue(), Double.parseDouble(m.group(2)), 0.006, "" + r);
      }
    }
    assertEquals(rows.size(), functions.size(), "one row per function: " + functions);
    assertTrue(
        rows.stream().anyMatch(r -> ((BigDecimal) r.getAs("base_self_pct")).signum() == 0),
        "a new program's functions grew");
    assertTrue(rows.stream().anyMatch(r -> r.getAs("change").equals("shrank")));
    for (int i = 1; i < rows.size(); i++) {
      assertTrue(
          ((BigDecimal) rows.get(i - 1).getAs("self_delta"))
                  .abs()
                  .compareTo(((BigDecimal) rows.get(i).getAs("self_delta")).abs())
              >= 0,
          "biggest change first: " + rows);
    }

    // web041 ran the same profile both days: nothing moved, and no other host shows
    List<Row> web041 = runFile("diff-dates.sql", "host", "web041").collectAsList();
    assertFalse(web041.isEmpty());
    for (Row r : web041) {
      assertEquals(0, ((BigDecimal) r.getAs("self_delta")).signum(), "" + r);
      assertEquals(0, ((BigDecimal) r.getAs("total_delta")).signum(), "" + r);
      assertEquals(null, r.<String>getAs("hosts"), "" + r);
    }
    assertEquals(0, runFile("diff-dates.sql", "host", "no-such-host").count());
  }

  /** "web042 +12.34pp": one host and its part of a change. */
  private static final Pattern HOST_PART = Pattern.compile("(\\S+) ([+-]\\d+\\.\\d\\d)pp");

  /**
   * The per-host functions {@code top-functions.sql} and {@code diff-dates.sql} compute from
   * host_stacks/ and locations/ ({@code host_functions}), summed over the hosts, are functions/'
   * rows: on both outputs, for every day and measure.
   */
  @Test
  void hostFunctionsAddUpToFunctions() throws Exception {
    for (String output : List.of(out, byProfile)) {
      for (Row dm :
          spark
              .read()
              .parquet(output + "/functions")
              .selectExpr("CAST(date AS STRING)", "measure")
              .distinct()
              .collectAsList()) {
        List<String> day = List.of(dm.getString(0));
        SqlFiles.run(
            spark, output, "top-functions.sql", "date", day.get(0), "measure", dm.getString(1));
        HostFunctions.assertSame(
            output + " " + dm,
            HostFunctions.of(spark, output, day, dm.getString(1)),
            HostFunctions.summed(spark));
      }
    }
    SqlFiles.run(spark, out, "diff-dates.sql", "date", "2026-11-21", "base", "2026-11-20");
    List<String> days = List.of("2026-11-20", "2026-11-21");
    HostFunctions.assertSame(
        "diff-dates.sql", HostFunctions.of(spark, out, days, "cpu"), HostFunctions.summed(spark));
  }

  /**
   * {@code top-functions.sql} on the day of one profile against {@code go tool pprof -top} of that
   * profile, compared as {@link PprofTopAgreementTest} compares {@code functions/}: the functions
   * pprof names have its flat and cumulative counts (summed over the job's rows of that name: the
   * job keeps a row per module); each {@code [module]} row of pprof has the flat count of the job's
   * rows in that module that pprof does not name (pprof names only from DWARF). The percentages are
   * the counts' shares of the day, which is pprof's total, rounded to 0.01 as pprof prints them.
   */
  @ParameterizedTest
  @ValueSource(strings = {"deep_recursion", "shared_library", "multithreaded", "x86_32"})
  void topFunctionsEqualPprofTop(String profile) throws Exception {
    PprofTop pprof = pprofTop(profile);
    String day = profileDay(PROFILES.indexOf(profile));
    List<Row> rows =
        runByProfile("top-functions.sql", "date", day, "format", "gperftools", "limit", "100000")
            .collectAsList();
    // CPU time, in seconds, is what pprof makes of the samples: samples x the profile's period.
    BigDecimal seconds =
        rows.stream()
            .map(r -> (BigDecimal) r.getAs("self"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(
        PprofTop.cpuNanos(SampleData.GPERFTOOLS.resolve(profile + ".prof"), tmp),
        seconds.movePointRight(9).longValueExact(),
        "CPU time as pprof -sample_index=cpu computes it");
    assertTrue(rows.stream().allMatch(r -> "s".equals(r.getAs("unit"))));
    BigDecimal total =
        rows.stream()
            .map(r -> (BigDecimal) r.getAs("self_count"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(pprof.total(), total.longValueExact(), "the day's samples are the profile's");

    Map<String, long[]> named = new TreeMap<>();
    Map<String, Long> unnamedFlat = new TreeMap<>();
    for (Row r : rows) {
      assertEquals(day, r.getAs("date").toString());
      BigDecimal self = r.getAs("self_count");
      BigDecimal cum = r.getAs("total_count");
      assertEquals(share(self, total, 2), r.getAs("self_pct"), "self_pct of " + r);
      assertEquals(share(cum, total, 2), r.getAs("total_pct"), "total_pct of " + r);
      String function = r.getAs("function");
      if (!function.startsWith("[") && pprof.counts().containsKey(function)) {
        long[] v = named.computeIfAbsent(function, k -> new long[2]);
        v[0] += self.longValueExact();
        v[1] += cum.longValueExact();
      } else {
        String module = r.getAs("module");
        unnamedFlat.merge(
            module == null ? function : "[" + module + "]", self.longValueExact(), Long::sum);
      }
    }
    Map<String, String> want = new TreeMap<>();
    Map<String, String> got = new TreeMap<>();
    pprof
        .counts()
        .forEach(
            (name, v) -> {
              if (name.startsWith("[")) {
                want.put(name, v[0] + " flat");
                got.put(name, unnamedFlat.getOrDefault(name, 0L) + " flat");
              } else {
                want.put(name, v[0] + " flat, " + v[1] + " cum");
                long[] g = named.getOrDefault(name, new long[2]);
                got.put(name, g[0] + " flat, " + g[1] + " cum");
                double[] pct = pprof.percents().get(name);
                assertEquals(
                    pct[0],
                    100.0 * g[0] / pprof.total(),
                    pprofRounding(pct[0]),
                    "flat% of " + name);
                assertEquals(
                    pct[1], 100.0 * g[1] / pprof.total(), pprofRounding(pct[1]), "cum% of " + name);
              }
            });
    unnamedFlat.forEach(
        (name, flat) -> {
          if (flat != 0 && !pprof.counts().containsKey(name)) {
            got.put(name, flat + " flat");
          }
        });
    assertTrue(want.keySet().stream().anyMatch(n -> !n.startsWith("[")), "pprof names functions");
    assertEquals(want, got, "top-functions.sql of " + profile + " vs go tool pprof -top");
  }

  /**
   * By default top-functions ranks CPU time of every format on the latest day that has any: the
   * gprof day after the CPU profiles; {@code -d format=gperftools} the latest day of CPU profiles.
   * On a day with a CPU profile and a gmon.out, the day's CPU time is both: pprof's samples x 1 ms
   * plus gprof's samples x its tick.
   */
  @Test
  void topFunctionsRanksCpuTimeOfEveryFormatOnTheLatestDay() throws Exception {
    List<Row> all = runByProfile("top-functions.sql", "limit", "100000").collectAsList();
    assertFalse(all.isEmpty());
    assertTrue(all.stream().allMatch(r -> r.getAs("date").toString().equals(GMON[1][0])), "" + all);
    List<Row> cpuProfiles =
        runByProfile("top-functions.sql", "format", "gperftools", "limit", "100000")
            .collectAsList();
    assertTrue(
        cpuProfiles.stream().allMatch(r -> r.getAs("date").toString().equals(profileDay(3))),
        "" + cpuProfiles);
    for (int i = 1; i < cpuProfiles.size(); i++) {
      int bySelf =
          ((BigDecimal) cpuProfiles.get(i - 1).getAs("self"))
              .compareTo(cpuProfiles.get(i).getAs("self"));
      assertTrue(
          bySelf > 0
              || bySelf == 0
                  && ((BigDecimal) cpuProfiles.get(i - 1).getAs("total"))
                          .compareTo(cpuProfiles.get(i).getAs("total"))
                      >= 0,
          "hottest first: " + cpuProfiles);
    }
    assertEquals(
        cpuProfiles.subList(0, 2).toString(),
        runByProfile("top-functions.sql", "format", "gperftools", "limit", "2")
            .collectAsList()
            .toString());

    ExternalTool.require("gprof", "binutils");
    List<Row> mixed =
        runByProfile("top-functions.sql", "date", profileDay(0), "limit", "100000").collectAsList();
    assertTrue(mixed.stream().anyMatch(r -> GMON[0][1].equals(r.getAs("module"))), "" + mixed);
    GprofFlat gprof = gprofFlat(GMON[0]);
    double expected =
        PprofTop.cpuNanos(SampleData.GPERFTOOLS.resolve(PROFILES.get(0) + ".prof"), tmp) / 1e9
            + gprof.samples() * gprof.tick();
    double seconds =
        mixed.stream().mapToDouble(r -> ((BigDecimal) r.getAs("self")).doubleValue()).sum();
    assertEquals(expected, seconds, 1e-6, "pprof's CPU time plus gprof's");
    assertEquals(
        0,
        runByProfile("top-functions.sql", "date", profileDay(0), "measure", "cycles").count(),
        "no DCPI events that day");
  }

  /**
   * {@code top-functions.sql -d format=gprof} (CPU time: histograms) against {@code gprof -b -p}:
   * the same total of samples, and per function the self time within one sample (gprof splits a bin
   * that straddles two functions; the job gives it to the function of its first byte). workload is
   * C at -O1 -fno-inline: its innermost functions are its ELF symbols.
   */
  @Test
  void topFunctionsOfGprofHistogramsEqualGprofFlat() throws Exception {
    ExternalTool.require("gprof", "binutils");
    GprofFlat gprof = gprofFlat(GMON[0]);
    List<Row> rows =
        runByProfile("top-functions.sql", "format", "gprof", "date", GMON[0][0], "limit", "100000")
            .collectAsList();
    assertTrue(rows.stream().allMatch(r -> r.getAs("module").equals(GMON[0][1])), "" + rows);
    long total =
        rows.stream().mapToLong(r -> ((BigDecimal) r.getAs("self_count")).longValueExact()).sum();
    assertEquals(gprof.samples(), total, "histogram samples of the day");
    Map<String, long[]> job = new TreeMap<>();
    for (Row r : rows) {
      assertEquals(share(r.getAs("self_count"), BigDecimal.valueOf(total), 2), r.getAs("self_pct"));
      job.put(
          GPROF_CLONE.matcher(r.<String>getAs("function")).replaceAll(""),
          new long[] {((BigDecimal) r.getAs("self_count")).longValueExact()});
    }
    Set<String> names = new TreeSet<>(job.keySet());
    gprof
        .seconds()
        .forEach(
            (name, seconds) -> {
              if (seconds > 0) {
                names.add(name);
              }
            });
    assertTrue(names.size() > 3, "functions with samples: " + names);
    for (String name : names) {
      long self = job.getOrDefault(name, new long[1])[0];
      assertEquals(
          gprof.seconds().getOrDefault(name, 0.0) / gprof.tick(), self, 1.01, "samples of " + name);
      assertEquals(
          gprof.percents().getOrDefault(name, 0.0),
          100.0 * self / total,
          100.0 / total + 0.011,
          "% time of " + name);
    }

    GprofFlat later = gprofFlat(GMON[1]);
    List<Row> latest =
        runByProfile("top-functions.sql", "format", "gprof", "limit", "100000").collectAsList();
    assertTrue(
        latest.stream()
            .allMatch(
                r ->
                    r.getAs("date").toString().equals(GMON[1][0])
                        && r.getAs("module").equals(GMON[1][1])),
        "" + latest);
    assertEquals(
        later.samples(),
        latest.stream()
            .mapToLong(r -> ((BigDecimal) r.getAs("self_count")).longValueExact())
            .sum());
  }

  /**
   * {@code function-trend.sql} over the two days: each day's share of a function is its self
   * (total) count over the day's samples, from {@code functions/}; a day without the function shows
   * it at 0 (deep_recursion's functions ran on the second day only).
   */
  @Test
  void functionTrendIsEachDaysShareOfFunctions() throws Exception {
    Map<String, BigDecimal> dayTotal = new TreeMap<>();
    Map<String, BigDecimal[]> counts = new TreeMap<>();
    Set<String> functions = new TreeSet<>();
    for (Row f :
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'gperftools' AND kind = 'sample'")
            .selectExpr("CAST(date AS STRING)", "function", "self_count", "total_count")
            .collectAsList()) {
      dayTotal.merge(f.getString(0), f.getDecimal(2), BigDecimal::add);
      if (!f.isNullAt(1)) {
        functions.add(f.getString(1));
        counts.merge(
            f.getString(1) + " on " + f.getString(0),
            new BigDecimal[] {f.getDecimal(2), f.getDecimal(3)},
            (a, b) -> new BigDecimal[] {a[0].add(b[0]), a[1].add(b[1])});
      }
    }
    assertEquals(List.of("2026-11-20", "2026-11-21"), List.copyOf(dayTotal.keySet()));
    assertTrue(
        functions.contains("spin") && !counts.containsKey("spin on 2026-11-20"),
        "a function of the second day only: " + counts.keySet());
    Map<String, String> want = new TreeMap<>();
    for (String function : functions) {
      dayTotal.forEach(
          (day, total) -> {
            BigDecimal[] c =
                counts.getOrDefault(
                    function + " on " + day, new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
            want.put(
                function + " on " + day,
                trendRow(c[0], share(c[0], total, 3), c[1], share(c[1], total, 3)));
          });
    }
    Map<String, String> got = new TreeMap<>();
    for (Row r : runFile("function-trend.sql", "function", "%").collectAsList()) {
      got.put(
          r.getAs("function") + " on " + r.getAs("date"),
          trendRow(
              r.getAs("self_count"),
              r.getAs("self_pct"),
              r.getAs("total_count"),
              r.getAs("total_pct")));
    }
    assertEquals(want, got);

    List<Row> spin = runFile("function-trend.sql", "function", "spin").collectAsList();
    assertEquals(
        List.of("2026-11-20", "2026-11-21"),
        spin.stream().map(r -> r.getAs("date").toString()).toList(),
        "one row a day, in order");
    assertEquals(0, ((BigDecimal) spin.get(0).getAs("self_count")).signum());
    assertEquals(1, ((BigDecimal) spin.get(1).getAs("self_count")).signum());
  }

  private static String trendRow(
      BigDecimal self, BigDecimal selfPct, BigDecimal total, BigDecimal totalPct) {
    return self + " self (" + selfPct + "%), " + total + " total (" + totalPct + "%)";
  }

  /** 100 * part / whole, rounded half up as Spark's round() does. */
  private static BigDecimal share(BigDecimal part, BigDecimal whole, int scale) {
    return part.multiply(BigDecimal.valueOf(100)).divide(whole, scale, RoundingMode.HALF_UP);
  }

  /**
   * How far a percentage pprof printed may be from the exact share: pprof prints 2 decimals (2
   * significant digits under 1%) and "100%" from 99.95% up.
   */
  private static double pprofRounding(double printed) {
    return printed == 100.0 ? 0.0501 : 0.0051;
  }

  private static PprofTop pprofTop(String profile) throws Exception {
    return PprofTop.of(SampleData.GPERFTOOLS.resolve(profile + ".prof"), gperftoolsBin(), tmp);
  }

  /** {@code gprof -b -p}: seconds per sample, samples in all, per function self s and % time. */
  private record GprofFlat(
      double tick, long samples, Map<String, Double> seconds, Map<String, Double> percents) {}

  private static GprofFlat gprofFlat(String[] gmon) throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(
            List.of(
                "gprof",
                "-b",
                "-p",
                gprofBin().resolve(gmon[1]).toString(),
                SampleData.gmonOut(gmon[2]).toAbsolutePath().toString()),
            tmp.resolve("home"),
            Map.of(),
            120);
    assertEquals(0, r.exit(), r.stderr());
    Matcher tick = GPROF_TICK.matcher(r.stdout());
    assertTrue(tick.find(), r.stdout());
    double seconds = Double.parseDouble(tick.group(1));
    Map<String, Double> self = new TreeMap<>();
    Map<String, Double> percents = new TreeMap<>();
    double cumulative = 0;
    for (String line : r.stdout().split("\n")) {
      Matcher m = GPROF_ROW.matcher(line);
      if (m.matches()) {
        String name = GPROF_CLONE.matcher(m.group(4).strip()).replaceAll("");
        percents.merge(name, Double.parseDouble(m.group(1)), Double::sum);
        self.merge(name, Double.parseDouble(m.group(3)), Double::sum);
        cumulative = Double.parseDouble(m.group(2));
      }
    }
    assertTrue(self.size() > 3, r.stdout());
    return new GprofFlat(seconds, Math.round(cumulative / seconds), self, percents);
  }

  @Test
  void variablesAreSubstitutedOrRefused() {
    assertEquals(
        "SELECT 'x', 'd'", SqlVariables.substitute("SELECT '${a}', '${b:-d}'", Map.of("a", "x")));
    Exception e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SqlVariables.substitute("SELECT ${nothing}", Map.of()));
    assertTrue(e.getMessage().contains("-d nothing="));
  }
}
