package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The read modes on a directory of good and bad files, as a fleet delivers them: every readable
 * record is read, and every bad file is accounted for as the mode says.
 */
class ProblemModesTest {
  private static SparkSession spark;
  @TempDir static Path dir;

  /** Bad file name → the file's complete records' total count, decoded independently. */
  private static final Map<String, Long> BAD = new TreeMap<>();

  private static long goodTotal;

  @BeforeAll
  static void layOut() throws Exception {
    spark = TestSpark.get();
    byte[] good = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    Files.write(dir.resolve("good.prof"), good);
    goodTotal = total(CpuProfiles.decode("good", good).records());

    CpuProfiles.Decoded full = CpuProfiles.decode("full", good);
    int cut = (int) full.records().get(40).offset() + 12;
    Files.write(dir.resolve("killed.prof"), Arrays.copyOf(good, cut));
    BAD.put("killed.prof", total(full.records().subList(0, 40)));

    Files.writeString(dir.resolve("README.txt"), "Profiles of the web tier, one per host.\n");
    BAD.put("README.txt", 0L);

    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write("no profile in here, just text that was gzipped".getBytes());
    }
    Files.write(dir.resolve("garbage.prof.gz"), gz.toByteArray());
    BAD.put("garbage.prof.gz", 0L);

    byte[] gmon = SampleData.read(SampleData.gmonOut("c-pie-64"));
    Files.write(dir.resolve("gmon.out"), Arrays.copyOf(gmon, gmon.length - 7));
    BAD.put("gmon.out", null); // its total is whatever gprof records precede the cut

