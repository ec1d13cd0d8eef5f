package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SameRows;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --label-dimension}: Go profiles' {@code pprof.Do} labels (the demo gateway's {@code
 * route}, {@code cpu-labels.pb.gz}'s {@code worker}) as dimensions beside a {@code service=} level,
 * on a fleet with a gperftools profile that has no labels. The samples per label value equal {@code
 * go tool pprof -tags} of the files merged, a SQL job's functions of one value equal {@code pprof
 * -top} of {@code -tagfocus}, and no sample is lost to a label.
 */
class FleetAggregateLabelDimensionsTest {
  private static final String DATE = "2026-11-20";

  private static SparkSession spark;
  @TempDir static Path tmp;
  private static Path fleet;
  private static final List<Path> GATEWAY = new ArrayList<>();
  private static Path workers;
  private static String labelled;
  private static String plain;
  private static FleetSummary summary;

  @BeforeAll
  static void aggregate() throws Exception {
    spark = TestSpark.get();
    fleet = tmp.resolve("fleet");
    Map<String, Path> layout = new LinkedHashMap<>();
    for (String date : List.of("2026-11-19", "2026-11-20")) {
      layout.put(
          "service=gateway/host=edge-" + date.substring(8) + "/cpu.pprof",
          SampleData.FLEET.resolve(
              SampleData.fleetProfile(date, "edge-1", "gateway", "cpu.pprof")));
    }
    layout.put("service=worker/host=w-1/cpu.pprof", SampleData.PPROF.resolve("cpu-labels.pb.gz"));
    layout.put(
        "service=api/host=web-1/cpu.prof",
        SampleData.FLEET.resolve(
            SampleData.fleetProfile("2026-11-20", "web-1", "api-server", "cpu.prof")));
    for (Map.Entry<String, Path> e : layout.entrySet()) {
      Path to = fleet.resolve("date=" + DATE).resolve(e.getKey());
      Files.createDirectories(to.getParent());
      Files.copy(e.getValue(), to);
      if (e.getKey().startsWith("service=gateway/")) {
        GATEWAY.add(to);
      } else if (e.getKey().startsWith("service=worker/")) {
        workers = to;
      }
    }
    labelled = tmp.resolve("labelled").toString();
    plain = tmp.resolve("plain").toString();
    summary =
        run(
            "--input",
            fleet.toString(),
            "--output",
            labelled,
            "--binaries",
            SampleData.FLEET_BINARIES.toString(),
            "--label-dimension",
            "route",
            "--label-dimension",
            "worker");
    run("--input", fleet.toString(), "--output", plain);
  }

  private static FleetSummary run(String... argv) throws Exception {
    return FleetAggregate.run(spark, FleetAggregate.Args.parse(argv));
  }

  private static String pprof(List<String> args) throws Exception {
    return FleetAggregateDimensionsTest.pprof(tmp, args);
  }

  /** {@code go tool pprof -tags} of the files merged: samples per value of {@code key}. */
  private static Map<String, Long> pprofTags(String key, List<Path> files) throws Exception {
    List<String> args = new ArrayList<>(List.of("-tags", "-sample_index=samples"));
    files.forEach(f -> args.add(f.toString()));
    String text = pprof(args);
    Pattern header = Pattern.compile("^\\s*(\\S+): Total");
    Pattern value = Pattern.compile("^\\s*([0-9.]+) \\(\\s*[0-9.]+%\\): (.+)$");
    Map<String, Long> out = new TreeMap<>();
    String current = null;
    for (String line : text.split("\n")) {
      Matcher h = header.matcher(line);
      Matcher v = value.matcher(line);
      if (h.find()) {
        current = h.group(1);
      } else if (v.find() && key.equals(current)) {
        out.put(v.group(2), Math.round(Double.parseDouble(v.group(1))));
      }
    }
    assertTrue(out.size() >= 2, key + " has two values or more: " + text);
    return out;
  }

