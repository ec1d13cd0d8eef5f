package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stack rows ({@code rows=stacks}) are the source's records merged per file, kind, period, problem
 * and stack: on every sample of every format, on bad files beside good ones, on a file cut into
 * many splits and with a table bound so small that readers return a row per record, the stack rows'
 * sums equal the records' sums computed by Spark, every stack's frames come with it at least once
 * and equal the records' frames, and a pprof profile's lines equal its records' lines.
 */
class StackRowsTest {
  private static SparkSession spark;
  @TempDir static Path dir;
  private static Path big;
  private static Path bad;

  /** What a stack row is keyed on, besides the partition columns. */
  private static final List<String> KEY =
      List.of("path", "format", "kind", "period", "period_unit", "error", "stack_id");

  @BeforeAll
  static void layOut() throws Exception {
    spark = TestSpark.get();
    big = dir.resolve("big.prof");
    SyntheticCpuProfile.write(big, 3 << 20, 5);
    bad = Files.createDirectory(dir.resolve("bad"));
    byte[] good = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    Files.write(bad.resolve("good.prof"), good);
    Files.write(bad.resolve("killed.prof"), Arrays.copyOf(good, good.length / 2));
    Files.writeString(bad.resolve("README.txt"), "not a profile\n");
    byte[] gmon = SampleData.read(SampleData.gmonOut("c-pie-64"));
    Files.write(bad.resolve("gmon.out"), Arrays.copyOf(gmon, gmon.length - 7));
  }

  private static Dataset<Row> load(String path, boolean stacks, Map<String, String> options) {
    DataFrameReader r = spark.read().format("profile");
    if (stacks) {
      r = r.option(ReadOptions.ROWS.name(), "stacks");
    }
    for (Map.Entry<String, String> e : options.entrySet()) {
      r = r.option(e.getKey(), e.getValue());
    }
    return r.load(path);
  }

  private static String key() {
    return String.join(", ", KEY);
  }

  /** The records' sums per stack row key, as Spark computes them from the record rows. */
  private static Dataset<Row> recordSums(Dataset<Row> records) {
    records.createOrReplaceTempView("records");
    String samplesAt = "array_position(transform(pprof.sample_types, t -> t.type), 'samples')";
    return spark.sql(
        "SELECT "
            + key()
            + ", try_element_at(pprof.sample_types, pprof.count_index + 1) AS sample_type,"
            + " CAST(sum(CAST(count AS DECIMAL(20,0)) + CASE WHEN count < 0 THEN"
            + " 18446744073709551616 ELSE 0 END) AS DECIMAL(38,0)) AS count,"
            + " CAST(sum(CASE WHEN "
            + samplesAt
            + " > 0 THEN CAST(element_at(pprof.values, CAST("
            + samplesAt
            + " AS INT)) AS DECIMAL(20,0)) END) AS DECIMAL(38,0)) AS samples,"
            + " count(1) AS records"
            + " FROM records GROUP BY "
            + key()
            + ", sample_type");
  }

  /** The stack rows of the view {@code stacks} merged per key, as a reader of them merges them. */
  private static Dataset<Row> stackSums() {
    return spark.sql(
        "SELECT "
            + key()
            + ", sample_type, CAST(sum(count) AS DECIMAL(38,0)) AS count,"
            + " CAST(sum(samples) AS DECIMAL(38,0)) AS samples, sum(records) AS records"
            + " FROM stacks GROUP BY "
            + key()
            + ", sample_type");
  }

  /**
   * A path's records, read once and kept in memory: their sums per stack row key, and each stack's
   * frames and lines (pprof's; null for other formats), for the stack rows they are compared with.
   */
  private record Records(
      Dataset<Row> read, Dataset<Row> sums, Dataset<Row> frames, Dataset<Row> lines) {
    static Records of(String path, Map<String, String> options) {
      Dataset<Row> read = load(path, false, options).cache();
      return new Records(
          read,
          recordSums(read),
          read.select("stack_id", "frames").distinct(),
          read.selectExpr("stack_id", "pprof.lines AS lines").distinct());
    }

    void release() {
      read.unpersist();
    }
  }

