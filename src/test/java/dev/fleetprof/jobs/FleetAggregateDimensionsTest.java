package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fleet laid out by service, version and region above its hosts (the demo fleet's real gperftools
 * and Go profiles, copied into such directories): the per-host datasets carry each file's levels in
 * {@code dimensions}, and the samples per dimension value equal what {@code go tool pprof -raw}
 * counts in the matching files merged.
 */
class FleetAggregateDimensionsTest {
  private static final String DATE = "2026-11-20";

  /** Where each profile goes (below {@code date=DATE/}), from where in {@code sample-fleet}. */
  private static final Map<String, String> LAYOUT = new LinkedHashMap<>();

  static {
    // version=4.10 would be the DOUBLE 4.1 in Spark's partition type inference.
    LAYOUT.put(
        "service=api/version=4.10/region=eu-west/host=web-1/cpu.prof",
        SampleData.fleetProfile("2026-11-20", "web-1", "api-server", "cpu.prof"));
    // web-1 runs two versions that day: two rows per stack for one host.
    LAYOUT.put(
        "service=api/version=4.12.1/region=eu-west/host=web-1/cpu.prof",
        SampleData.fleetProfile("2026-11-19", "web-1", "api-server", "cpu.prof"));
    // An escaped value: us%3Deast is "us=east".
    LAYOUT.put(
        "service=api/version=4.12.1/region=us%3Deast/host=web-2/cpu.prof",
        SampleData.fleetProfile("2026-11-21", "web-2", "api-server", "cpu.prof"));
    LAYOUT.put(
        "service=indexer/version=4.10/region=eu-west/host=batch-1/cpu.prof",
        SampleData.fleetProfile("2026-11-20", "batch-1", "indexer", "cpu.prof"));
    LAYOUT.put(
        "service=gateway/version=1.0/region=us%3Deast/host=edge-1/cpu.pprof",
        SampleData.fleetProfile("2026-11-20", "edge-1", "gateway", "cpu.pprof"));
  }

  private static SparkSession spark;
  private static Path tmp;
  private static Path fleet;
  private static String out;
  private static FleetSummary summary;

  @BeforeAll
  static void aggregate() throws Exception {
    spark = TestSpark.get();
    tmp = Files.createTempDirectory("dimensions");
    fleet = tmp.resolve("fleet");
    for (Map.Entry<String, String> e : LAYOUT.entrySet()) {
      Path to = fleet.resolve("date=" + DATE).resolve(e.getKey());
      Files.createDirectories(to.getParent());
      Files.copy(SampleData.FLEET.resolve(e.getValue()), to);
    }
    out = tmp.resolve("out").toString();
    summary =
        run(
            "--input",
            fleet.toString(),
            "--output",
            out,
            "--binaries",
            SampleData.FLEET_BINARIES.toString());
  }

  @AfterAll
  static void cleanUp() throws Exception {
    try (Stream<Path> s = Files.walk(tmp)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static FleetSummary run(String... argv) throws Exception {
    return FleetAggregate.run(spark, FleetAggregate.Args.parse(argv));
  }

  /** The dimensions a file's path gives: its levels between the date and the host, unescaped. */
  private static Map<String, String> dimensionsOf(String layout) {
    Map<String, String> out = new TreeMap<>();
    for (String level : layout.split("/")) {
      int eq = level.indexOf('=');
      if (eq > 0 && !level.startsWith("host=")) {
        out.put(level.substring(0, eq), level.substring(eq + 1).replace("%3D", "="));
      }
    }
    return out;
  }

  /** A row's dimensions, checked to be sorted by key. */
  private static Map<String, String> dimensionsOf(Row r) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Row d : r.<Row>getList(r.fieldIndex("dimensions"))) {
      out.put(d.getString(0), d.getString(1));
    }
    assertEquals(List.copyOf(new TreeMap<>(out).keySet()), List.copyOf(out.keySet()), "sorted");
    return out;
  }

