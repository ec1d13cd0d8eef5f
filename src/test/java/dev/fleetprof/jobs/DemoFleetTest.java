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
 * readelf shows no function (the PLT stubs).
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
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              SampleData.FLEET.toString(),
              "--output",
              out,
              "--binaries",
              SampleData.FLEET_BINARIES.toString()
            }));
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
    assertEquals(9, cpu.size(), cpu.toString());
    assertEquals(3, gmon.size(), gmon.toString());
    Pattern layout =
        Pattern.compile("date=\\d{4}-\\d\\d-\\d\\d/host=[a-z0-9-]+/program=[a-z-]+/.*");
    for (String p : concat(cpu, gmon)) {
      assertTrue(layout.matcher(p).matches(), p);
    }
    Map<String, BigDecimal> files = fileCounts();
    assertEquals(new TreeSet<>(concat(cpu, gmon)), files.keySet());
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
      assertEquals(Map.of("batch-1", 2L, "web-1", 1L, "web-2", 1L), files, date);
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
