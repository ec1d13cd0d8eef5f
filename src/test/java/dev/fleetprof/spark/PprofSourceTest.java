package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.pprof.GoPprof;
import dev.fleetprof.format.pprof.PprofProfiles;
import dev.fleetprof.testing.GeneratedCode;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.ScalaValues;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pprof files through the {@code profile} source: detected among other files or named with {@code
 * format=pprof}, their rows agree with {@code go tool pprof} (per-chain sums of every sample type,
 * the inline chains of {@code -traces -lines}), and any split size gives the same rows (a pprof
 * file is one partition). Gzip data is read whatever the file's name, as Go names its profiles.
 */
@ExtendWith(GeneratedCode.class)
class PprofSourceTest {
  private final SparkSession spark = TestSpark.get();

  @TempDir static Path tmp;
  private static Path dir;
  private static GoPprof go;

  @BeforeAll
  static void files() throws Exception {
    go = new GoPprof(tmp.resolve("home"));
    dir = Files.createDirectories(tmp.resolve("profiles"));
    for (Path p : PprofProfiles.goSamples()) {
      Files.copy(p, dir.resolve(p.getFileName()));
    }
    // As `go test -cpuprofile cpu.pprof` names it: gzip data under a name without .gz.
    Files.copy(SampleData.PPROF.resolve("cpu-labels.pb.gz"), dir.resolve("cpu.pprof"));
    Path converted = Files.createDirectories(tmp.resolve("converted"));
    for (Path p : PprofProfiles.convertedGperftools(converted)) {
      Files.copy(p, dir.resolve(p.getFileName()));
    }
    Path written = PprofProfiles.writtenByPprofWriter(tmp);
    Files.copy(written, dir.resolve(written.getFileName()));
  }

  private static String name(String uri) {
    return Path.of(java.net.URI.create(uri)).getFileName().toString();
  }

  private Dataset<Row> read(String format, long maxPartitionBytes) {
    return spark
        .read()
        .format("profile")
        .option("format", format)
        .option("maxPartitionBytes", maxPartitionBytes)
        .option("openCostInBytes", 0)
        .load(dir.toString());
  }