  @Test
  void everyFileHasItsPathsLevelsAsWritten() {
    Map<String, Map<String, String>> want = new TreeMap<>();
    for (String layout : LAYOUT.keySet()) {
      want.put("date=" + DATE + "/" + layout, dimensionsOf(layout));
    }
    Map<String, Map<String, String>> got = new TreeMap<>();
    for (Row r : spark.read().parquet(out + "/files").collectAsList()) {
      String path = r.getString(r.fieldIndex("path"));
      got.put(path.substring(path.indexOf("/date=") + 1), dimensionsOf(r));
    }
    assertEquals(want, got);
    assertEquals(
        Map.of("service", 3L, "version", 3L, "region", 2L),
        summary.dimensionValues(),
        "the summary's number of values per dimension");
  }

  /**
   * What {@code go tool pprof -raw} counts in the files merged: the samples of every sample. A
   * binary is named first, as gperftools users do: pprof takes its first argument for the
   * executable when it can open it as one, and it opens a gperftools profile so, which then drops
   * out of the merge.
   */
  private static long pprofSamples(List<Path> files) throws Exception {
    List<String> args = new ArrayList<>(List.of("-raw", binaryFirst()));
    files.forEach(f -> args.add(f.toAbsolutePath().toString()));
    return PprofRaw.parse(pprof(args)).totalSamples();
  }

  /** The executable named first on pprof's command line (see {@link #pprofSamples}). */
  private static String binaryFirst() {
    return SampleData.FLEET_BINARIES.resolve("api-server").toAbsolutePath().toString();
  }

  /** What {@code go tool pprof ARGS} prints; it must succeed. */
  private static String pprof(List<String> args) throws Exception {
    return pprof(tmp, args);
  }

  /** What {@code go tool pprof ARGS} prints, run with its home and temporary files in work. */
  static String pprof(Path work, List<String> args) throws Exception {
    Path go = ExternalTool.require("go", "golang-go");
    List<String> cmd = new ArrayList<>(List.of(go.toString(), "tool", "pprof"));
    cmd.addAll(args);
    ExternalTool.Result r =
        ExternalTool.run(
            cmd,
            work.resolve("home"),
            Map.of("PPROF_TMPDIR", work.resolve("pprof-tmp").toString()),
            300);
    assertEquals(0, r.exit(), r.stderr());
    return r.stdout();
  }

  /**
   * Per value of each dimension, the samples of {@code host_stacks/} and of {@code modules/}' leaf
   * rows equal {@code go tool pprof -raw} of the files with that value, merged (one format per
   * value here: pprof merges only profiles of the same sample types).
   */
  @Test
  void samplesPerDimensionValueEqualPprofOfTheMatchingFiles() throws Exception {
    Dataset<Row> hostStacks = spark.read().parquet(out + "/host_stacks");
    Dataset<Row> modules = spark.read().parquet(out + "/modules");
    for (String dimension : List.of("service", "version", "region")) {
      Map<String, List<Path>> files = new TreeMap<>();
      for (String layout : LAYOUT.keySet()) {
        files
            .computeIfAbsent(dimensionsOf(layout).get(dimension), k -> new ArrayList<>())
            .add(fleet.resolve("date=" + DATE).resolve(layout));
      }
      Map<String, Long> want = new TreeMap<>();
      for (Map.Entry<String, List<Path>> e : files.entrySet()) {
        List<Path> gperftools = e.getValue().stream().filter(p -> p.endsWith("cpu.prof")).toList();
        List<Path> go = e.getValue().stream().filter(p -> p.endsWith("cpu.pprof")).toList();
        want.put(
            e.getKey(),
            (gperftools.isEmpty() ? 0 : pprofSamples(gperftools))
                + (go.isEmpty() ? 0 : pprofSamples(go)));
      }
      String value = "map_from_entries(dimensions)['" + dimension + "']";
      assertEquals(want, sums(hostStacks, value, "count"), dimension + " in host_stacks/");
      assertEquals(want, sums(modules, value, "self_count"), dimension + " in modules/");
    }
  }

