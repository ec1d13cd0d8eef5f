package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.DeltaKernelReader;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers while a date is re-run: one that takes the date's pointer first and reads the directories
 * it names (the job's own reads, {@code jobs/sql}'s views) sees one whole run, the previous or the
 * new, in every dataset at once; never a mix, a missing partition or a file gone from under it. An
 * engine that reads the datasets as Delta tables sees one run or the other in each table. The
 * totals expected come from pprof's count of each sample file's samples.
 */
class FleetAggregateReadersTest {
  private static final String DAY = "2026-11-20";
  private static final Path SAMPLE = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
  private final SparkSession spark = TestSpark.get();

  private static String fleet(Path root, int copies) {
    FleetFixture fleet = new FleetFixture(root);
    for (int i = 0; i < copies; i++) {
      fleet.copy(DAY, "web" + (i % 3), SAMPLE, i + ".prof");
    }
    return fleet.toString();
  }

  private FleetSummary run(String in, String out, String... more) throws Exception {
    List<String> argv = new ArrayList<>(List.of("--input", in, "--output", out, "--date", DAY));
    argv.addAll(List.of(more));
    return FleetAggregate.run(spark, FleetAggregate.Args.parse(argv.toArray(new String[0])));
  }

  /** What a reader sees of the date in three datasets, read after one look at the pointer. */
  private record Seen(long files, BigDecimal stacks, BigDecimal hostStacks) {
    boolean isRunOf(int copies, long perFile) {
      BigDecimal total = BigDecimal.valueOf(copies * perFile);
      return files == copies && total.equals(stacks) && total.equals(hostStacks);
    }
  }

  private Seen look(SparkSession session, String out) throws Exception {
    FleetOutput.Published published = FleetOutput.published(session, out);
    Dataset<Row> files = published.read("files");
    Dataset<Row> stacks = published.read("stacks");
    Dataset<Row> hosts = published.read("host_stacks");
    return new Seen(
        files.where(col("date").equalTo(DAY)).count(), cpuSamples(stacks), cpuSamples(hosts));
  }

  private static BigDecimal cpuSamples(Dataset<Row> table) {
    BigDecimal s =
        table
            .where(col("date").equalTo(DAY).and(col("measure").equalTo("cpu")))
            .agg(sum("count"))
            .first()
            .getDecimal(0);
    return s == null ? BigDecimal.ZERO : s.setScale(0);
  }

  /**
   * What a reader that is neither Spark nor fleetprof (Delta Kernel, as another engine) sees of the
   * date in one table's latest version: its CPU samples and the runs its rows come from.
   */
  private record SeenInTable(long version, BigDecimal samples, Set<Object> runs) {}

  private static SeenInTable lookWithoutSpark(DeltaKernelReader kernel, String table) {
    DeltaKernelReader.Version v = kernel.latest(table, List.of("date", "run", "measure", "count"));
    BigDecimal samples = BigDecimal.ZERO;
    Set<Object> runs = new HashSet<>();
    for (Map<String, Object> row : v.rows()) {
      if (LocalDate.parse(DAY).equals(row.get("date"))) {
        runs.add(row.get("run"));
        if ("cpu".equals(row.get("measure"))) {
          samples = samples.add((BigDecimal) row.get("count"));
        }
      }
    }
    return new SeenInTable(v.version(), samples.setScale(0), runs);
  }

