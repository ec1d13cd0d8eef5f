package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fleet job killed (SIGKILL) while it writes a date leaves that date's previous output readable
 * and complete, and the next run succeeds.
 */
class FleetAggregateKillTest {
  private final SparkSession spark = TestSpark.get();

  /**
   * Killed while writing the first, a middle and the last dataset: every dataset still reads as a
   * complete run's (the same inputs, so the same rows), none of the date's markers or its run
   * record says the date is complete, and the next run succeeds and marks it.
   */
  @ParameterizedTest
  @ValueSource(strings = {"files", "host_stacks", "functions"})
  void aKilledRunLeavesThePreviousOutputOfItsDate(String killedIn, @TempDir Path tmp)
      throws Exception {
    // Enough files that the run takes a few seconds; real profiles, so stacks repeat as in a fleet.
    int files = 0;
    FleetFixture fleet = new FleetFixture(tmp.resolve("in"));
    for (int h = 0; h < 4; h++) {
      for (int i = 0; i < 10; i++) {
        for (String sample : List.of("multithreaded.prof", "deep_recursion.prof")) {
          fleet.copy(
              "2026-11-20", "web" + h, SampleData.GPERFTOOLS.resolve(sample), i + "-" + sample);
          files++;
        }
      }
    }
    String in = fleet.toString();
    String out = tmp.resolve("fleet").toString();
    FleetAggregate.run(
        spark, FleetAggregate.Args.parse(new String[] {"--input", in, "--output", out}));
    List<Dataset<Row>> before = new ArrayList<>();
    for (String t : FleetAggregate.DATASETS) {
      before.add(FleetOutput.read(spark, out, t).cache());
      before.get(before.size() - 1).count();
    }

    Process job = childJob(in, out, tmp.resolve("child.log"));
    try {
      Path staging = waitForStaging(Path.of(out, killedIn), job, 180_000);
      assertTrue(
          staging != null,
          "the child run never started writing: see child.log "
              + Files.readString(tmp.resolve("child.log")));
      job.destroyForcibly().waitFor();
    } finally {
      job.destroyForcibly();
    }

    // The killed run had started replacing the date: nothing says the date is complete.
    for (String t : FleetAggregate.DATASETS) {
      assertFalse(Files.exists(Path.of(out, t, "date=2026-11-20", "_SUCCESS")), t + " unmarked");
    }
    assertFalse(Files.exists(Path.of(out, "_runs", "date=2026-11-20")), "no run record");
    assertTrue(Files.exists(Path.of(out, "_leases", "date=2026-11-20")), "the dead run's lease");
    int i = 0;
    for (String t : FleetAggregate.DATASETS) {
      Dataset<Row> now = FleetOutput.read(spark, out, t);
      Dataset<Row> was = before.get(i++);
      // Rows extra: something half-written is visible; rows missing: the previous run lost some.
      SameRows.assertSameRows(was, now, t);
    }
    FleetSummary again =
        FleetAggregate.run(
            spark,
            FleetAggregate.Args.parse(
                new String[] {"--input", in, "--output", out, "--date", "2026-11-20"}));
    assertEquals(files, again.files(), "the next run succeeds over the killed run's leftovers");
    for (String t : FleetAggregate.DATASETS) {
      assertTrue(Files.exists(Path.of(out, t, "date=2026-11-20", "_SUCCESS")), t + " marked");
    }
    assertTrue(Files.exists(Path.of(out, "_runs", "date=2026-11-20")));
    // The killed run's directories are gone: what is left is the published run and the one it
    // replaced (kept for readers).
    FleetOutput.Pointer p =
        FleetOutput.pointer(
            org.apache.hadoop.fs.FileSystem.getLocal(new org.apache.hadoop.conf.Configuration()),
            new org.apache.hadoop.fs.Path(out),
            "2026-11-20");
    for (String t : FleetAggregate.DATASETS) {
      java.util.Set<String> accounted = new java.util.HashSet<>();
      accounted.add("run=" + p.datasets().get(t));
      p.kept().stream()
          .filter(r -> r.dataset().equals(t))
          .forEach(r -> accounted.add("run=" + r.run()));
      try (var runs = Files.list(Path.of(out, t, "date=2026-11-20"))) {
        for (Path r : runs.filter(x -> x.getFileName().toString().startsWith("run=")).toList()) {
          assertTrue(accounted.contains(r.getFileName().toString()), t + ": left behind: " + r);
        }
      }
    }
    before.forEach(Dataset::unpersist);
  }

  /** The job in its own JVM, as a scheduler would start it, with the launcher's JIT options. */
  private static Process childJob(String in, String out, Path log) throws Exception {
    List<String> jvmOptions = new ArrayList<>(ChildJvm.shortJobOptions());
    jvmOptions.add("-Xmx1g");
    jvmOptions.addAll(ChildJvm.loggingOfThisJvm());
    List<String> cmd =
        ChildJvm.archivedCommand(
            jvmOptions,
            System.getProperty("java.class.path"),
            FleetAggregate.class.getName(),
            List.of("--input", in, "--output", out, "--date", "2026-11-20"));
    return ChildJvm.start(cmd, log, Map.of());
  }

  /** The first staging directory of a dynamic-overwrite write into {@code dataset}, or null. */
  private static Path waitForStaging(Path dataset, Process job, long timeoutMillis)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (System.currentTimeMillis() < deadline && job.isAlive()) {
      File[] staged = dataset.toFile().listFiles(f -> f.getName().startsWith(".spark-staging"));
      if (staged != null && staged.length > 0) {
        return staged[0].toPath();
      }
      Thread.sleep(5);
    }
    return null;
  }
}
