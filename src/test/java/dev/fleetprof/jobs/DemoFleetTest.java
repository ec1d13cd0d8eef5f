package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quick start's job on the demo fleet ({@code sample-fleet}, with its binaries), checked
 * against what pprof and gprof printed for each profile when it was made ({@code
 * sample-fleet/_reference/}): every file's samples, every host of every day in {@code by-host.sql},
 * the functions pprof names, and no location of the demo's own modules left unnamed except where
 * readelf shows no function (the PLT stubs). The Go gateway's pprof profiles name their own
 * functions: its CPU time, in nanoseconds, is checked against {@code go tool pprof
 * -sample_index=cpu} and joins the C programs' CPU time; its heap profile stays a measure of its
 * own.
 */
class DemoFleetTest {
  private static final List<String> DATES = List.of("2026-11-19", "2026-11-20", "2026-11-21");
  private static final List<String> DEMO_MODULES =
      List.of("api-server", "indexer", "report-gen", "libfleetwork.so");

  private static SparkSession spark;
  private static Path tmp;
  private static String out;

  @BeforeAll
  static void aggregate() throws Exception {
    spark = TestSpark.get();
    tmp = Files.createTempDirectory("demo-fleet");
    out = tmp.resolve("out").toString();
    DemoFleet.aggregate(spark, Path.of(out));
  }

