package dev.fleetprof.spark.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** key=value directories become columns, as Spark's partition discovery makes them. */
class PartitionDiscoveryTest {
  private static SparkSession spark;
  @TempDir static Path root;

  /** "date/host" → the total count of the profile placed there, as pprof counts it. */
  private static final Map<String, Long> EXPECTED = new TreeMap<>();

  @BeforeAll
  static void layOut() throws Exception {
    spark = TestSpark.get();
    place("2026-11-20", "web042", "", "multithreaded.prof");
    place("2026-11-20", "web043", "", "deep_recursion.prof");
    place("2026-11-21", "web042", "run%3D2/", "shared_library.prof"); // plain dir below, escaped
  }

  private static void place(String date, String host, String below, String sample) {
    Path profile = SampleData.GPERFTOOLS.resolve(sample);
    new FleetFixture(root).copy(date, host, profile, below + "cpu.prof");
    EXPECTED.merge(date + "/" + host, SampleData.pprofSampleCount(profile), Long::sum);
  }

  private static Map<String, Long> totals(Dataset<Row> df) {
    Map<String, Long> out = new TreeMap<>();
    for (Row r : df.groupBy("date", "host").sum("count").collectAsList()) {
      out.put(r.getDate(0).toLocalDate() + "/" + r.getString(1), r.getLong(2));
    }
    return out;
  }

  @Test
  void directoriesBecomeTypedColumns() {
    Dataset<Row> df = spark.read().format("profile").load(root.toString());
    String[] names = df.schema().fieldNames();
    assertEquals("date", names[names.length - 2]);
    assertEquals("host", names[names.length - 1]);
    assertEquals(DataTypes.DateType, df.schema().apply("date").dataType());
    assertEquals(DataTypes.StringType, df.schema().apply("host").dataType());
    assertEquals(EXPECTED, totals(df));
  }

  @Test
  void filtersOnPartitionColumnsSkipFiles() {
    Dataset<Row> day =
        spark
            .read()
            .format("profile")
            .load(root.toString())
            .where("date = DATE'2026-11-20' AND host IN ('web042', 'web043')");
    Map<String, Long> got = totals(day);
    assertEquals(2, got.size());
    assertEquals(EXPECTED.get("2026-11-20/web042"), got.get("2026-11-20/web042"));
    Dataset<Row> counted =
        spark
            .read()
            .format("profile")
            .load(root.toString())
            .where("date > '2026-11-20'")
            .select("count");
    counted.collectAsList();
    assertEquals(
        1,
        TestSpark.scanMetric(counted, ProfileMetrics.FILES),
        "only the 2026-11-21 file is opened");
    assertTrue(TestSpark.finalPlan(counted).toString().contains("partitionFilters"));
  }

  @Test
  void sqlSeesThePartitionColumns() {
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW partitioned USING profile OPTIONS (path '" + root + "')");
    Row r =
        spark
            .sql(
                "SELECT count(DISTINCT host), sum(count) FROM partitioned"
                    + " WHERE date = '2026-11-21'")
            .first();
    assertEquals(1L, r.getLong(0));
    assertEquals(EXPECTED.get("2026-11-21/web042"), r.getLong(1));
  }

  @Test
  void basePathKeepsColumnsAboveTheLoadedDirectory() {
    String day = root.resolve("date=2026-11-20").toString();
    Dataset<Row> below = spark.read().format("profile").load(day);
    assertEquals(List.of("host"), tail(below, 1));
    Dataset<Row> based =
        spark.read().format("profile").option("basePath", root.toString()).load(day);
    assertEquals(List.of("date", "host"), tail(based, 2));
    assertEquals(
        LocalDate.of(2026, 11, 20),
        based.select("date").distinct().first().getDate(0).toLocalDate());
  }

  @Test
  void typeInferenceCanBeTurnedOff() {
    spark.conf().set("spark.sql.sources.partitionColumnTypeInference.enabled", "false");
    try {
      Dataset<Row> df = spark.read().format("profile").load(root.toString());
      assertEquals(DataTypes.StringType, df.schema().apply("date").dataType());
    } finally {
      spark.conf().unset("spark.sql.sources.partitionColumnTypeInference.enabled");
    }
  }

  @Test
  void conflictingDirectoriesAreRefusedClearly(@TempDir Path tmp) throws Exception {
    for (String d : List.of("date=2026-11-20", "host=web042")) {
      Files.createDirectories(tmp.resolve(d));
      Files.copy(SampleData.GPERFTOOLS.resolve("x86_32.prof"), tmp.resolve(d).resolve("a.prof"));
    }
    Exception e =
        assertThrows(Exception.class, () -> spark.read().format("profile").load(tmp.toString()));
    assertTrue(e.getMessage().contains("[CONFLICTING_PARTITION_COLUMN_NAMES]"), e.getMessage());
    assertTrue(e.getMessage().contains(tmp.resolve("host=web042").toString()), e.getMessage());
    assertEquals(
        "CONFLICTING_PARTITION_COLUMN_NAMES",
        assertInstanceOf(PartitionDiscovery.PartitionDiscoveryException.class, e).getCondition());
  }