    Files.copy(
        SampleData.DCPI_REFERENCE.resolve("bad-footer-offsets.prof"), dir.resolve("dcpi-bad.prof"));
    BAD.put("dcpi-bad.prof", null);
  }

  private static long total(List<DecodedRecord> records) {
    return records.stream().mapToLong(DecodedRecord::count).sum();
  }

  private static Dataset<Row> read(String mode) {
    return spark.read().format("profile").option("mode", mode).load(dir.toString());
  }

  private static String name(Row r) {
    String p = r.getString(0);
    return p.substring(p.lastIndexOf('/') + 1);
  }

  @Test
  void permissiveReadsEveryRecordAndGivesEachProblemARow() {
    Dataset<Row> df =
        read("PERMISSIVE")
            .selectExpr("path", "kind", "count", "error", "record_offset", "size(frames)");
    List<Row> rows = df.collectAsList();
    Map<String, Long> sums = new TreeMap<>();
    Map<String, String> errors = new TreeMap<>();
    for (Row r : rows) {
      if (r.getString(1).equals("error")) {
        assertEquals(null, errors.put(name(r), r.getString(3)), "one error row per bad file");
        assertEquals(0L, r.getLong(2), "error rows count nothing");
        assertEquals(0, r.getInt(5));
      } else {
        assertTrue(r.isNullAt(3), "error is null on record rows");
        sums.merge(name(r), r.getLong(2), Long::sum);
      }
    }
    assertEquals(BAD.keySet(), errors.keySet(), "every bad file has its error row: " + errors);
    for (Map.Entry<String, String> e : errors.entrySet()) {
      assertTrue(
          e.getValue().contains(e.getKey()) && e.getValue().contains("byte offset"), e.getValue());
    }
    assertTrue(errors.get("README.txt").contains("not a profile"), errors.get("README.txt"));
    assertTrue(errors.get("killed.prof").contains("truncated"), errors.get("killed.prof"));
    assertEquals(goodTotal, sums.get("good.prof"));
    assertEquals(
        BAD.get("killed.prof"),
        sums.get("killed.prof"),
        "the truncated file's complete records are all read");
    assertEquals(BAD.size(), TestSpark.scanMetric(df, ProfileMetrics.PROBLEMS));
  }

  @Test
  void dropMalformedKeepsTheSameRecordsAndCountsTheProblems() {
    Dataset<Row> permissive =
        read("PERMISSIVE").where("kind <> 'error'").selectExpr("path", "record_offset", "count");
    Dataset<Row> dropped =
        read("DROPMALFORMED").selectExpr("path", "record_offset", "count", "kind");
    List<Row> rows = dropped.collectAsList();
    assertTrue(rows.stream().noneMatch(r -> r.getString(3).equals("error")));
    assertEquals(BAD.size(), TestSpark.scanMetric(dropped, ProfileMetrics.PROBLEMS));
    Dataset<Row> same = dropped.drop("kind");
    assertEquals(0, permissive.exceptAll(same).count());
    assertEquals(0, same.exceptAll(permissive).count());
  }

  @Test
  void failFastFailsNamingAFileAndOffset() {
    Exception e = assertThrows(Exception.class, () -> read("FAILFAST").collectAsList());
    String msg = ProfileSourceTest.fullMessage(e);
    assertTrue(BAD.keySet().stream().anyMatch(msg::contains) && msg.contains("byte offset"), msg);
  }

  @Test
  void ignoreCorruptFilesSkipsTheRestOfBadFilesSilentlyButCountsThem() {
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .option("ignoreCorruptFiles", "true")
            .load(dir.toString())
            .selectExpr("path", "kind", "count");
    List<Row> rows = df.collectAsList();
    assertTrue(rows.stream().noneMatch(r -> r.getString(1).equals("error")));
    long killed =
        rows.stream().filter(r -> name(r).equals("killed.prof")).mapToLong(r -> r.getLong(2)).sum();
    assertEquals(BAD.get("killed.prof"), killed, "rows read before the problem are kept");
    assertEquals(BAD.size(), TestSpark.scanMetric(df, ProfileMetrics.PROBLEMS));

    spark.conf().set("spark.sql.files.ignoreCorruptFiles", "true");
    try {
      assertEquals(
          0,
          spark.read().format("profile").load(dir.toString()).where("kind = 'error'").count(),
          "the session setting works too");
    } finally {
      spark.conf().unset("spark.sql.files.ignoreCorruptFiles");
    }
  }

  @Test
  void anUnknownModeIsRefused() {
    Exception e = assertThrows(Exception.class, () -> read("LENIENT").count());
    assertTrue(ProfileSourceTest.fullMessage(e).contains("PERMISSIVE, DROPMALFORMED, FAILFAST"));
  }

  @Test
  void aFileDeletedAfterPlanningIsReportedOrSkipped(@TempDir Path tmp) throws Exception {
    for (String n : List.of("a.prof", "b.prof")) {
      Files.copy(SampleData.GPERFTOOLS.resolve("deep_recursion.prof"), tmp.resolve(n));
    }
    Dataset<Row> strict = spark.read().format("profile").load(tmp.toString()).select("count");
    Dataset<Row> lenient =
        spark
            .read()
            .format("profile")
            .option("ignoreMissingFiles", "true")
            .load(tmp.toString())
            .select("count");
    long perFile = spark.read().format("profile").load(tmp.resolve("a.prof").toString()).count();
    Files.delete(tmp.resolve("b.prof")); // listed when the DataFrames were made, gone now

    Exception e = assertThrows(Exception.class, strict::collectAsList);
    String msg = ProfileSourceTest.fullMessage(e);
    assertTrue(msg.contains("b.prof") && msg.contains("ignoreMissingFiles"), msg);

    assertEquals(perFile, lenient.collectAsList().size());
    assertEquals(1, TestSpark.scanMetric(lenient, ProfileMetrics.MISSING_FILES));
  }

  @Test
  void aTaskThatFailsMidReadIsRetriedToTheSameRows(@TempDir Path tmp) throws Exception {
    Path big = tmp.resolve("big.prof");
    SyntheticCpuProfile.write(big, 3 << 20, 7);
    List<Row> clean =
        rows(
            spark
                .read()
                .format("profile")
                .option("maxPartitionBytes", "700k")
                .load(big.toString()));

    AtomicInteger failed = new AtomicInteger();
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onTaskEnd(SparkListenerTaskEnd end) {
            if (end.reason() != Success$.MODULE$) {
              failed.incrementAndGet();
            }
          }
        };
    spark.sparkContext().addSparkListener(listener);
    List<Row> retried;
    try {
      retried =
          rows(
              spark
                  .read()
                  .format("profile")
                  .option("maxPartitionBytes", "700k")
                  .option(ReadOptions.FAIL_FIRST_ATTEMPT_AFTER_ROWS.name(), "1000")
                  .load(big.toString()));
      long deadline = System.nanoTime() + 10_000_000_000L; // listener events arrive async
      while (failed.get() < 4 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    assertTrue(failed.get() >= 4, "the hook failed every split's first attempt: " + failed);
    assertEquals(clean.size(), retried.size());
    assertEquals(clean, retried);
  }

  /**
   * Queries without call chains read column batches; they must give exactly the rows that row reads
   * give, error rows and partial files included, and on a file cut into many splits.
   */
  @ParameterizedTest
  @ValueSource(strings = {"PERMISSIVE", "DROPMALFORMED", "ignoreCorruptFiles"})
  void columnarReadsGiveTheRowsOfRowReads(String how, @TempDir Path tmp) throws Exception {
    Path big = tmp.resolve("big.prof");
    SyntheticCpuProfile.write(big, 3 << 20, 11);
    String[] flat = {
      "path", "format", "kind", "count", "period", "period_unit", "record_offset", "error"
    };
    for (String path : List.of(dir.toString(), big.toString())) {
      Dataset<Row> columnar = flatRead(how, path, true).selectExpr(flat);
      Dataset<Row> rows = flatRead(how, path, false).selectExpr(flat);
      assertTrue(plan(columnar).contains("ColumnarToRow"), plan(columnar));
      assertTrue(!plan(rows).contains("ColumnarToRow"), plan(rows));
      List<Row> expected = sorted(rows.collectAsList());
      assertTrue(expected.size() > 100, "the read has rows: " + expected.size());
      assertEquals(expected, sorted(columnar.collectAsList()), how + " on " + path);
      assertEquals(
          TestSpark.scanMetric(rows, ProfileMetrics.RECORDS),
          TestSpark.scanMetric(columnar, ProfileMetrics.RECORDS));
    }
  }

  private static Dataset<Row> flatRead(String how, String path, boolean columnar) {
    var reader =
        spark
            .read()
            .format("profile")
            .option("columnar", columnar)
            .option("maxPartitionBytes", "700k");
    reader =
        how.equals("ignoreCorruptFiles") ? reader.option(how, "true") : reader.option("mode", how);
    return reader.load(path);
  }

  private static String plan(Dataset<Row> df) {
    return TestSpark.finalPlan(df).toString();
  }

  private static List<Row> sorted(List<Row> rows) {
    List<Row> out = new ArrayList<>(rows);
    out.sort(java.util.Comparator.comparing(Row::toString));
    return out;
  }

  private static List<Row> rows(Dataset<Row> df) {
    return new ArrayList<>(
        df.selectExpr("record_offset", "count", "pcs").orderBy("record_offset").collectAsList());
  }
}