  @Test
  void rowsAgreeWithGoToolPprofForEverySampleType() throws Exception {
    Dataset<Row> df = read("auto", 128 << 20).cache();
    try {
      assertEquals(
          List.of("pprof"),
          df.select("format")
              .distinct()
              .as(org.apache.spark.sql.Encoders.STRING())
              .collectAsList());
      assertEquals(0, df.where("kind != 'sample'").count(), "only sample rows, no error rows");
      Map<String, List<Row>> byFile = new HashMap<>();
      for (Row r :
          df.selectExpr("path", "pcs", "pprof.values", "count", "period", "period_unit")
              .collectAsList()) {
        byFile.computeIfAbsent(name(r.getString(0)), k -> new ArrayList<>()).add(r);
      }
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          PprofRaw raw = go.raw(f);
          List<Row> rows = byFile.getOrDefault(f.getFileName().toString(), List.of());
          int types = raw.samples.isEmpty() ? 0 : raw.samples.get(0).values().size();
          for (int i = 0; i < types; i++) {
            Map<List<Long>, Long> expected = new HashMap<>();
            for (PprofRaw.Sample s : raw.samples) {
              List<Long> chain = new ArrayList<>();
              for (long id : s.locationIds()) {
                chain.add(raw.locations.get(id).address());
              }
              expected.merge(chain, s.values().get(i), Long::sum);
            }
            Map<List<Long>, Long> actual = new HashMap<>();
            for (Row r : rows) {
              actual.merge(r.getList(1), r.<Long>getList(2).get(i), Long::sum);
            }
            expected.values().removeIf(v -> v == 0);
            actual.values().removeIf(v -> v == 0);
            assertEquals(expected, actual, f + ": per-chain sums of sample type " + i);
          }
          for (Row r : rows) {
            assertEquals(raw.period, r.getLong(4), f + ": period");
            assertEquals(raw.periodType.split(" ")[1], r.getString(5), f + ": period unit");
          }
        }
      }
    } finally {
      df.unpersist();
    }
  }

  @Test
  void linesAgreeWithGoToolPprofTraces() throws Exception {
    Dataset<Row> df = read("pprof", 128 << 20);
    Map<String, Map<List<String>, Integer>> byFile = new HashMap<>();
    for (Row r :
        df.selectExpr("path", "pprof.lines", "pprof.values[0] AS v0", "frames")
            .where("exists(pprof.values, v -> v != 0)")
            .collectAsList()) {
      List<String> frames = new ArrayList<>();
      List<Object> chains = r.getList(1);
      List<Row> mapped = r.getList(3);
      for (int i = 0; i < chains.size(); i++) {
        @SuppressWarnings("unchecked")
        List<Row> chain =
            chains.get(i) == null
                ? null
                : ScalaValues.list((scala.collection.Seq<Row>) chains.get(i));
        if (chain == null) {
          String module = mapped.get(i).getString(0);
          frames.add(
              module == null
                  ? "<unknown>"
                  : "[" + module.substring(module.lastIndexOf('/') + 1) + "]");
          continue;
        }
        for (Row line : chain) {
          frames.add(
              line.getString(0)
                  + " "
                  + (line.isNullAt(1) ? "" : line.getString(1))
                  + ":"
                  + (line.isNullAt(2) ? 0 : line.getLong(2)));
        }
      }
      byFile
          .computeIfAbsent(name(r.getString(0)), k -> new HashMap<>())
          .merge(frames, 1, Integer::sum);
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Map<List<String>, Integer> expected = new HashMap<>();
        for (GoPprof.Trace t : go.traces(f, 0)) {
          expected.merge(t.frames(), 1, Integer::sum);
        }
        assertEquals(
            expected, byFile.getOrDefault(f.getFileName().toString(), Map.of()), f.toString());
      }
    }
  }

  @Test
  void everySplitSizeGivesTheSameRows() {
    List<Row> expected =
        read("pprof", 128 << 20)
            .selectExpr("path", "record_offset", "count", "pcs", "pprof")
            .orderBy("path", "record_offset")
            .collectAsList();
    assertTrue(expected.size() > 50, "rows: " + expected.size());
    for (long size : new long[] {64, 300, 1000, 4096}) {
      Dataset<Row> df = read("auto", size);
      assertEquals(
          expected,
          df.selectExpr("path", "record_offset", "count", "pcs", "pprof")
              .orderBy("path", "record_offset")
              .collectAsList(),
          "splits of " + size + " bytes");
    }
  }

  @Test
  void labelsAndTheChosenSampleType() {
    Row cpu =
        read("pprof", 128 << 20)
            .where("path LIKE '%cpu-labels.pb.gz'")
            .selectExpr("pprof.labels", "pprof.sample_types", "count", "pprof.values", "pprof")
            .first();
    List<Row> labels = cpu.getList(0);
    assertEquals(2, labels.size(), labels.toString());
    for (Row l : labels) {
      assertTrue(List.of("worker", "tier").contains(l.getString(0)), l.toString());
      assertNull(l.get(2), "string labels have no number");
    }
    assertEquals("[[samples,count], [cpu,nanoseconds]]", cpu.getList(1).toString());
    assertEquals(cpu.<Long>getList(3).get(1), cpu.getLong(2), "cpu is the default sample type");
    assertEquals(1, cpu.getStruct(4).<Integer>getAs("count_index"), "and count_index says so");

    Dataset<Row> heap =
        spark
            .read()
            .format("profile")
            .option("pprof.sampleType", "alloc_objects")
            .load(dir.resolve("heap.pb").toString())
            .where("size(pprof.labels) > 0")
            .selectExpr("count", "pprof.values[0]", "pprof.labels[0]");
    assertTrue(heap.count() > 0, "heap samples have a bytes label");
    for (Row r : heap.collectAsList()) {
      assertEquals(r.getLong(1), r.getLong(0));
      Row label = r.getStruct(2);
      assertEquals("bytes", label.getString(0));
      assertNull(label.get(1), "numeric labels have no string");
    }
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("pprof.sampleType", " ")
                    .load(dir.toString())
                    .count());
    assertTrue(e.getMessage().contains("pprof.sampleType"), e.getMessage());
  }

  @Test
  void stackRowsSplitByTheNamedLabelsAsGoToolPprofTagsCountsThem() throws Exception {
    Path file = dir.resolve("cpu.pprof");
    Dataset<Row> stacks =
        spark
            .read()
            .format("profile")
            .option("rows", "stacks")
            .option("stackLabels", "worker, tier")
            .option("pprof.sampleType", "samples")
            .load(file.toString());
    assertEquals(ProfileSchema.STACK_LABELS_TYPE, stacks.schema().apply("labels").dataType());
    // go tool pprof -tags: per key, "  15.0 (50.00%): hash" for each value's samples.
    String tags = go.run("-tags", "-sample_index=samples", file.toString());
    Map<String, Map<String, Long>> expected = new java.util.TreeMap<>();
    String key = null;
    for (String line : tags.split("\n")) {
      var header = java.util.regex.Pattern.compile("^\\s*(\\S+): Total").matcher(line);
      var value =
          java.util.regex.Pattern.compile("^\\s*([0-9.]+) \\(\\s*[0-9.]+%\\): (.+)$").matcher(line);
      if (header.find()) {
        key = header.group(1);
      } else if (value.find()) {
        expected
            .computeIfAbsent(key, k -> new java.util.TreeMap<>())
            .put(value.group(2), Math.round(Double.parseDouble(value.group(1))));
      }
    }
    assertEquals(java.util.Set.of("worker", "tier"), expected.keySet(), tags);
    Map<String, Map<String, Long>> actual = new java.util.TreeMap<>();
    for (Row r :
        stacks
            .selectExpr("inline(labels)", "CAST(count AS BIGINT) AS c")
            .groupBy("key", "value")
            .sum("c")
            .collectAsList()) {
      actual
          .computeIfAbsent(r.getString(0), k -> new java.util.TreeMap<>())
          .put(r.getString(1), r.getLong(2));
    }
    assertEquals(expected, actual, "samples per label value, as go tool pprof -tags counts them");
  }

  @Test
  void stackRowsWithLabelsSumAsTheRecordsGroupedByThoseLabels() {
    String keys = "'worker', 'tier', 'bytes'";
    Dataset<Row> fromRecords =
        read("auto", 128 << 20)
            .selectExpr(
                "path",
                "stack_id",
                "CASE WHEN pprof IS NOT NULL THEN array_sort(transform(filter(pprof.labels, l ->"
                    + " l.key IN ("
                    + keys
                    + ") AND (l.str IS NOT NULL OR l.num IS NOT NULL)), l -> named_struct('key',"
                    + " l.key, 'value', coalesce(l.str, CAST(l.num AS STRING))))) END AS labels",
                "CAST(count AS DECIMAL(38,0)) AS count")
            .groupBy("path", "stack_id", "labels")
            .agg(org.apache.spark.sql.functions.sum("count").as("count"));
    for (long split : new long[] {128 << 20, 4096}) {
      Dataset<Row> fromStacks =
          spark
              .read()
              .format("profile")
              .option("rows", "stacks")
              .option("stackLabels", "worker,tier,bytes")
              .option("maxPartitionBytes", split)
              .option("openCostInBytes", 0)
              .load(dir.toString())
              .selectExpr("path", "stack_id", "labels", "count")
              .groupBy("path", "stack_id", "labels")
              .agg(org.apache.spark.sql.functions.sum("count").as("count"));
      assertTrue(fromRecords.where("size(labels) > 0").count() > 0, "some samples have labels");
      assertEquals(0, fromRecords.exceptAll(fromStacks).count(), "records missing, split " + split);
      assertEquals(0, fromStacks.exceptAll(fromRecords).count(), "rows too many, split " + split);
    }
  }

  @Test
  void stackLabelsNeedStackRows() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("stackLabels", "worker")
                    .load(dir.toString())
                    .count());
    assertTrue(e.getMessage().contains("stackLabels applies to rows=stacks"), e.getMessage());
  }
}