  private static void assertSameAsRecords(String path, Map<String, String> options) {
    Records records = Records.of(path, options);
    try {
      assertSameAsRecords(records, path, options);
    } finally {
      records.release();
    }
  }

  /** The stack rows of {@code path} read with {@code options} are the merge of {@code records}. */
  private static void assertSameAsRecords(
      Records records, String path, Map<String, String> options) {
    String what = path + " " + options;
    Dataset<Row> rows = load(path, true, options).cache();
    try {
      rows.createOrReplaceTempView("stacks");
      SameRows.assertSameRows(records.sums(), stackSums(), what);

      // Every stack's frames: given at least once, and always the records' frames.
      Dataset<Row> framed = rows.where("frames IS NOT NULL");
      assertEquals(
          0,
          records.frames().select("stack_id").except(framed.select("stack_id")).count(),
          what + ": a stack with no frames");
      assertEquals(
          0,
          framed.select("stack_id", "frames").except(records.frames()).count(),
          what + ": frames that are not the records'");
      assertEquals(
          0,
          rows.where("lines IS NOT NULL")
              .select("stack_id", "lines")
              .except(records.lines())
              .count(),
          what + ": lines that are not the records'");
    } finally {
      rows.unpersist();
    }
  }

  @Test
  void everySampleOfEveryFormatIsItsRecordsMerged() {
    assertTrue(load(SampleData.ROOT.toString(), true, Map.of()).count() > 0);
    // Small files packed several to a task, then each file alone in its task (an open cost of a
    // whole partition): a task's merge never depends on what else it reads. `path` is in the key,
    // so each file's sums are compared on their own.
    assertSameAsRecords(SampleData.ROOT.toString(), Map.of());
    Map<String, String> fileAlone = Map.of("openCostInBytes", "1g", "maxPartitionBytes", "1g");
    assertEquals(
        SampleData.listed().size(),
        load(SampleData.ROOT.toString(), true, fileAlone).rdd().getNumPartitions(),
        "a task per file");
    assertSameAsRecords(SampleData.ROOT.toString(), fileAlone);
  }

  @Test
  void partitionColumnsAndBadFilesKeepTheirRows() {
    assertSameAsRecords(SampleData.FLEET.toString(), Map.of());
    for (String mode : List.of("PERMISSIVE", "DROPMALFORMED")) {
      assertSameAsRecords(bad.toString(), Map.of("mode", mode));
    }
  }

  @Test
  void manySplitsAndATinyTableGiveTheSameSums() {
    // Each file's records read whole (one split each), the reference for every way of reading its
    // stack rows.
    Map<String, String> whole = Map.of("maxPartitionBytes", "1g");
    Records bigRecords = Records.of(big.toString(), whole);
    Records sampleRecords = Records.of(SampleData.ROOT.toString(), whole);
    try {
      for (String size : List.of("256k", "1m", "128m")) {
        assertSameAsRecords(
            bigRecords, big.toString(), Map.of("maxPartitionBytes", size, "openCostInBytes", "0"));
      }
      for (String bound : List.of("1", "4k")) {
        Map<String, String> o =
            Map.of(
                ReadOptions.AGGREGATE_PUSHDOWN_MAX_MAP_BYTES.name(),
                bound,
                "maxPartitionBytes",
                "1m");
        assertSameAsRecords(bigRecords, big.toString(), o);
        assertSameAsRecords(sampleRecords, SampleData.ROOT.toString(), o);
      }
    } finally {
      bigRecords.release();
      sampleRecords.release();
    }
  }

  @Test
  void aTaskGivesEachStacksFramesOnce() {
    // One file in one partition: each stack's frames come once.
    Dataset<Row> rows =
        load(
            SampleData.GPERFTOOLS.resolve("multithreaded.prof").toString(),
            true,
            Map.of("maxPartitionBytes", "1g"));
    long stacks = rows.select("stack_id").distinct().count();
    assertEquals(stacks, rows.where("frames IS NOT NULL").count());
  }
}
