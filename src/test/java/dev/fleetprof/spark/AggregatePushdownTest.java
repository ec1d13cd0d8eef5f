package dev.fleetprof.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.GeneratedCode;
import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import scala.runtime.BoxedUnit;

/**
 * Aggregations pushed to the readers give exactly the rows of the same query aggregated by Spark
 * alone ({@code aggregatePushdown=false}): on every sample of every format, the demo fleet's
 * partition columns, files cut into many splits, bad files beside good ones under each mode, and
 * with a map bound so small that readers emit a partial row per record.
 */
@ExtendWith(GeneratedCode.class)
class AggregatePushdownTest {
  private static SparkSession spark;
  @TempDir static Path dir;
  private static Path bad;
  private static Path big;
  private static Path fleet;

  /** The groupings checked: none, each chain column, and file columns with chain columns. */
  private static final List<List<String>> GROUPINGS =
      List.of(
          List.of(),
          List.of("frames"),
          List.of("pcs"),
          List.of("mapping"),
          List.of("stack_id"),
          List.of("path", "kind"),
          List.of("format", "kind", "frames"),
          List.of("path", "kind", "period", "period_unit", "error", "frames"),
          List.of("kind", "mapping", "pcs", "path", "frames", "format", "stack_id"));

  @BeforeAll
  static void layOut() throws Exception {
    spark = TestSpark.get();
    bad = Files.createDirectory(dir.resolve("bad"));
    byte[] good = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    Files.write(bad.resolve("good.prof"), good);
    CpuProfiles.Decoded full = CpuProfiles.decode("full", good);
    int cut = (int) full.records().get(40).offset() + 12;
    Files.write(bad.resolve("killed.prof"), Arrays.copyOf(good, cut));
    Files.writeString(bad.resolve("README.txt"), "Profiles of the web tier, one per host.\n");
    byte[] gmon = SampleData.read(SampleData.gmonOut("c-pie-64"));
    Files.write(bad.resolve("gmon.out"), Arrays.copyOf(gmon, gmon.length - 7));
    Files.copy(SampleData.GPERFTOOLS.resolve("shared_library.prof"), bad.resolve("shared.prof"));

    // Dates, a null date (Hive's default partition) and a file outside every partition directory
    // (not read, as Spark's file index does not list it).
    FleetFixture f = new FleetFixture(dir.resolve("fleet"));
    Path sample = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    f.copy("2026-11-20", "web1", sample, "cpu.prof");
    f.copy("2026-11-20", "web2", SampleData.GPERFTOOLS.resolve("shared_library.prof"), "cpu.prof");
    f.copy("2026-11-21", "web1", sample, "cpu.prof");
    f.copy("__HIVE_DEFAULT_PARTITION__", "web3", sample, "cpu.prof");
    Files.write(dir.resolve("fleet/stray.prof"), good);
    fleet = f.root();

    big = dir.resolve("big.prof");
    SyntheticCpuProfile.write(big, 3 << 20, 5);
  }

  private static Dataset<Row> load(String path, boolean pushdown, Map<String, String> options) {
    DataFrameReader r =
        spark.read().format("profile").option(ReadOptions.AGGREGATE_PUSHDOWN.name(), pushdown);
    for (Map.Entry<String, String> e : options.entrySet()) {
      r = r.option(e.getKey(), e.getValue());
    }
    return r.load(path);
  }

  private static Dataset<Row> aggregate(Dataset<Row> df, List<String> groupBy) {
    Column[] keys =
        groupBy.stream().map(org.apache.spark.sql.functions::col).toArray(Column[]::new);
    return df.groupBy(keys)
        .agg(
            sum("count").as("samples"),
            count(lit(1)).as("rows"),
            min("count").as("least"),
            max("count").as("most"));
  }

  /** Whether the optimized plan's profile scan took an aggregation. */
  static boolean pushed(Dataset<Row> query) {
    List<String> descriptions = new ArrayList<>();
    query
        .queryExecution()
        .optimizedPlan()
        .foreach(
            node -> {
              if (node instanceof DataSourceV2ScanRelation r) {
                descriptions.add(r.scan().description());
              }
              return BoxedUnit.UNIT;
            });
    assertEquals(1, descriptions.size(), query.queryExecution().optimizedPlan().toString());
    return descriptions.get(0).contains("pushedAggregation=");
  }

  /** Runs the query both ways and checks the rows are equal as multisets (EXCEPT ALL both ways). */
  private static void assertSameAsSpark(
      String path, List<String> groupBy, Map<String, String> options) {
    Dataset<Row> withPushdown = aggregate(load(path, true, options), groupBy);
    Dataset<Row> without = aggregate(load(path, false, options), groupBy);
    assertTrue(pushed(withPushdown), "pushed: " + withPushdown.queryExecution().optimizedPlan());
    assertFalse(pushed(without), "not pushed: " + without.queryExecution().optimizedPlan());
    String what = groupBy + " " + options + " on " + path;
    SameRows.assertSameRows(without, withPushdown, what);
  }