  /** The samples of {@code host_stacks/} per value of dimension {@code key}, rows with one. */
  private static Map<String, Long> samplesPerValue(String output, String key) {
    Map<String, Long> out = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(output + "/host_stacks")
            .where("measure = 'cpu'")
            .selectExpr(Dimensions.valueOf(key) + " AS v", "count")
            .where("v IS NOT NULL")
            .groupBy("v")
            .agg(org.apache.spark.sql.functions.sum("count"))
            .collectAsList()) {
      out.put(r.getString(0), ((BigDecimal) r.get(1)).longValueExact());
    }
    return out;
  }

  @Test
  void samplesPerLabelValueEqualPprofTags() throws Exception {
    assertEquals(pprofTags("route", GATEWAY), samplesPerValue(labelled, "route"));
    assertEquals(pprofTags("worker", List.of(workers)), samplesPerValue(labelled, "worker"));
    assertEquals(
        Map.of(
            "service",
            3L,
            "route",
            (long) pprofTags("route", GATEWAY).size(),
            "worker",
            (long) pprofTags("worker", List.of(workers)).size()),
        summary.dimensionValues());
  }

  /**
   * Every sample is still there: per host and stack, the labelled run's rows summed are the rows of
   * a run without labels, and only Go profiles' rows carry labels.
   */
  @Test
  void labelsSplitRowsButLoseNoSample() {
    Dataset<Row> summed =
        spark
            .read()
            .parquet(labelled + "/host_stacks")
            .groupBy("date", "host", "format", "kind", "measure", "frames")
            .agg(org.apache.spark.sql.functions.sum("count").as("count"));
    Dataset<Row> unlabelled =
        spark
            .read()
            .parquet(plain + "/host_stacks")
            .selectExpr("date", "host", "format", "kind", "measure", "frames", "count");
    assertEquals(0, summed.exceptAll(unlabelled).count());
    assertEquals(0, unlabelled.exceptAll(summed).count());
    assertTrue(
        spark.read().parquet(labelled + "/host_stacks").count()
            > spark.read().parquet(plain + "/host_stacks").count(),
        "labels split some host's stack into rows per value");
    assertEquals(
        0,
        spark
            .read()
            .parquet(labelled + "/host_stacks")
            .where("format <> 'pprof' AND size(dimensions) <> 1")
            .count(),
        "a gperftools profile has its service only");
  }

  /** {@code files/} stays a row per file, with its directories' dimensions only. */
  @Test
  void filesKeepARowPerFileWithoutLabels() throws Exception {
    List<Row> files =
        spark.read().parquet(labelled + "/files").selectExpr("path", "dimensions").collectAsList();
    assertEquals(4, files.size(), files.toString());
    for (Row r : files) {
      assertEquals(1, r.getList(1).size(), r.toString());
    }
    // Its records, counts and stacks are the unlabelled run's: a stack split by labels is one.
    Dataset<Row> a = FleetOutput.read(spark, labelled, "files");
    Dataset<Row> b = FleetOutput.read(spark, plain, "files");
    assertEquals(0, a.exceptAll(b).count());
    assertEquals(0, b.exceptAll(a).count());
  }

  /**
   * {@code top-functions.sql -d route=search}: the self and total samples of each function are
   * {@code pprof -top} of {@code -tagfocus=route=search} over the gateway's files merged.
   */
  @Test
  void topFunctionsOfALabelValueArePprofTopOfTagfocus() throws Exception {
    Path focused = tmp.resolve("search.pb.gz");
    List<String> args =
        new ArrayList<>(List.of("-proto", "-tagfocus=route=search", "-output", focused.toString()));
    GATEWAY.forEach(f -> args.add(f.toString()));
    pprof(args);
    PprofTop top = PprofTop.of(focused, SampleData.FLEET_BINARIES, tmp.resolve("top"));
    assertTrue(top.namedFunctions().size() >= 3, top.toString());
    top.assertFunctionsOf(SqlFiles.run(spark, labelled, "top-functions.sql", "route", "search"));
  }

  /**
   * A run whose stack keys collide reads the records again, grouped by frames: the labels it takes
   * from the records give the same rows as the source's stack rows.
   */
  @Test
  void theRunGroupedByFramesAfterACollisionHasTheSameLabels() throws Exception {
    String collided = tmp.resolve("collided").toString();
    java.util.concurrent.atomic.AtomicInteger fellBack =
        new java.util.concurrent.atomic.AtomicInteger();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              fleet.toString(),
              "--output",
              collided,
              "--binaries",
              SampleData.FLEET_BINARIES.toString(),
              "--label-dimension",
              "route",
              "--label-dimension",
              "worker"
            }),
        new FleetAggregate.Hooks(3, fellBack::incrementAndGet));
    assertEquals(1, fellBack.get(), "the keys collided");
    for (String dataset : FleetAggregate.DATASETS) {
      Dataset<Row> a = FleetOutput.read(spark, labelled, dataset);
      Dataset<Row> b = FleetOutput.read(spark, collided, dataset);
      assertTrue(a.count() > 0, dataset);
      SameRows.assertSameRows(a, b, dataset);
    }
  }

  @Test
  void aLabelNamedLikeALevelIsAUsageError() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                run(
                    "--input",
                    fleet.toString(),
                    "--output",
                    tmp.resolve("never").toString(),
                    "--label-dimension",
                    "service"));
    assertTrue(
        e.getMessage().startsWith("--label-dimension service: the inputs have"), e.getMessage());
  }
}