  @AfterAll
  static void cleanUp() throws Exception {
    try (Stream<Path> s = Files.walk(tmp)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** The fleet's profiles, as paths below {@code sample-fleet} ({@code date=.../cpu.prof}). */
  private static List<String> profiles(String name) throws Exception {
    try (Stream<Path> s = Files.walk(SampleData.FLEET)) {
      return s.filter(p -> p.getFileName().toString().equals(name))
          .filter(p -> !p.startsWith(SampleData.FLEET_REFERENCE))
          .map(p -> SampleData.FLEET.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  /** A reference file saved for the profile at {@code relative} (its partition directories). */
  private static Path reference(String tool, String relative, String name) {
    return SampleData.FLEET_REFERENCE
        .resolve(tool)
        .resolve(Path.of(relative).getParent())
        .resolve(name);
  }

  /** files/ rows by path below sample-fleet: the count column. */
  private static Map<String, BigDecimal> fileCounts() {
    Map<String, BigDecimal> out = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(DemoFleetTest.out + "/files")
            .select("path", "count")
            .collectAsList()) {
      String path = r.getString(0);
      out.put(
          path.substring(path.indexOf("/sample-fleet/") + "/sample-fleet/".length()),
          r.getDecimal(1));
    }
    return out;
  }

  @Test
  void everyLayoutLeafHasTheSameKeysAndTheRunReadEveryFile() throws Exception {
    List<String> cpu = profiles("cpu.prof");
    List<String> gmon = profiles("gmon.out");
    List<String> goCpu = profiles("cpu.pprof");
    List<String> goHeap = profiles("heap.pprof");
    assertEquals(9, cpu.size(), cpu.toString());
    assertEquals(3, gmon.size(), gmon.toString());
    assertEquals(3, goCpu.size(), goCpu.toString());
    assertEquals(
        List.of(SampleData.fleetProfile("2026-11-21", "edge-1", "gateway", "heap.pprof")), goHeap);
    List<String> all = concat(concat(cpu, gmon), concat(goCpu, goHeap));
    Pattern layout =
        Pattern.compile(
            "date=\\d{4}-\\d\\d-\\d\\d/host=[a-z0-9-]+/program=[a-z-]+/version=\\d+\\.\\d+/.*");
    for (String p : all) {
      assertTrue(layout.matcher(p).matches(), p);
    }
    Map<String, BigDecimal> files = fileCounts();
    assertEquals(new TreeSet<>(all), files.keySet());
    List<Row> formats =
        spark
            .read()
            .parquet(out + "/files")
            .where("path LIKE '%/program=gateway/%' AND format <> 'pprof'")
            .collectAsList();
    assertTrue(formats.isEmpty(), "the Go profiles are read as pprof: " + formats);
    List<Row> problems = spark.read().parquet(out + "/files").where("problems > 0").collectAsList();
    assertTrue(problems.isEmpty(), problems.toString());
  }

  @Test
  void everyProfilesSamplesEqualPprofRaw() throws Exception {
    Map<String, BigDecimal> files = fileCounts();
    Map<String, Long> want = new TreeMap<>();
    Map<String, Long> got = new TreeMap<>();
    for (String p : profiles("cpu.prof")) {
      want.put(p, PprofRaw.read(reference("pprof", p, "cpu.pprof-raw.txt")).totalSamples());
      got.put(p, files.get(p).longValueExact());
    }
    assertEquals(want, got);
  }

  /** gprof's flat profile: the last cumulative seconds, at its 0.01 s per sample. */
  private static long gprofHistogramSamples(Path flat) throws Exception {
    double seconds = 0;
    for (String line : Files.readAllLines(flat)) {
      String[] f = line.strip().split("\\s+");
      if (f.length >= 3 && f[0].matches("\\d+\\.\\d+") && f[1].matches("\\d+\\.\\d+")) {
        seconds = Math.max(seconds, Double.parseDouble(f[1]));
      }
    }
    assertTrue(Files.readString(flat).contains("Each sample counts as 0.01 seconds."));
    return Math.round(seconds * 100);
  }

  @Test
  void gmonHistogramsEqualGprof() throws Exception {
    for (String p : profiles("gmon.out")) {
      String date = p.substring("date=".length(), "date=".length() + 10);
      BigDecimal got =
          spark
              .read()
              .parquet(out + "/stacks")
              .where("format = 'gprof' AND kind = 'histogram' AND date = '" + date + "'")
              .selectExpr("sum(count)")
              .first()
              .getDecimal(0);
      assertEquals(
          gprofHistogramSamples(reference("gprof", p, "gprof-p.txt")), got.longValueExact(), p);
    }
  }

  @Test
  void byHostSeesEveryHostEveryDay() throws Exception {
    for (String date : DATES) {
      Map<String, Long> files = new TreeMap<>();
      for (Row r : SqlFiles.run(spark, out, "by-host.sql", "date", date).collectAsList()) {
        files.put(r.getAs("host"), r.getAs("files"));
      }
      // edge-1's gateway writes a heap profile beside its CPU profile on the last day.
      long edge = date.equals("2026-11-21") ? 2L : 1L;
      assertEquals(Map.of("batch-1", 2L, "edge-1", edge, "web-1", 1L, "web-2", 1L), files, date);
    }
  }

  // "     222ms 62.54% 62.54%      222ms 62.54%  escape_field"
  private static final Pattern TOP_ROW =
      Pattern.compile(
          "^\\s*([\\d.]+)(ms|s|us)?\\s+[\\d.]+%\\s+[\\d.]+%\\s+\\S+\\s+[\\d.]+%\\s+(.+)$");

  private static long samples(String amount, String unit) {
    double v = Double.parseDouble(amount);
    double ms = unit == null ? v : unit.equals("s") ? v * 1000 : unit.equals("us") ? v / 1000 : v;
    return Math.round(ms); // period 1000 us: one sample per millisecond
  }

  @Test
  void functionsPprofNamesHaveItsFlatCountsEachDay() throws Exception {
    for (String date : DATES) {
      Map<String, Long> want = new TreeMap<>();
      for (String p : profiles("cpu.prof")) {
        if (!p.startsWith("date=" + date + "/")) {
          continue;
        }
        for (String line : Files.readAllLines(reference("pprof", p, "cpu.pprof-top.txt"))) {
          Matcher m = TOP_ROW.matcher(line);
          if (m.matches() && !m.group(3).startsWith("[")) {
            want.merge(m.group(3).strip(), samples(m.group(1), m.group(2)), Long::sum);
          }
        }
      }
      assertTrue(want.containsKey("escape_field"), want.toString());
      Map<String, Long> got = new TreeMap<>();
      for (Row r :
          spark
              .read()
              .parquet(out + "/functions")
              .where(
                  "format = 'gperftools' AND kind = 'sample' AND function IS NOT NULL"
                      + " AND date = '"
                      + date
                      + "'")
              .groupBy("function")
              .agg(org.apache.spark.sql.functions.sum("self_count"))
              .collectAsList()) {
        if (want.containsKey(r.getString(0))) {
          got.put(r.getString(0), r.getDecimal(1).longValueExact());
        }
      }
      assertEquals(want, got, date);
    }
  }

  @Test
  void theLastDaysRegressionShows() {
    Map<String, Long> escapeField = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'gperftools' AND function = 'escape_field'")
            .selectExpr("CAST(date AS STRING)", "CAST(self_count AS BIGINT)")
            .collectAsList()) {
      escapeField.put(r.getString(0), r.getLong(1));
    }
    assertTrue(
        escapeField.get("2026-11-21") > 3 * escapeField.get("2026-11-20"),
        "escape_field grew on the last day: " + escapeField);
  }

  // "      25ms 21.55% 98.28%       25ms 21.55%  escape_field": flat, its unit, cum, its unit, name
  private static final Pattern TOP_ROW_CUM =
      Pattern.compile(
          "^\\s*([\\d.]+)(ms|s|us)?\\s+[\\d.]+%\\s+[\\d.]+%\\s+([\\d.]+)(ms|s|us)?\\s+[\\d.]+%\\s+(.+)$");

  /** The functions a saved {@code pprof -top} names (not [module]): name -> "flat, cum" samples. */
  private static Map<String, String> pprofNamed(String profile) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (String line : Files.readAllLines(reference("pprof", profile, "cpu.pprof-top.txt"))) {
      Matcher m = TOP_ROW_CUM.matcher(line);
      if (m.matches() && !m.group(5).startsWith("[")) {
        out.put(
            m.group(5).strip(),
            samples(m.group(1), m.group(2)) + ", " + samples(m.group(3), m.group(4)));
      }
    }
    assertTrue(out.containsKey("main"), profile + ": " + out);
    return out;
  }

  /** top-functions.sql's self and total samples of the functions named in {@code want}. */
  private static Map<String, String> topFunctions(Map<String, String> want, String... defines)
      throws Exception {
    Map<String, long[]> sums = new TreeMap<>();
    for (Row r : SqlFiles.run(spark, out, "top-functions.sql", defines).collectAsList()) {
      if (want.containsKey(r.<String>getAs("function"))) {
        long[] v = sums.computeIfAbsent(r.getAs("function"), k -> new long[2]);
        v[0] += ((BigDecimal) r.getAs("self_count")).longValueExact();
        v[1] += ((BigDecimal) r.getAs("total_count")).longValueExact();
      }
    }
    Map<String, String> got = new TreeMap<>();
    sums.forEach((f, v) -> got.put(f, v[0] + ", " + v[1]));
    return got;
  }

  /**
   * {@code top-functions.sql -d host=} and {@code -d program=}: on each day, a web host's functions
   * are {@code pprof -top} of its api-server profile (flat and cum of the functions pprof names),
   * and batch-1's indexer's are those of its profile, without report-gen's gmon.out beside it.
   */
  @Test
  void topFunctionsOfOneHostOrProgramAreItsPprofTop() throws Exception {
    for (String date : DATES) {
      for (String host : List.of("web-1", "web-2")) {
        Map<String, String> want =
            pprofNamed(SampleData.fleetProfile(date, host, "api-server", "cpu.prof"));
        assertEquals(want, topFunctions(want, "date", date, "host", host), host + " on " + date);
      }
      Map<String, String> want =
          pprofNamed(SampleData.fleetProfile(date, "batch-1", "indexer", "cpu.prof"));
      assertEquals(want, topFunctions(want, "date", date, "program", "indexer"), date);
      assertEquals(
          want,
          topFunctions(want, "date", date, "program", "/opt/demo/bin/indexer", "host", "batch-1"),
          "a program given by its path, with its host");
      for (Row r :
          SqlFiles.run(spark, out, "top-functions.sql", "date", date, "program", "indexer")
              .collectAsList()) {
        assertTrue(!"report-gen".equals(r.getAs("module")), "only indexer's stacks: " + r);
      }
    }
  }

  /**
   * The demo's story per function: {@code diff-dates.sql} puts escape_field first among what grew
   * on the last day, web-2 named as where it grew; {@code -d host=web-2} shows its share of web-2's
   * time going from pprof's 21.55% to 62.54%.
   */
  @Test
  void diffDatesPutsEscapeFieldFirstAndNamesWeb2() throws Exception {
    Row fleet = SqlFiles.run(spark, out, "diff-dates.sql", "limit", "20").first();
    assertEquals("2026-11-21", fleet.getAs("date").toString(), fleet.toString());
    assertEquals("2026-11-20", fleet.getAs("base").toString(), fleet.toString());
    assertEquals("escape_field", fleet.getAs("function"), fleet.toString());
    assertEquals("api-server", fleet.getAs("module"), fleet.toString());
    assertEquals("grew", fleet.getAs("change"), fleet.toString());
    assertTrue(
        fleet.<String>getAs("hosts").matches("web-2 \\+\\d+\\.\\d\\dpp(, .*)?"), fleet.toString());

    Row web2 = SqlFiles.run(spark, out, "diff-dates.sql", "host", "web-2").first();
    assertEquals("escape_field", web2.getAs("function"), web2.toString());
    // pprof -top of web-2's profiles: 25 of 116 samples, then 222 of 355
    assertEquals(21.552, ((BigDecimal) web2.getAs("base_self_pct")).doubleValue(), 1e-9, "" + web2);
    assertEquals(62.535, ((BigDecimal) web2.getAs("self_pct")).doubleValue(), 1e-9, "" + web2);
    assertEquals(40.983, ((BigDecimal) web2.getAs("self_delta")).doubleValue(), 1e-9, "" + web2);
    assertEquals("web-2 +40.98pp", web2.getAs("hosts"), web2.toString());

    Row apiServer = SqlFiles.run(spark, out, "diff-dates.sql", "program", "api-server").first();
    assertEquals("escape_field", apiServer.getAs("function"), apiServer.toString());
    assertTrue(apiServer.<String>getAs("hosts").startsWith("web-2 +"), apiServer.toString());
  }

  /**
   * The regression by version, as the README asks it: on the last day, api-server 1.5 (web-2)
   * against 1.4 (web-1) puts escape_field first, with its share of each version's time as pprof
   * -top of each version's profile gives it.
   */
  @Test
  void diffByVersionFindsTheRegressionInApiServer15() throws Exception {
    Row first =
        SqlFiles.run(
                spark,
                out,
                "diff-dates.sql",
                "program",
                "api-server",
                "by",
                "version",
                "base",
                "1.4")
            .first();
    assertEquals("escape_field", first.getAs("function"), first.toString());
    assertEquals("grew", first.getAs("change"), first.toString());
    assertEquals("version=1.4", first.getAs("base"), first.toString());
    assertEquals("2026-11-21", first.getAs("date").toString(), first.toString());
    Map<String, String> newer =
        pprofNamed(SampleData.fleetProfile("2026-11-21", "web-2", "api-server", "cpu.prof"));
    Map<String, String> older =
        pprofNamed(SampleData.fleetProfile("2026-11-21", "web-1", "api-server", "cpu.prof"));
    assertEquals(
        100.0 * selfSamples(newer.get("escape_field")) / pprofTotal("2026-11-21", "web-2"),
        ((BigDecimal) first.getAs("self_pct")).doubleValue(),
        5e-4,
        first.toString());
    assertEquals(
        100.0 * selfSamples(older.get("escape_field")) / pprofTotal("2026-11-21", "web-1"),
        ((BigDecimal) first.getAs("base_self_pct")).doubleValue(),
        5e-4,
        first.toString());
  }

  /** The flat samples in a {@link #pprofNamed} value ("flat, cum"). */
  private static long selfSamples(String flatAndCum) {
    return Long.parseLong(flatAndCum.split(", ")[0]);
  }

  /** pprof's total samples of a day's api-server profile of a host. */
  private static long pprofTotal(String date, String host) {
    return PprofRaw.read(
            reference(
                "pprof",
                SampleData.fleetProfile(date, host, "api-server", "cpu.prof"),
                "cpu.pprof-raw.txt"))
        .totalSamples();
  }

  /**
   * {@code -d host=web-2}'s functions, computed from host_stacks/ and locations/, are the
   * functions/ of the fleet job run on web-2's directories alone, each day.
   */
  @Test
  void hostFunctionsOfWeb2AreAJobOfWeb2Alone() throws Exception {
    // web-2's files alone, laid out as in the fleet (one input: its date= and host= directories)
    Path web2 = tmp.resolve("web-2-in");
    for (String p : profiles("cpu.prof")) {
      if (p.contains("/host=web-2/")) {
        Path to = web2.resolve(p);
        Files.createDirectories(to.getParent());
        Files.copy(SampleData.FLEET.resolve(p), to);
      }
    }
    String alone = tmp.resolve("web-2-alone").toString();
    List<String> argv =
        List.of(
            "--input",
            web2.toAbsolutePath().toString(),
            "--output",
            alone,
            "--binaries",
            SampleData.FLEET_BINARIES.toAbsolutePath().toString());
    FleetAggregate.run(spark, FleetAggregate.Args.parse(argv.toArray(new String[0])));
    for (String date : DATES) {
      SqlFiles.run(spark, out, "top-functions.sql", "date", date, "host", "web-2");
      HostFunctions.assertSame(
          "web-2 on " + date,
          HostFunctions.of(spark, alone, List.of(date), "cpu"),
          HostFunctions.summed(spark));
      assertEquals(
          new TreeSet<>(
              SqlFiles.run(spark, alone, "top-functions.sql", "date", date).collectAsList().stream()
                  .map(Row::toString)
                  .toList()),
          new TreeSet<>(
              SqlFiles.run(spark, out, "top-functions.sql", "date", date, "host", "web-2")
                  .collectAsList()
                  .stream()
                  .map(Row::toString)
                  .toList()),
          "top-functions.sql -d host=web-2 on " + date);
    }
  }

  /** edge-1's gateway's file of a day, below sample-fleet. */
  private static String gateway(String date, String file) {
    return SampleData.fleetProfile(date, "edge-1", "gateway", file);
  }

  private static final String CPU_TOP = "cpu.pprof-top.txt";
  private static final String HEAP_TOP = "heap.pprof-top.txt";

  /** The sum of one sample type's values (e.g. {@code cpu}) in a saved {@code pprof -raw} dump. */
  private static long rawTotal(Path raw, String type) throws Exception {
    // "samples/count cpu/nanoseconds": the sample types, in the order of each sample's values
    String header =
        Files.readAllLines(raw).stream()
            .map(String::strip)
            .filter(l -> l.matches("\\S+/\\S+( \\S+/\\S+)*"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(raw + ": no sample types line"));
    List<String> types = new ArrayList<>();
    for (String t : header.split(" ")) {
      types.add(t.substring(0, t.indexOf('/')));
    }
    int index = types.indexOf(type);
    assertTrue(index >= 0, raw + ": no sample type " + type + " in " + header);
    return PprofRaw.read(raw).samples.stream().mapToLong(s -> s.values().get(index)).sum();
  }

  /**
   * What a saved {@code go tool pprof -top -unit=ns|B} printed: the total and per row flat, cum.
   */
  private record Top(long total, Map<String, List<Long>> rows) {}

  // "90000000ns 13.85% 13.85% 90000000ns 13.85%  crypto/sha256.block", the name maybe followed by
  // " (inline)" or " (partial-inline)" (how the function was reached, not part of its name)
  private static final Pattern UNIT_TOP_ROW =
      Pattern.compile(
          "^\\s*(\\d+)(?:ns|B)?\\s+[\\d.]+%\\s+[\\d.]+%\\s+(\\d+)(?:ns|B)?\\s+[\\d.]+%\\s+(.+?)"
              + "(?: \\((?:partial-)?inline\\))?$");
  private static final Pattern UNIT_TOP_TOTAL =
      Pattern.compile(
          "Showing nodes accounting for \\d+(?:ns|B)?, [\\d.]+% of (\\d+)(?:ns|B)? total");

  private static Top top(Path file) throws Exception {
    String text = Files.readString(file);
    Matcher total = UNIT_TOP_TOTAL.matcher(text);
    assertTrue(total.find(), file + ": no total");
    Map<String, List<Long>> rows = new TreeMap<>();
    for (String line : text.split("\n")) {
      Matcher m = UNIT_TOP_ROW.matcher(line);
      if (m.matches()) {
        List<Long> prev =
            rows.put(
                m.group(3).strip(),
                List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
        assertEquals(null, prev, file + ": two rows for " + m.group(3));
      }
    }
    assertTrue(!rows.isEmpty(), file + ": no rows");
    return new Top(Long.parseLong(total.group(1)), rows);
  }

  /** The rows pprof names (not {@code [module]}): function -> [flat, cum]. */
  private static Map<String, List<Long>> named(Top top) {
    Map<String, List<Long>> out = new TreeMap<>(top.rows());
    out.keySet().removeIf(n -> n.startsWith("["));
    return out;
  }

  /** functions/ of the pprof rows of one day and measure: function -> [self_value, total_value]. */
  private static Map<String, List<Long>> pprofFunctions(String date, String measure) {
    Map<String, List<Long>> byFunction = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/functions")
            .where(
                "format = 'pprof' AND function IS NOT NULL AND date = '"
                    + date
                    + "' AND measure = '"
                    + measure
                    + "'")
            .groupBy("function")
            .agg(
                org.apache.spark.sql.functions.sum("self_value"),
                org.apache.spark.sql.functions.sum("total_value"))
            .collectAsList()) {
      byFunction.put(
          r.getString(0),
          List.of(r.getDecimal(1).longValueExact(), r.getDecimal(2).longValueExact()));
    }
    return byFunction;
  }

  @Test
  void goProfilesTotalsEqualPprof() throws Exception {
    Map<String, List<BigDecimal>> want = new TreeMap<>();
    Map<String, List<BigDecimal>> got = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/files")
            .where("path LIKE '%/program=gateway/%'")
            .select("path", "count", "cpu_nanoseconds")
            .collectAsList()) {
      String path = r.getString(0);
      got.put(
          path.substring(path.indexOf("/sample-fleet/") + "/sample-fleet/".length()),
          java.util.Arrays.asList(r.getDecimal(1), r.getDecimal(2)));
    }
    for (String p : profiles("cpu.pprof")) {
      long raw = rawTotal(reference("pprof", p, "cpu.pprof-raw.txt"), "cpu");
      assertEquals(raw, top(reference("pprof", p, "cpu.pprof-top.txt")).total(), p);
      // a Go CPU profile counts samples (its samples sample type) and its cpu values, in
      // nanoseconds, are all CPU time
      long samples = rawTotal(reference("pprof", p, "cpu.pprof-raw.txt"), "samples");
      want.put(p, List.of(BigDecimal.valueOf(samples), BigDecimal.valueOf(raw)));
    }
    for (String p : profiles("heap.pprof")) {
      long raw = rawTotal(reference("pprof", p, "heap.pprof-raw.txt"), "inuse_space");
      assertEquals(raw, top(reference("pprof", p, "heap.pprof-top.txt")).total(), p);
      // the heap's default sample type, in bytes: no CPU time
      want.put(p, java.util.Arrays.asList(BigDecimal.valueOf(raw), null));
    }
    assertEquals(want, got);
  }

  /**
   * The Go functions as pprof names them, with its values: CPU time in nanoseconds each day, the
   * heap's bytes in use on the last, and top-functions.sql's CPU ranking of them.
   */
  @Test
  void goFunctionsHavePprofsNamesAndValues() throws Exception {
    for (String date : DATES) {
      Map<String, List<Long>> want =
          named(top(reference("pprof", gateway(date, "cpu.pprof"), CPU_TOP)));
      assertEquals(want, pprofFunctions(date, "cpu"), date);
      // the gateway signs its responses from the last day on
      assertEquals(date.equals("2026-11-21"), want.containsKey("main.sign"), date);
    }
    String date = "2026-11-21";
    // pprof leaves out what has no bytes in use (objects allocated and freed since)
    Map<String, List<Long>> heap = pprofFunctions(date, "inuse_space");
    heap.values().removeIf(v -> v.get(1) == 0);
    assertEquals(named(top(reference("pprof", gateway(date, "heap.pprof"), HEAP_TOP))), heap);
    Map<String, Long> want = new TreeMap<>();
    named(top(reference("pprof", gateway(date, "cpu.pprof"), CPU_TOP)))
        .forEach((f, v) -> want.put(f, v.get(0)));
    Map<String, Long> got = new TreeMap<>();
    for (Row r : SqlFiles.run(spark, out, "top-functions.sql", "date", date).collectAsList()) {
      if ("gateway".equals(r.getAs("module"))) {
        // self is CPU time in seconds (unit s): nanoseconds to the millisecond, as Go samples are
        got.put(
            r.getAs("function"), ((BigDecimal) r.getAs("self")).movePointRight(9).longValueExact());
      }
    }
    assertEquals(want, got, "top-functions.sql: the gateway's functions with their CPU time");
    // named one by one, none of them outranks the regression (unnamed, the gateway's 0.65 s do)
    Row first = SqlFiles.run(spark, out, "top-functions.sql", "date", date, "limit", "1").first();
    assertEquals("escape_field", first.getAs("function"), first.toString());
  }

  @Test
  void theHeapProfileIsAMeasureOfItsOwn() throws Exception {
    String date = "2026-11-21";
    List<Row> measures =
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'pprof' AND measure <> 'cpu'")
            .selectExpr("CAST(date AS STRING)", "measure", "unit")
            .distinct()
            .collectAsList();
    assertEquals(
        List.of(date + " inuse_space bytes"),
        measures.stream().map(r -> r.mkString(" ")).toList(),
        "only the heap profile has another measure than cpu");
    List<Row> cpuUnits =
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'pprof' AND measure = 'cpu' AND unit <> 'nanoseconds'")
            .collectAsList();
    assertTrue(cpuUnits.isEmpty(), cpuUnits.toString());

    // top-functions.sql ranks CPU time: the gateway's rows (its only mapping) add up to its CPU
    // profile's time, in seconds, with none of the heap's bytes
    long cpuNanos =
        rawTotal(reference("pprof", gateway(date, "cpu.pprof"), "cpu.pprof-raw.txt"), "cpu");
    long gatewaySelf = 0;
    Set<String> units = new TreeSet<>();
    for (Row r : SqlFiles.run(spark, out, "top-functions.sql", "date", date).collectAsList()) {
      units.add(r.getAs("unit"));
      if ("gateway".equals(r.getAs("module"))) {
        gatewaySelf += ((BigDecimal) r.getAs("self")).movePointRight(9).longValueExact();
      }
    }
    assertEquals(Set.of("s"), units);
    assertEquals(cpuNanos, gatewaySelf);

    // nor do its bytes add to edge-1's CPU time in by-host.sql
    BigDecimal edgeSeconds = null;
    for (Row r : SqlFiles.run(spark, out, "by-host.sql", "date", date).collectAsList()) {
      if ("edge-1".equals(r.getAs("host"))) {
        assertEquals("s", r.getAs("unit"));
        edgeSeconds = r.getAs("value");
      }
    }
    assertEquals(
        0, BigDecimal.valueOf(cpuNanos, 9).compareTo(edgeSeconds), "edge-1: " + edgeSeconds);
  }

  @Test
  void topFunctionsListsGoFunctionsBesideCOnes() throws Exception {
    List<Row> top =
        SqlFiles.run(spark, out, "top-functions.sql", "date", "2026-11-21", "limit", "20")
            .collectAsList();
    Set<String> modules = new TreeSet<>();
    for (Row r : top) {
      modules.add(r.getAs("module"));
    }
    assertTrue(modules.contains("gateway"), modules.toString());
    assertTrue(
        modules.contains("api-server") && modules.contains("libfleetwork.so"), modules.toString());
  }

  /** Where readelf puts the PLT stubs of a binary: [file offset, end) of each .plt* section. */
  private static List<long[]> pltRanges(Path binary) throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(
            List.of("readelf", "-SW", binary.toString()), tmp.resolve("home"), Map.of(), 60);
    assertEquals(0, r.exit(), r.stderr());
    List<long[]> out = new ArrayList<>();
    // "  [13] .plt   PROGBITS   0000000000001020 001020 0000d0 10  AX  0   0 16"
    Matcher m =
        Pattern.compile("\\] (\\.plt\\S*)\\s+\\S+\\s+\\p{XDigit}+ (\\p{XDigit}+) (\\p{XDigit}+)")
            .matcher(r.stdout());
    while (m.find()) {
      long off = Long.parseLong(m.group(2), 16);
      out.add(new long[] {off, off + Long.parseLong(m.group(3), 16)});
    }
    return out;
  }

  @Test
  void theDemoModulesHaveNoUnnamedLocationOutsideThePlt() throws Exception {
    ExternalTool.require("readelf", "binutils");
    Set<String> seen = new TreeSet<>();
    List<String> unnamed = new ArrayList<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/locations")
            .selectExpr("module", "offset", "lines IS NULL OR size(lines) = 0")
            .collectAsList()) {
      String module = r.isNullAt(0) ? "" : r.getString(0);
      String base = module.substring(module.lastIndexOf('/') + 1);
      if (!DEMO_MODULES.contains(base)) {
        continue;
      }
      seen.add(base);
      if (r.getBoolean(2)) {
        long offset = r.getLong(1);
        boolean inPlt =
            pltRanges(SampleData.FLEET_BINARIES.resolve(base)).stream()
                .anyMatch(p -> offset >= p[0] && offset < p[1]);
        if (!inPlt) {
          unnamed.add(module + "+0x" + Long.toHexString(offset));
        }
      }
    }
    assertEquals(new TreeSet<>(DEMO_MODULES), seen, "every demo module has samples");
    assertTrue(unnamed.isEmpty(), "unnamed locations: " + unnamed);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
