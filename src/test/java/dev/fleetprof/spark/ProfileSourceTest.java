package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.CpuProfiles.Decoded;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.GeneratedCode;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The {@code profile} source end to end in a real local Spark session, on the real samples. */
@ExtendWith(GeneratedCode.class)
class ProfileSourceTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void everySampleProfileSumsToPprofsTotal() throws Exception {
    Dataset<Row> df = spark.read().format("profile").load(SampleData.GPERFTOOLS.toString());
    Map<String, Long> sums = new HashMap<>();
    for (Row r : df.groupBy("path").sum("count").collectAsList()) {
      sums.put(Path.of(java.net.URI.create(r.getString(0))).getFileName().toString(), r.getLong(1));
    }
    for (Path p : SampleData.gperftoolsProfiles()) {
      long expected = SampleData.pprofSampleCount(p);
      assertEquals(expected, sums.getOrDefault(p.getFileName().toString(), 0L), p.toString());
    }
    assertFalse(sums.containsKey("zero_samples.prof"), "a zero-sample profile has no rows");
    assertTrue(
        sums.keySet().stream().allMatch(n -> n.endsWith(".prof")),
        "_reference/ is skipped: " + sums.keySet());
    assertEquals(
        List.of("gperftools"),
        df.select("format").distinct().as(org.apache.spark.sql.Encoders.STRING()).collectAsList());
  }

  @Test
  void schemaIsTheDocumentedContract() {
    Dataset<Row> df = spark.read().format("profile").load(SampleData.GPERFTOOLS.toString());
    assertArrayEquals(
        new String[] {
          "path",
          "format",
          "kind",
          "pcs",
          "count",
          "mapping",
          "frames",
          "period",
          "period_unit",
          "record_offset",
          "histogram",
          "dcpi",
          "pprof",
          "error",
          "stack_id"
        },
        df.schema().fieldNames());
    assertEquals(
        "array<struct<module:string,offset:bigint>>",
        df.schema().apply("frames").dataType().simpleString());
    assertEquals(
        "struct<start:bigint,limit:bigint,offset:bigint,path:string,build_id:string>",
        df.schema().apply("mapping").dataType().simpleString());
  }

  private List<DecodedRecord> readRecords(Path file, long maxPartitionBytes) {
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .option("maxPartitionBytes", maxPartitionBytes)
            .option("openCostInBytes", 0)
            .load(file.toString())
            .select("record_offset", "count", "pcs");
    List<DecodedRecord> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      out.add(DecodedRecord.ofRow(r));
    }
    // No shuffle: sort on the driver.
    out.sort(java.util.Comparator.comparingLong(DecodedRecord::offset));
    return out;
  }

  @Test
  void everySplitSizeGivesTheSameRowsAsTheSequentialDecode() throws Exception {
    for (Path p : SampleData.gperftoolsProfiles()) {
      byte[] data = SampleData.read(p);
      List<DecodedRecord> expected = CpuProfiles.decode(p.toString(), data).records();
      for (long size :
          new long[] {64, 72, 100, 128, 200, 256, 333, 512, 1000, 4096, 8192, data.length}) {
        assertEquals(expected, readRecords(p, size), p + " with splits of " + size + " bytes");
      }
    }
  }

  @Test
  void minPartitionNumPacksFilesIntoAtLeastThatManyPartitionsAndReadsTheSameRecords() {
    List<Row> expected = null;
    for (int n : new int[] {1, 3, 5, 12}) {
      Dataset<Row> df =
          spark
              .read()
              .format("profile")
              .option("maxPartitionBytes", "1g")
              .option("openCostInBytes", 0)
              .option("minPartitionNum", n)
              .load(SampleData.GPERFTOOLS.toString());
      int partitions = df.rdd().getNumPartitions();
      // Each partition holds at most 1/n of the bytes: n or more partitions, one when n is 1.
      assertTrue(n == 1 ? partitions == 1 : partitions >= n, n + ": " + partitions + " partitions");
      List<Row> totals =
          df.groupBy("path")
              .agg(
                  org.apache.spark.sql.functions.count("*"),
                  org.apache.spark.sql.functions.sum("count"))
              .orderBy("path")
              .collectAsList();
      if (expected == null) {
        expected = totals;
        assertTrue(totals.size() > 1, totals::toString);
      }
      assertEquals(expected, totals, "minPartitionNum " + n);
    }
  }

  @Test
  void smallSplitsReallySplitAndResynchronise() {
    Path p = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .option("maxPartitionBytes", 1024)
            .option("openCostInBytes", 0)
            .load(p.toString())
            .select("count");
    assertTrue(df.rdd().getNumPartitions() > 20, "partitions: " + df.rdd().getNumPartitions());
    Dataset<Row> sum = df.agg(org.apache.spark.sql.functions.sum("count"));
    sum.collectAsList();
    assertTrue(TestSpark.scanMetric(sum, ProfileMetrics.RESYNCED_SPLITS) > 20);
    assertEquals(1, TestSpark.scanMetric(sum, ProfileMetrics.FILES));
  }

  @Test
  void aGeneratedProfileOfTensOfMegabytesSplitsExactly(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("big.prof");
    long records = dev.fleetprof.testing.SyntheticCpuProfile.write(file, 24L << 20, 42);
    Decoded sequential = CpuProfiles.decode(file.toString(), Files.readAllBytes(file));
    assertEquals(records, sequential.records().size());
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .option("maxPartitionBytes", 700_000)
            .option("openCostInBytes", 0)
            .load(file.toString())
            .select("record_offset", "count", "pcs")
            .orderBy("record_offset");
    java.util.Iterator<Row> it = df.toLocalIterator();
    int i = 0;
    while (it.hasNext()) {
      Row r = it.next();
      DecodedRecord e = sequential.records().get(i++);
      assertEquals(e, DecodedRecord.ofRow(r), "row " + i);
    }
    assertEquals(records, i);
  }

  @Test
  void countQueriesNeverDecodeCallChains() {
    Dataset<Row> profiles = spark.read().format("profile").load(SampleData.GPERFTOOLS.toString());
    Dataset<Row> sum = profiles.agg(org.apache.spark.sql.functions.sum("count"));
    sum.collectAsList();
    long records = TestSpark.scanMetric(sum, ProfileMetrics.RECORDS);
    assertTrue(records > 500, "records " + records);
    assertEquals(0, TestSpark.scanMetric(sum, ProfileMetrics.CHAINS_DECODED));

    Dataset<Row> count = profiles.groupBy().count();
    count.collectAsList();
    assertEquals(0, TestSpark.scanMetric(count, ProfileMetrics.CHAINS_DECODED));

    Dataset<Row> depth = profiles.selectExpr("max(size(pcs))");
    depth.collectAsList();
    assertEquals(records, TestSpark.scanMetric(depth, ProfileMetrics.CHAINS_DECODED));
  }

  @Test
  void framesAndMappingFollowTheMapsText() {
    Path p = SampleData.GPERFTOOLS.resolve("shared_library.prof");
    List<Row> rows =
        spark
            .read()
            .format("profile")
            .load(p.toString())
            .selectExpr("pcs", "mapping", "frames", "period", "period_unit")
            .collectAsList();
    int inLib = 0;
    for (Row r : rows) {
      List<Long> pcs = r.getList(0);
      Row mapping = r.getStruct(1);
      List<Row> frames = r.getList(2);
      assertEquals(pcs.size(), frames.size());
      assertTrue(mapping != null, "every leaf of this program is in a mapped file");
      assertEquals(mapping.getString(3), frames.get(0).getString(0));
      assertEquals(pcs.get(0) - mapping.getLong(0) + mapping.getLong(2), frames.get(0).getLong(1));
      if (mapping.getString(3).endsWith("/libwork.so")) {
        inLib++;
      }
      assertEquals(1000L, r.getLong(3));
      assertEquals("microseconds", r.getString(4));
    }
    assertTrue(inLib > rows.size() / 2, "most samples are in libwork.so: " + inLib);
  }

  @Test
  void sqlTemporaryViewWorks() throws Exception {
    Path p = SampleData.GPERFTOOLS.resolve("deep_recursion.prof");
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW deep USING profile OPTIONS (path '" + p + "')");
    long sum = spark.sql("SELECT sum(count) FROM deep").first().getLong(0);
    assertEquals(SampleData.pprofSampleCount(p), sum);
  }

  @Test
  void globsSeveralPathsAndPathGlobFilter() throws Exception {
    String dir = SampleData.GPERFTOOLS.toString();
    long all = spark.read().format("profile").load(dir).count();
    long two =
        spark
            .read()
            .format("profile")
            .load(dir + "/x86_32.prof", dir + "/deep_recursion.prof")
            .count();
    long x86 = spark.read().format("profile").load(dir + "/x86_32.prof").count();
    long deep = spark.read().format("profile").load(dir + "/deep_recursion.prof").count();
    assertEquals(x86 + deep, two);
    assertEquals(x86, spark.read().format("profile").load(dir + "/x86_*.prof").count());
    assertEquals(
        x86, spark.read().format("profile").option("pathGlobFilter", "x86*").load(dir).count());
    assertTrue(all > two);
    Exception e =
        assertThrows(
            Exception.class, () -> spark.read().format("profile").load(dir + "/no-such.prof"));
    assertTrue(e.getMessage().contains("no-such.prof"), e.getMessage());
  }

  @Test
  void gzipProfilesReadTransparentlyAndUnsplit(@TempDir Path dir) throws Exception {
    Path src = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    Path gz = dir.resolve("multithreaded.prof.gz");
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(src));
    }
    List<DecodedRecord> expected = readRecords(src, 1 << 30);
    assertEquals(expected, readRecords(gz, 1 << 30));
    assertEquals(expected, readRecords(gz, 64));
    List<Row> frames =
        spark
            .read()
            .format("profile")
            .load(gz.toString())
            .selectExpr("frames[0].module")
            .distinct()
            .collectAsList();
    assertTrue(frames.stream().anyMatch(r -> r.getString(0) != null), "mappings read from .gz");
  }

  @Test
  void truncatedAndEmptyFilesKeepTheirCompleteRecords(@TempDir Path dir) throws Exception {
    byte[] data = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    Decoded full = CpuProfiles.decode("full", data);
    int cut = (int) full.records().get(100).offset() + 20; // inside record 100
    Files.write(dir.resolve("killed.prof"), java.util.Arrays.copyOf(data, cut));
    Files.write(dir.resolve("empty.prof"), new byte[0]);
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .load(dir.toString())
            .select("record_offset", "kind", "error");
    List<Row> rows = df.collectAsList();
    assertEquals(101, rows.size(), "100 complete records and one error row");
    List<Row> errors = rows.stream().filter(r -> r.getString(1).equals("error")).toList();
    assertEquals(1, errors.size());
    assertEquals(
        full.records().get(100).offset(),
        errors.get(0).getLong(0),
        "the error row points at the cut record");
    assertTrue(
        errors.get(0).getString(2).contains("killed.prof")
            && errors.get(0).getString(2).contains("truncated"),
        errors.get(0).getString(2));
    assertEquals(1, TestSpark.scanMetric(df, ProfileMetrics.TRUNCATED_FILES));
    assertEquals(2, TestSpark.scanMetric(df, ProfileMetrics.FILES));
  }

  @Test
  void aFileThatIsNoProfileIsNamedInTheError(@TempDir Path dir) throws Exception {
    Path readme = dir.resolve("README.txt");
    Files.writeString(readme, "These are the profiles of web042.\n");
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("mode", "FAILFAST")
                    .load(dir.toString())
                    .collectAsList());
    String msg = fullMessage(e);
    assertTrue(msg.contains(readme.getFileName().toString()) && msg.contains("not a profile"), msg);

    Exception forced =
        assertThrows(
            Exception.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("mode", "FAILFAST")
                    .option("format", "gprof")
                    .load(SampleData.GPERFTOOLS.resolve("x86_32.prof").toString())
                    .collectAsList());
    assertTrue(fullMessage(forced).contains("x86_32.prof"), fullMessage(forced));
  }

  static String fullMessage(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c.getMessage()).append(" | ");
    }
    return b.toString();
  }
}
