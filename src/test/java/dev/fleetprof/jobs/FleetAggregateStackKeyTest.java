package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-host and per-date levels group by a 64-bit key of the frames: every dataset is the same
 * as when the keys collide everywhere (two bits of key), which makes the job group by the frames
 * themselves, so a collision can never merge two stacks. Nor do the run's other choices of plan
 * change a dataset: how it keeps what its stages share, whether a host's stacks are its file's.
 */
class FleetAggregateStackKeyTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void everyDatasetIsTheSameWhenTheKeysCollideOnEveryFormat(@TempDir Path tmp) throws Exception {
    Path samples = SampleData.everyFormat(tmp.resolve("sample-data"));
    for (Path input : List.of(SampleData.FLEET, samples)) {
      String keyed = tmp.resolve(input.getFileName() + "-keyed").toString();
      String colliding = tmp.resolve(input.getFileName() + "-colliding").toString();
      AtomicInteger fellBack = new AtomicInteger();
      run(input, keyed, new FleetAggregate.Hooks(-1L, fellBack::incrementAndGet));
      assertEquals(0, fellBack.get(), input + ": keys collided");
      run(input, colliding, new FleetAggregate.Hooks(3, fellBack::incrementAndGet));
      assertEquals(1, fellBack.get(), input + ": no collision");
      assertSameDatasets(input + " ", keyed, colliding);
    }
  }

  @Test
  void everyDatasetIsTheSameWhetherTheStagesCheckpointOrPersist(@TempDir Path tmp)
      throws Exception {
    // A small run keeps its stages' datasets as local checkpoints, a large one persists them: the
    // demo fleet (gperftools and pprof profiles, names from the profiles and from its binaries)
    // both ways.
    String checkpointed = tmp.resolve("checkpointed").toString();
    String persisted = tmp.resolve("persisted").toString();
    List<String> binaries =
        List.of("--binaries", SampleData.FLEET.resolve("_reference/bin").toString());
    run(
        SampleData.FLEET,
        checkpointed,
        FleetAggregate.Hooks.NONE.checkpointingBelow(Long.MAX_VALUE),
        binaries);
    run(SampleData.FLEET, persisted, FleetAggregate.Hooks.NONE.checkpointingBelow(0), binaries);
    assertSameDatasets("", checkpointed, persisted);
  }

  @Test
  void everyCountReadIsInEveryLevel(@TempDir Path tmp) throws Exception {
    // One read feeds every level: per host and date, host_stacks adds up to files, and stacks to
    // host_stacks; deep_recursion's chains (150 deep) reach the stacks with their frames.
    FleetFixture fixture =
        new FleetFixture(tmp.resolve("fleet"))
            .copy(
                "2026-11-20",
                "web-1",
                SampleData.GPERFTOOLS.resolve("deep_recursion.prof"),
                "cpu.prof")
            .copy(
                "2026-11-20",
                "web-2",
                SampleData.GPERFTOOLS.resolve("multithreaded.prof"),
                "cpu.prof");
    String out = tmp.resolve("out").toString();
    AtomicInteger fellBack = new AtomicInteger();
    run(fixture.root(), out, new FleetAggregate.Hooks(-1L, fellBack::incrementAndGet));
    assertEquals(0, fellBack.get(), "fell back to frames");
    Dataset<Row> files = sums(FleetOutput.read(spark, out, "files"), "date", "host");
    Dataset<Row> hostStacks = sums(FleetOutput.read(spark, out, "host_stacks"), "date", "host");
    assertEquals(0, files.exceptAll(hostStacks).count());
    assertEquals(0, hostStacks.exceptAll(files).count());
    Dataset<Row> byDate = sums(FleetOutput.read(spark, out, "stacks"), "date");
    Dataset<Row> hostsByDate = sums(FleetOutput.read(spark, out, "host_stacks"), "date");
    assertEquals(0, byDate.exceptAll(hostsByDate).count());
    assertEquals(0, hostsByDate.exceptAll(byDate).count());
    assertTrue(
        FleetOutput.read(spark, out, "host_stacks")
                .where("date = '2026-11-20' AND host = 'web-1' AND size(frames) > 100")
                .count()
            > 0);
  }

  @Test
  void aHostWithOneFileADayHasThatFilesStacks(@TempDir Path tmp) throws Exception {
    // Each host one file a date, of every format: the per-host level taken as the per-file rows
    // gives every dataset the rows the aggregate gives.
    FleetFixture fixture =
        new FleetFixture(tmp.resolve("fleet"))
            .copy("2026-11-20", "web-1", SampleData.GPERFTOOLS.resolve("multithreaded.prof"), "a")
            .copy("2026-11-20", "web-2", SampleData.GPERFTOOLS.resolve("shared_library.prof"), "a")
            .copy("2026-11-20", "web-3", SampleData.PPROF.resolve("heap.pb.gz"), "a")
            .copy("2026-11-21", "web-1", SampleData.GPERFTOOLS.resolve("deep_recursion.prof"), "a")
            .copy("2026-11-21", "web-2", SampleData.PPROF.resolve("cpu-labels.pb.gz"), "a")
            .copy("2026-11-21", "web-3", SampleData.DCPI.resolve("valid-medium.prof"), "a")
            .copy("2026-11-21", "web-4", SampleData.GPROF.resolve("c-pie-64/gmon.out"), "a");
    AtomicInteger oneFile = new AtomicInteger();
    Runnable noFallBack = () -> fail("fell back to frames");
    String projected = tmp.resolve("projected").toString();
    run(
        fixture.root(),
        projected,
        new FleetAggregate.Hooks(-1L, noFallBack, 0, oneFile::incrementAndGet));
    assertEquals(1, oneFile.get(), "each host has one file a date");
    String aggregated = tmp.resolve("aggregated").toString();
    run(
        fixture.root(),
        aggregated,
        new FleetAggregate.Hooks(-1L, noFallBack, Long.MAX_VALUE, oneFile::incrementAndGet));
    assertEquals(1, oneFile.get(), "never asked");
    assertSameDatasets("", projected, aggregated);
    assertTrue(
        FleetOutput.read(spark, projected, "host_stacks").where("profiles <> 1").isEmpty(),
        "a host with one file counts one profile per stack");
  }

  @Test
  void aHostIsItsFileOnlyWhenNoDateHasTwoOfItsFiles() {
    // date, host, path: as the files dataset has them
    assertTrue(oneFilePerHost("d1 h1 a", "d1 h2 b", "d2 h1 c"));
    assertFalse(oneFilePerHost("d1 h1 a", "d1 h2 b", "d1 h1 c"));
    // No host= directory: one host, null, for all of a date's files.
    assertFalse(oneFilePerHost("d1 - a", "d1 - b"));
    assertTrue(oneFilePerHost("d1 - a", "d2 - b"));
  }

  private boolean oneFilePerHost(String... files) {
    List<Row> rows = new java.util.ArrayList<>();
    for (String f : files) {
      String[] p = f.split(" ");
      rows.add(org.apache.spark.sql.RowFactory.create(p[0], p[1].equals("-") ? null : p[1], p[2]));
    }
    return FleetStages.oneFilePerHost(
        spark.createDataFrame(
            rows,
            new org.apache.spark.sql.types.StructType()
                .add("date", "string")
                .add("host", "string")
                .add("path", "string")));
  }

  /** Every dataset of the two outputs has rows, and the same rows (messages start with label). */
  private void assertSameDatasets(String label, String a, String b) throws Exception {
    for (String dataset : FleetAggregate.DATASETS) {
      Dataset<Row> x = FleetOutput.read(spark, a, dataset);
      Dataset<Row> y = FleetOutput.read(spark, b, dataset);
      long rows = x.count();
      assertTrue(rows > 0, label + dataset);
      assertEquals(rows, y.count(), label + dataset);
      SameRows.assertSameRows(x, y, label + dataset);
    }
  }

  private static Dataset<Row> sums(Dataset<Row> d, String... by) {
    return d.groupBy(by[0], java.util.Arrays.copyOfRange(by, 1, by.length))
        .agg(org.apache.spark.sql.functions.sum("count").as("count"));
  }

  private void run(Path input, String output, FleetAggregate.Hooks hooks) throws Exception {
    run(input, output, hooks, List.of());
  }

  private void run(Path input, String output, FleetAggregate.Hooks hooks, List<String> more)
      throws Exception {
    List<String> args =
        new java.util.ArrayList<>(List.of("--input", input.toString(), "--output", output));
    args.addAll(more);
    FleetAggregate.run(spark, FleetAggregate.Args.parse(args.toArray(new String[0])), hooks);
  }
}