  @Test
  void aReaderDuringAReRunSeesTheWholePreviousRunOrTheWholeNewOne(@TempDir Path tmp)
      throws Exception {
    long perFile = SampleData.pprofSampleCount(SAMPLE);
    String out = tmp.resolve("out").toString();
    run(fleet(tmp.resolve("before"), 2), out);
    String after = fleet(tmp.resolve("after"), 5);

    SparkSession reader = spark.newSession();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Seen> during = new ArrayList<>();
    CompletableFuture<Void> poll =
        CompletableFuture.runAsync(
            () -> {
              try {
                while (running.get()) {
                  during.add(look(reader, out));
                }
              } catch (Exception e) {
                throw new IllegalStateException("a reader failed during the re-run", e);
              }
            });
    // Another engine polling the Delta tables meanwhile: each table alone is one run or the other.
    DeltaKernelReader kernel = new DeltaKernelReader();
    List<SeenInTable> duringWithoutSpark = new ArrayList<>();
    CompletableFuture<Void> pollWithoutSpark =
        CompletableFuture.runAsync(
            () -> {
              while (running.get()) {
                for (String table : List.of("stacks", "host_stacks")) {
                  duringWithoutSpark.add(lookWithoutSpark(kernel, out + "/" + table));
                }
              }
            });
    try {
      run(after, out);
    } finally {
      running.set(false);
    }
    poll.get(); // a reader's failure (a file gone, a date half read) fails the test here
    pollWithoutSpark.get();

    assertFalse(during.isEmpty(), "the reader looked while the re-run ran");
    for (Seen s : during) {
      assertTrue(s.isRunOf(2, perFile) || s.isRunOf(5, perFile), "a mix of two runs: " + s);
    }
    assertTrue(look(spark, out).isRunOf(5, perFile), "after the re-run: the new run");

    assertFalse(duringWithoutSpark.isEmpty(), "the other engine looked while the re-run ran");
    for (SeenInTable s : duringWithoutSpark) {
      assertEquals(1, s.runs().size(), "one run of the date in a table: " + s);
      assertTrue(
          s.samples().equals(BigDecimal.valueOf(2 * perFile))
              || s.samples().equals(BigDecimal.valueOf(5 * perFile)),
          "the old run's total or the new one's, never both: " + s);
    }
    for (String table : List.of("stacks", "host_stacks")) {
      SeenInTable now = lookWithoutSpark(kernel, out + "/" + table);
      assertEquals(BigDecimal.valueOf(5 * perFile), now.samples(), table + " after the re-run");
      assertEquals(1, now.runs().size(), table + ": " + now);
    }
  }

  @Test
  void replacedRunsStayForTheirReadersThenGo(@TempDir Path tmp) throws Exception {
    long perFile = SampleData.pprofSampleCount(SAMPLE);
    String out = tmp.resolve("out").toString();
    run(fleet(tmp.resolve("one"), 1), out);
    // A query planned on the first run (the listing is made here), run after a re-run replaced it.
    Dataset<Row> planned = FleetOutput.read(spark, out, "stacks");
    run(fleet(tmp.resolve("two"), 2), out);
    assertEquals(BigDecimal.valueOf(perFile), cpuSamples(planned), "the replaced run is readable");
    assertEquals(2, runDirectories(out, "stacks").size(), "kept for an hour by default");

    // A bare Parquet reader sees both runs until they go, and the pointer tells them apart: the
    // query the README gives for readers without fleetprof.
    Dataset<Row> bare =
        spark.sql(
            "SELECT s.* FROM parquet.`"
                + out
                + "/stacks` s JOIN (SELECT date, datasets.stacks AS run FROM json.`"
                + out
                + "/_current`) c ON s.date = c.date AND s.run = c.run");
    assertEquals(BigDecimal.valueOf(2 * perFile), cpuSamples(bare));

    // --keep-replaced 0: the next run deletes every replaced directory, of every date.
    run(fleet(tmp.resolve("three"), 3), out, "--keep-replaced", "0");
    for (String dataset : FleetAggregate.DATASETS) {
      List<Path> left = runDirectories(out, dataset);
      assertTrue(left.size() <= 1, dataset + ": " + left);
    }
    assertEquals(
        BigDecimal.valueOf(3 * perFile),
        cpuSamples(spark.read().parquet(out + "/stacks")),
        "one run left: a bare reader's totals are the published ones");
    assertTrue(look(spark, out).isRunOf(3, perFile));
  }

  @Test
  void aRunThatNeverPublishedIsNeverReadAndIsDeletedByTheNext(@TempDir Path tmp) throws Exception {
    long perFile = SampleData.pprofSampleCount(SAMPLE);
    String out = tmp.resolve("out").toString();
    run(fleet(tmp.resolve("one"), 1), out);
    // What a run killed after writing stacks/ leaves: a run directory no pointer names.
    Path published = runDirectories(out, "stacks").get(0);
    Path orphan = published.resolveSibling("run=19700101T000000Z-deadbeef");
    try (Stream<Path> files = Files.list(published)) {
      Files.createDirectories(orphan);
      for (Path f : files.toList()) {
        Files.copy(f, orphan.resolve(f.getFileName()));
      }
    }
    assertTrue(look(spark, out).isRunOf(1, perFile), "the orphan is not read");

    run(fleet(tmp.resolve("two"), 2), out);
    assertFalse(Files.exists(orphan), "deleted by the next run of the date");
    assertTrue(look(spark, out).isRunOf(2, perFile));
  }

  private static List<Path> runDirectories(String out, String dataset) throws Exception {
    Path date = Path.of(out, dataset, "date=" + DAY);
    if (!Files.isDirectory(date)) {
      return List.of();
    }
    try (Stream<Path> runs = Files.list(date)) {
      return runs.filter(p -> p.getFileName().toString().startsWith("run=")).sorted().toList();
    }
  }
}