  private static Map<String, Long> sums(Dataset<Row> d, String key, String column) {
    Map<String, Long> out = new TreeMap<>();
    for (Row r :
        d.where("measure = 'cpu'")
            .groupBy(org.apache.spark.sql.functions.expr(key))
            .agg(org.apache.spark.sql.functions.sum(column))
            .collectAsList()) {
      out.put(r.getString(0), ((BigDecimal) r.get(1)).longValueExact());
    }
    return out;
  }

  /**
   * A host with two versions that day has a row per version of a stack, and {@code stacks/} counts
   * it once among its stack's hosts.
   */
  @Test
  void aHostWithTwoVersionsCountsOnceInAStacksHosts() {
    List<Row> web1 =
        spark
            .read()
            .parquet(out + "/host_stacks")
            .where("host = 'web-1'")
            .selectExpr("map_from_entries(dimensions)['version']")
            .distinct()
            .collectAsList();
    assertEquals(2, web1.size(), web1.toString());
    Dataset<Row> hostStacks = spark.read().parquet(out + "/host_stacks");
    List<Row> mismatched =
        spark
            .read()
            .parquet(out + "/stacks")
            .join(
                hostStacks
                    .groupBy("date", "format", "kind", "measure", "frames")
                    .agg(org.apache.spark.sql.functions.countDistinct("host").as("distinct_hosts")),
                new String[] {"date", "format", "kind", "measure", "frames"})
            .where("hosts <> distinct_hosts")
            .collectAsList();
    assertTrue(mismatched.isEmpty(), mismatched.toString());
    long shared = spark.read().parquet(out + "/stacks").where("hosts >= 2").count();
    assertTrue(shared > 0, "some stack is on two hosts");
  }