  @Test
  void everySampleOfEveryFormatAggregatesAsSparkDoes() {
    for (List<String> groupBy : GROUPINGS) {
      assertSameAsSpark(SampleData.ROOT.toString(), groupBy, Map.of());
    }
    // Per file too, so that no file's groups hide in another's, each file alone in its task (an
    // open cost of a whole partition).
    assertSameAsSpark(
        SampleData.ROOT.toString(),
        List.of("path", "kind", "frames"),
        Map.of("openCostInBytes", "1g", "maxPartitionBytes", "1g"));
  }

  @Test
  void partitionColumnsGroupWithChainColumns() {
    String fleet = SampleData.FLEET.toString();
    for (List<String> groupBy :
        List.of(
            List.of("date"),
            List.of("host", "program", "frames"),
            List.of("date", "format", "mapping"),
            List.of("stack_id", "host"),
            List.of("program", "pcs", "host", "date"))) {
      assertSameAsSpark(fleet, groupBy, Map.of());
    }
  }

  @Test
  void manySplitSizesGiveTheSameGroups() {
    // A few splits of the 3 MiB profile, and the small samples cut into many (a few KB each).
    for (String size : List.of("256k", "1m", "128m")) {
      Map<String, String> o = Map.of("maxPartitionBytes", size, "openCostInBytes", "0");
      for (List<String> groupBy : List.of(List.<String>of(), List.of("frames"), List.of("pcs"))) {
        assertSameAsSpark(big.toString(), groupBy, o);
      }
    }
    for (String size : List.of("2k", "16k")) {
      Map<String, String> o = Map.of("maxPartitionBytes", size, "openCostInBytes", "0");
      for (List<String> groupBy : List.of(List.<String>of(), List.of("frames", "path"))) {
        assertSameAsSpark(SampleData.GPERFTOOLS.toString(), groupBy, o);
      }
    }
  }

