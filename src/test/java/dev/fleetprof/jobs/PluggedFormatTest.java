package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A format defined only under {@code src/test} ({@code format/textprofile}), registered through
 * {@code META-INF/services} and nothing else, read through the source, through path SQL, in slices
 * of every size, and by the fleet job: what it reads is checked against the test's own records,
 * never against the source's output. Registering a format is a change of the whole JVM (its name
 * joins every error message that lists the formats), so this test runs in a surefire execution of
 * its own ({@code plugin-format}, with {@code src/test/plugin-format} on the class path); elsewhere
 * it is skipped.
 */
class PluggedFormatTest {
  private static final String NAME = "textprofile";
  private static final long PERIOD_MICROS = 10_000;

  private SparkSession spark;

  /**
   * One record as the test wrote it: where its line starts, its count and chain (hex, leaf first).
   */
  private record Rec(long offset, long count, List<Long> chain) {}

  @BeforeEach
  void registered() {
    assumeTrue(
        ProfileFormats.byName(NAME) != null,
        "needs the test format registered: run by the plugin-format execution"
            + " (mvn test-compile surefire:test@plugin-format)");
    spark = TestSpark.get();
  }

  /** Writes a file of {@code n} records with chains from a small set; returns its records. */
  private static List<Rec> write(Path file, int n, long seed) throws IOException {
    Random random = new Random(seed);
    StringBuilder text =
        new StringBuilder("%fleetprof-test-profile " + PERIOD_MICROS + " microseconds\n");
    List<Rec> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long count = 1 + random.nextInt(9);
      int depth = 1 + random.nextInt(4);
      List<Long> chain = new ArrayList<>();
      StringBuilder line = new StringBuilder(Long.toString(count));
      for (int d = 0; d < depth; d++) {
        long pc = 0x401000L + 0x10L * random.nextInt(6) + 0x1000L * d;
        chain.add(pc);
        line.append(" 0x").append(Long.toHexString(pc));
      }
      out.add(new Rec(text.toString().getBytes(StandardCharsets.US_ASCII).length, count, chain));
      text.append(line).append('\n');
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.US_ASCII);
    return out;
  }

  private static long total(List<Rec> recs) {
    return recs.stream().mapToLong(Rec::count).sum();
  }

  /** The source's rows of a read as records, in file order. */
  private static List<Rec> records(Dataset<Row> rows) {
    List<Rec> out = new ArrayList<>();
    for (Row r :
        rows.where("kind = 'sample'")
            .select("record_offset", "count", "pcs")
            .orderBy("record_offset")
            .collectAsList()) {
      out.add(new Rec(r.getLong(0), r.getLong(1), r.getList(2)));
    }
    return out;
  }

  @Test
  void theSourceReadsItsRecordsAndPeriod(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve("one.txtprof");
    List<Rec> recs = write(file, 50, 1);
    Dataset<Row> rows = spark.read().format("profile").load(file.toString());
    assertEquals(recs, records(rows));
    Row facts =
        rows.selectExpr(
                "min(format)", "max(format)", "min(period)", "max(period_unit)", "count(error)")
            .first();
    assertEquals(NAME, facts.getString(0));
    assertEquals(NAME, facts.getString(1));
    assertEquals(PERIOD_MICROS, facts.getLong(2));
    assertEquals("microseconds", facts.getString(3));
    assertEquals(0L, facts.getLong(4));
    // Named by the read, as any built-in format can be.
    assertEquals(
        recs, records(spark.read().format("profile").option("format", NAME).load(file.toString())));
  }

  @Test
  void pathSqlReadsIt(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve("sql.txtprof");
    List<Rec> recs = write(file, 40, 2);
    Row r =
        spark
            .sql(
                "SELECT format, sum(count), count(1) FROM profile.`"
                    + file
                    + "` WHERE kind = 'sample' GROUP BY format")
            .first();
    assertEquals(NAME, r.getString(0));
    assertEquals(total(recs), ((Number) r.get(1)).longValue());
    assertEquals(recs.size(), r.getLong(2));
  }

  /**
   * The format's split hook, driven by the source alone: the same file read in slices of many sizes
   * gives each record once, as read whole.
   */
  @Test
  void everySplitSizeGivesTheSameRecords(@TempDir Path tmp) throws IOException {
    Path file = tmp.resolve("big.txtprof");
    List<Rec> recs = write(file, 400, 3);
    long size = Files.size(file);
    // Sizes shorter than a line (some slices then start no record), around one, many lines, and
    // more than the file.
    for (long split : new long[] {17, 24, 100, 1000, size / 3, size - 1, size, 1L << 30}) {
      Dataset<Row> rows =
          spark
              .read()
              .format("profile")
              .option("maxPartitionBytes", split)
              .option("openCostInBytes", 0)
              .load(file.toString());
      assertEquals(recs, records(rows), "split size " + split);
      // Slices that start no record give no rows: at least two gave some. Even 1 GiB splits the
      // file in two, as Spark's file sources would: a slice is at most the bytes per core.
      long slices = rows.select("_metadata.file_block_start").distinct().count();
      assertTrue(slices > 1, "split size " + split + ": " + slices + " slices");
    }
  }

  @Test
  void theFleetJobAddsItUp(@TempDir Path tmp) throws Exception {
    Path in = tmp.resolve("in");
    List<Rec> day1 = new ArrayList<>();
    List<Rec> day2 = new ArrayList<>();
    day1.addAll(write(in.resolve("date=2026-11-20/host=a/p1.txtprof"), 30, 10));
    day1.addAll(write(in.resolve("date=2026-11-20/host=b/p2.txtprof"), 30, 11));
    day2.addAll(write(in.resolve("date=2026-11-21/host=a/p3.txtprof"), 20, 12));
    String out = tmp.resolve("out").toString();
    FleetSummary s =
        FleetAggregate.run(
            spark,
            FleetAggregate.Args.parse(new String[] {"--input", in.toString(), "--output", out}));

    long all = total(day1) + total(day2);
    assertEquals(List.of("2026-11-20", "2026-11-21"), s.dates());
    assertEquals(3, s.files());
    assertEquals(0, s.filesWithProblems());
    assertEquals(BigDecimal.valueOf(all), s.totalCount());
    // Each sample is one period of CPU time, as the format's measure says.
    FleetSummary.MeasureTotal cpu = s.measures().get(Measures.CPU);
    assertEquals("nanoseconds", cpu.unit());
    assertEquals(BigDecimal.valueOf(all), cpu.count());
    assertEquals(BigDecimal.valueOf(all * PERIOD_MICROS * 1000), cpu.value());

    Dataset<Row> stacks = spark.read().parquet(out + "/stacks");
    Row d1 =
        stacks
            .where("date = '2026-11-20'")
            .selectExpr("sum(count)", "count(1)", "min(measure)", "max(measure)")
            .first();
    assertEquals(BigDecimal.valueOf(total(day1)), d1.getDecimal(0));
    Set<List<Long>> chains = new HashSet<>();
    day1.forEach(r -> chains.add(r.chain()));
    assertEquals(chains.size(), d1.getLong(1), "one row per distinct stack of the day");
    assertEquals(Measures.CPU, d1.getString(2));
    assertEquals(Measures.CPU, d1.getString(3));
    assertEquals(
        BigDecimal.valueOf(total(day1.subList(0, 30))),
        spark
            .read()
            .parquet(out + "/host_stacks")
            .where("date = '2026-11-20' AND host = 'a'")
            .selectExpr("sum(count)")
            .first()
            .getDecimal(0));
    Row files =
        spark
            .read()
            .parquet(out + "/files")
            .selectExpr("min(format)", "max(format)", "count(1)")
            .first();
    assertEquals(NAME, files.getString(0));
    assertEquals(NAME, files.getString(1));
    assertEquals(3L, files.getLong(2));
  }
}