  /**
   * {@code --drop-dimension region} sums over the region level: the same samples per service, no
   * region in any row; a level the inputs lack is a usage error naming those they have.
   */
  @Test
  void aDroppedDimensionIsSummedOver() throws Exception {
    String dropped = tmp.resolve("dropped").toString();
    FleetSummary s =
        run("--input", fleet.toString(), "--output", dropped, "--drop-dimension", "region");
    assertEquals(Map.of("service", 3L, "version", 3L), s.dimensionValues());
    Dataset<Row> hostStacks = spark.read().parquet(dropped + "/host_stacks");
    assertEquals(0, hostStacks.where("exists(dimensions, d -> d.key = 'region')").count());
    assertEquals(
        sums(
            spark.read().parquet(out + "/host_stacks"),
            "map_from_entries(dimensions)['service']",
            "count"),
        sums(hostStacks, "map_from_entries(dimensions)['service']", "count"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                run(
                    "--input",
                    fleet.toString(),
                    "--output",
                    tmp.resolve("never").toString(),
                    "--drop-dimension",
                    "zone"));
    assertEquals(
        "--drop-dimension zone: the inputs have no zone= directories (their dimensions: service,"
            + " version, region)",
        e.getMessage());
  }

  /** The files of the fleet whose levels include every one of {@code levels}. */
  private static List<Path> filesWith(String... levels) {
    List<Path> out = new ArrayList<>();
    for (String layout : LAYOUT.keySet()) {
      if (java.util.Arrays.stream(levels).allMatch(l -> layout.contains(l + "/"))) {
        out.add(fleet.resolve("date=" + DATE).resolve(layout));
      }
    }
    assertTrue(!out.isEmpty(), String.join(", ", levels));
    return out;
  }

  /** {@code go tool pprof -top} of the files merged (into a profile.proto first), names found. */
  private static PprofTop pprofTop(List<Path> files, String name) throws Exception {
    Path merged = tmp.resolve(name + ".pb.gz");
    List<String> args = new ArrayList<>(List.of("-proto", "-output", merged.toString()));
    args.add(binaryFirst());
    files.forEach(f -> args.add(f.toAbsolutePath().toString()));
    pprof(args);
    return PprofTop.of(merged, SampleData.FLEET_BINARIES, tmp.resolve("top-" + name));
  }

  /**
   * {@code top-functions.sql -d service=api -d version=4.12.1}: the self and total samples of each
   * function pprof names are {@code pprof -top}'s flat and cum of those files merged.
   */
  @Test
  void topFunctionsOfADimensionValueArePprofTopOfItsFiles() throws Exception {
    PprofTop top = pprofTop(filesWith("service=api", "version=4.12.1"), "api-4.12.1");
    assertTrue(top.namedFunctions().containsKey("escape_field"), top.toString());
    top.assertFunctionsOf(
        SqlFiles.run(spark, out, "top-functions.sql", "service", "api", "version", "4.12.1"));
  }

  /**
   * {@code diff-dates.sql -d service=api -d by=version -d base=4.10}: the function whose self share
   * grew most in api's other version comes first, with its share of each side as {@code pprof -top}
   * of each side's files merged gives it.
   */
  @Test
  void diffByVersionComparesTwoVersionsOfAServiceOnOneDay() throws Exception {
    Row first =
        SqlFiles.run(
                spark,
                out,
                "diff-dates.sql",
                "service",
                "api",
                "by",
                "version",
                "base",
                "4.10",
                "limit",
                "20")
            .first();
    assertEquals("version=4.10", first.getAs("base"), first.toString());
    assertEquals(DATE, first.getAs("date").toString(), first.toString());
    String function = first.getAs("function");
    PprofTop newer = pprofTop(filesWith("service=api", "version=4.12.1"), "api-new");
    PprofTop base = pprofTop(filesWith("service=api", "version=4.10"), "api-base");
    double newPct = 100.0 * newer.counts().get(function)[0] / newer.total();
    long[] baseCounts = base.counts().get(function);
    double basePct = baseCounts == null ? 0 : 100.0 * baseCounts[0] / base.total();
    assertEquals(newPct, ((BigDecimal) first.getAs("self_pct")).doubleValue(), 5e-4, "" + first);
    assertEquals(
        basePct, ((BigDecimal) first.getAs("base_self_pct")).doubleValue(), 5e-4, "" + first);
    assertEquals("grew", first.getAs("change"), first.toString());
    // the biggest growth of self share among the functions pprof names on either side
    double most = 0;
    for (Map.Entry<String, long[]> e : newer.counts().entrySet()) {
      long[] b = base.counts().get(e.getKey());
      double delta =
          100.0 * e.getValue()[0] / newer.total() - (b == null ? 0 : 100.0 * b[0] / base.total());
      most = Math.max(most, delta);
    }
    assertEquals(most, newPct - basePct, 1e-9, "the first row is the biggest growth");
    // A base (or value) no stack has is an error naming the values kept, not every function grown.
    for (String missing : List.of("base", "value")) {
      String other = missing.equals("base") ? "value" : "base";
      String[] defines = {"service", "api", "by", "version", missing, "4.9", other, "4.10"};
      Exception e =
          assertThrows(
              Exception.class,
              () -> SqlFiles.run(spark, out, "diff-dates.sql", defines).collectAsList());
      assertTrue(
          e.getMessage()
              .contains(
                  "diff-dates.sql: no stacks on "
                      + DATE
                      + " have version=4.9 (the values of version kept that day: 4.10, 4.12.1)"),
          e.getMessage());
    }
  }

  /** A filter on a level the output lacks names the dimensions it has. */
  @Test
  void aFilterOnAnUnknownDimensionNamesTheOnesThereAre() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SqlFiles.run(spark, out, "by-host.sql", "zone", "b"));
    assertEquals(
        "-d zone=b: no statement takes ${zone}, and the output has no dimension zone (its"
            + " dimensions: region, service, version)",
        e.getMessage());
    IllegalArgumentException notTaken =
        assertThrows(
            IllegalArgumentException.class,
            () -> SqlFiles.run(spark, out, "top-stacks.sql", "service", "api"));
    assertTrue(
        notTaken.getMessage().startsWith("-d service: no statement takes ${service}"),
        notTaken.getMessage());
  }

  /**
   * A fleet where one path lacks a level the others have fails before anything is written, naming
   * the conflict, rather than leaving that file's samples out of the level.
   */
  @Test
  void aPathWithoutALevelTheOthersHaveFailsTheRunBeforeWriting() throws Exception {
    Path uneven = tmp.resolve("uneven");
    Path with = uneven.resolve("date=" + DATE + "/service=api/host=web-1/cpu.prof");
    Path without = uneven.resolve("date=" + DATE + "/host=web-2/cpu.prof");
    for (Path p : List.of(with, without)) {
      Files.createDirectories(p.getParent());
      Files.copy(SampleData.FLEET.resolve(LAYOUT.values().iterator().next()), p);
    }
    Path output = tmp.resolve("uneven-out");
    Exception e =
        assertThrows(
            Exception.class,
            () -> run("--input", uneven.toString(), "--output", output.toString()));
    String message = String.valueOf(e.getMessage());
    assertTrue(message.contains("CONFLICTING"), message);
    assertTrue(message.contains("service=api"), message);
    assertTrue(!Files.exists(output.resolve("files")), "nothing written");
  }

  /**
   * The samples of {@code profile} that {@code go tool pprof -tagfocus=TAG} keeps, as a profile of
   * their own ({@code -top} would still show the whole profile's total).
   */
  private static Path tagFocused(Path profile, String tag) throws Exception {
    Path focused = tmp.resolve("focused-" + tag.replace('=', '-') + ".pb.gz");
    pprof(
        List.of(
            "-proto",
            "-tagfocus=" + tag,
            "-output",
            focused.toString(),
            profile.toAbsolutePath().toString()));
    return focused;
  }

  /** {@code go tool pprof -top -unit=ns} of a profile (and its options): its CPU time in all. */
  private static long pprofNanos(Path profile, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("-top", "-unit=ns"));
    args.addAll(List.of(options));
    args.add(profile.toAbsolutePath().toString());
    String top = pprof(args);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("of (\\d+)ns total").matcher(top);
    assertTrue(m.find(), top);
    return Long.parseLong(m.group(1));
  }

  /**
   * {@code export-profile --dimension service=api}: its CPU time is api's files' (pprof of them
   * merged), and each sample is labelled with its host and dimensions, so that {@code -tagfocus} on
   * a version or a host gives pprof's time of that version's or host's files.
   */
  @Test
  void anExportOfADimensionValueLabelsItsSamples() throws Exception {
    Path export = tmp.resolve("api.pb.gz");
    ExportProfile.run(
        spark,
        ExportProfile.Args.parse(
            new String[] {
              "--from",
              out,
              "--date",
              DATE,
              "--dimension",
              "service=api",
              "--pprof",
              export.toString()
            }));
    pprofTop(filesWith("service=api"), "api-all");
    assertEquals(pprofNanos(tmp.resolve("api-all.pb.gz"), "-sample_index=cpu"), pprofNanos(export));
    pprofTop(filesWith("service=api", "version=4.12.1"), "api-4.12.1-only");
    assertEquals(
        pprofNanos(tmp.resolve("api-4.12.1-only.pb.gz"), "-sample_index=cpu"),
        pprofNanos(tagFocused(export, "version=4.12.1")));
    pprofTop(filesWith("host=web-2"), "web-2");
    assertEquals(
        pprofNanos(tmp.resolve("web-2.pb.gz"), "-sample_index=cpu"),
        pprofNanos(tagFocused(export, "host=web-2")));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ExportProfile.run(
                    spark,
                    ExportProfile.Args.parse(
                        new String[] {
                          "--from",
                          out,
                          "--date",
                          DATE,
                          "--dimension",
                          "zone=b",
                          "--pprof",
                          tmp.resolve("never.pb.gz").toString()
                        })));
    assertEquals(
        "--dimension zone=b: the output has no dimension zone (its dimensions: region, service,"
            + " version)",
        e.getMessage());
  }
}