  @Test
  void badFilesBesideGoodOnesUnderEachMode() {
    List<Map<String, String>> modes =
        List.of(
            Map.of("mode", "PERMISSIVE"),
            Map.of("mode", "DROPMALFORMED"),
            Map.of("ignoreCorruptFiles", "true"),
            Map.of("mode", "PERMISSIVE", "maxPartitionBytes", "1k", "openCostInBytes", "0"));
    for (Map<String, String> mode : modes) {
      for (List<String> groupBy : GROUPINGS) {
        assertSameAsSpark(bad.toString(), groupBy, mode);
      }
    }
    // PERMISSIVE's error rows are rows: one per bad file, counted by COUNT(*) with count 0.
    Row errors =
        aggregate(load(bad.toString(), true, Map.of()).where(lit(true)), List.of())
            .collectAsList()
            .get(0);
    Dataset<Row> byKind = aggregate(load(bad.toString(), true, Map.of()), List.of("kind"));
    Map<String, Long> rowsByKind = new LinkedHashMap<>();
    for (Row r : byKind.collectAsList()) {
      rowsByKind.put(r.getString(0), r.getLong(2));
    }
    assertEquals(3L, rowsByKind.get("error"), rowsByKind + " " + errors);
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                aggregate(load(bad.toString(), true, Map.of("mode", "FAILFAST")), List.of("frames"))
                    .collectAsList());
    assertTrue(ProfileSourceTest.fullMessage(e).contains("byte offset"));
  }

  @Test
  void aTinyMapBoundEmitsPartialRowsThatSparkMerges() throws Exception {
    for (String bound : List.of("1", "4k")) {
      Map<String, String> o =
          Map.of(
              ReadOptions.AGGREGATE_PUSHDOWN_MAX_MAP_BYTES.name(),
              bound,
              "maxPartitionBytes",
              "1m");
      for (List<String> groupBy : GROUPINGS) {
        assertSameAsSpark(bad.toString(), groupBy, o);
      }
      assertSameAsSpark(big.toString(), List.of("frames"), o);
    }
    // Four copies of one profile in one partition: grouped by frames, the readers merge their
    // records into one row per chain, unless the bound makes each record its own row.
    Path copies = Files.createDirectory(dir.resolve("copies"));
    for (int i = 0; i < 4; i++) {
      Files.copy(SampleData.GPERFTOOLS.resolve("multithreaded.prof"), copies.resolve(i + ".prof"));
    }
    long records = load(copies.toString(), false, Map.of()).count();
    Dataset<Row> tiny =
        aggregate(
            load(
                copies.toString(),
                true,
                Map.of(
                    ReadOptions.AGGREGATE_PUSHDOWN_MAX_MAP_BYTES.name(),
                    "1",
                    "maxPartitionBytes",
                    "1g")),
            List.of("frames"));
    tiny.collectAsList();
    assertEquals(records, TestSpark.scanMetric(tiny, "numOutputRows"));
    Dataset<Row> merged =
        aggregate(
            load(copies.toString(), true, Map.of("maxPartitionBytes", "1g")), List.of("frames"));
    long groups = merged.collectAsList().size();
    long partialRows = TestSpark.scanMetric(merged, "numOutputRows");
    assertEquals(
        load(copies.resolve("0.prof").toString(), false, Map.of())
            .select("frames")
            .distinct()
            .count(),
        groups);
    // Spark packs the four files into at most two partitions here (two cores).
    assertTrue(
        partialRows >= groups && partialRows * 2 <= records,
        "partial rows " + partialRows + ", records " + records + ", groups " + groups);
  }

  @Test
  void partitionFiltersDecidedExactlyByThePruningLetTheAggregationThrough() {
    List<String> exact =
        List.of(
            "date IS NULL OR date = DATE'2026-11-20'", // the fleet job's
            "date = '2026-11-21'",
            "date = DATE'2099-01-01'", // matches no file
            "date IS NULL",
            "NOT (date = DATE'2026-11-20')", // null for the null date: dropped
            "date > DATE'2026-11-20' AND host IN ('web1', 'web3')",
            "date <=> NULL OR host LIKE 'web%'",
            "date IN (DATE'2026-11-21', NULL)");
    for (String filter : exact) {
      for (List<String> groupBy :
          List.<List<String>>of(List.of(), List.of("date", "host", "frames"))) {
        Dataset<Row> withPushdown =
            aggregate(load(fleet.toString(), true, Map.of()).where(filter), groupBy);
        Dataset<Row> without =
            aggregate(load(fleet.toString(), false, Map.of()).where(filter), groupBy);
        // A global aggregation of no files is Spark's (one row, COUNT(*) 0): see pushAggregation.
        boolean noFiles = filter.contains("2099") && groupBy.isEmpty();
        assertEquals(!noFiles, pushed(withPushdown), filter + ": " + withPushdown.queryExecution());
        String what = filter + " " + groupBy;
        SameRows.assertSameRows(without, withPushdown, what);
      }
    }
    // Not decided by partition values alone: left to Spark, and no aggregation is pushed.
    for (String filter :
        List.of("CAST(date AS STRING) = '2026-11-20'", "date = DATE'2026-11-20' OR count > 5")) {
      Dataset<Row> q =
          aggregate(load(fleet.toString(), true, Map.of()).where(filter), List.of("frames"));
      assertFalse(pushed(q), filter + ": " + q.queryExecution());
      Dataset<Row> without =
          aggregate(load(fleet.toString(), false, Map.of()).where(filter), List.of("frames"));
      SameRows.assertSameRows(without, q, filter);
    }
    // The job's filter reads only the files it keeps.
    Dataset<Row> day =
        load(fleet.toString(), true, Map.of()).where("date IS NULL OR date = DATE'2026-11-20'");
    assertEquals(3, day.select("path").distinct().count());
  }

  @Test
  void whatTheReadersCannotComputeIsLeftToSpark() {
    String path = SampleData.GPERFTOOLS.toString();
    Dataset<Row> df = load(path, true, Map.of());
    List<Dataset<Row>> refused =
        List.of(
            df.groupBy("frames").agg(sum("record_offset")),
            df.groupBy("histogram").agg(sum("count")),
            df.groupBy("frames").agg(org.apache.spark.sql.functions.sum_distinct(col("count"))),
            df.groupBy("frames").agg(org.apache.spark.sql.functions.count_distinct(col("count"))),
            // (not dcpi: a struct holding a map cannot be grouped on by Spark 3.5)
            df.groupBy("record_offset").agg(count(lit(1))),
            df.where("kind = 'sample'").groupBy("frames").agg(sum("count")),
            df.where("count > 1").agg(sum("count")),
            df.groupBy(col("mapping.path")).agg(sum("count")),
            df.agg(org.apache.spark.sql.functions.count("error")),
            load(path, false, Map.of()).groupBy("frames").agg(sum("count")));
    for (Dataset<Row> q : refused) {
      assertFalse(pushed(q), q.queryExecution().optimizedPlan().toString());
      q.collectAsList();
    }
    // AVG is pushed as SUM and COUNT, which Spark divides.
    Dataset<Row> avg = df.groupBy("frames").agg(org.apache.spark.sql.functions.avg("count"));
    assertTrue(pushed(avg), avg.queryExecution().optimizedPlan().toString());
    Dataset<Row> avgSpark =
        load(path, false, Map.of())
            .groupBy("frames")
            .agg(org.apache.spark.sql.functions.avg("count"));
    SameRows.assertSameRows(avgSpark, avg, "avg");
  }

  @Test
  void thePlanShowsThePushedAggregation() {
    Dataset<Row> q = aggregate(load(big.toString(), true, Map.of()), List.of("frames"));
    q.collectAsList();
    String description = TestSpark.finalPlan(q).toString();
    assertTrue(
        description.contains("pushedAggregation=[SUM(count), COUNT(*), MIN(count), MAX(count)]")
            && description.contains("GROUP BY [frames]"),
        description);
  }
}