  /** The files a query on a partition column opens, and its rows' values of that column. */
  private static long filesOpened(Path dir, String where) {
    Dataset<Row> df =
        spark.read().format("profile").load(dir.toString()).where(where).select("count");
    df.collectAsList();
    return TestSpark.scanMetric(df, ProfileMetrics.FILES);
  }

  private static Path tree(Path tmp, String... dirs) throws Exception {
    for (String d : dirs) {
      Files.createDirectories(tmp.resolve(d));
      Files.copy(SampleData.GPERFTOOLS.resolve("x86_32.prof"), tmp.resolve(d).resolve("a.prof"));
    }
    return tmp;
  }

  @Test
  void filtersOnDoublesSkipFilesExactly(@TempDir Path tmp) throws Exception {
    Path dir = tree(tmp, "x=1", "x=1.5", "x=2.5", "x=NaN");
    assertEquals(
        DataTypes.DoubleType,
        spark.read().format("profile").load(dir.toString()).schema().apply("x").dataType());
    assertEquals(1, filesOpened(dir, "x = 1.5"), "1.5 is not 1 (nor 2)");
    assertEquals(1, filesOpened(dir, "x = 1"));
    assertEquals(3, filesOpened(dir, "x > 1"), "1.5, 2.5 and NaN, above every number in Spark");
    assertEquals(0, filesOpened(dir, "x IS NULL"), "NaN is not null");
  }

  @Test
  void filtersOnTimestampsAndDecimalsSkipFiles(@TempDir Path tmp) throws Exception {
    Path ts =
        tree(
            tmp.resolve("ts"),
            "t=2026-11-20 10%3A00%3A00",
            "t=2026-11-20 11%3A00%3A00",
            "t=2026-11-21");
    assertEquals(1, filesOpened(ts, "t = TIMESTAMP'2026-11-20 10:00:00'"));
    assertEquals(2, filesOpened(ts, "t > TIMESTAMP'2026-11-20 10:30:00'"));
    assertEquals(1, filesOpened(ts, "t >= DATE'2026-11-21'"));
    Path dec = tree(tmp.resolve("dec"), "d=99999999999999999999", "d=1");
    assertEquals(
        DataTypes.createDecimalType(20, 0),
        spark.read().format("profile").load(dec.toString()).schema().apply("d").dataType());
    assertEquals(1, filesOpened(dec, "d = 1"));
    assertEquals(1, filesOpened(dec, "d > 99999999999999999998"));
  }

  /**
   * Deliberately unlike Spark, which would let the directory's value replace the column's: a {@code
   * count=3} directory would silently replace every record's count.
   */
  @Test
  void aKeyThatIsASourceColumnIsRefused(@TempDir Path tmp) throws Exception {
    Path dir = tree(tmp, "count=3");
    Exception e =
        assertThrows(Exception.class, () -> spark.read().format("profile").load(dir.toString()));
    assertTrue(e.getMessage().contains("'count' is also a column of the source"), e.getMessage());
  }

  @Test
  void filesOutsidePartitionDirectoriesAreNotRead(@TempDir Path tmp) throws Exception {
    Path dir = tree(tmp, "", "x=1");
    assertEquals(1, filesOpened(dir, "true"), "as Spark: only the partition directory's file");
  }

  @Test
  void parsesWhatSparkParses() {
    // Plain directories below partition directories are passed over; one above them ends them,
    // so a=1 is not a column here.
    List<String[]> kv = PartitionDiscovery.parse("file:/r/a=1/plain/b=x%2Fy/c/f.prof", "file:/r");
    assertEquals(1, kv.size());
    assertEquals("b", kv.get(0)[0]);
    assertEquals("x/y", kv.get(0)[1]);
    assertEquals(
        2,
        PartitionDiscovery.parse("file:/r/a=1/b=__HIVE_DEFAULT_PARTITION__/f", "file:/r/").size());
    assertEquals(
        null,
        PartitionDiscovery.parse("file:/r/a=1/b=__HIVE_DEFAULT_PARTITION__/f", "file:/r")
            .get(1)[1]);
    assertEquals(0, PartitionDiscovery.parse("file:/r/a=1/f", "file:/r/a=1").size());
  }

  private static List<String> tail(Dataset<Row> df, int n) {
    String[] names = df.schema().fieldNames();
    return List.of(names).subList(names.length - n, names.length);
  }
}
