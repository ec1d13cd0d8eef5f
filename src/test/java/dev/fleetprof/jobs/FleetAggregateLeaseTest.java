package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer per date: a run that finds the date leased by a live run stops before it changes
 * anything; a lease whose holder died (its process gone from this machine, or untouched for the
 * timeout) is broken; markers appear only after every dataset of the run is written.
 */
class FleetAggregateLeaseTest {
  private static final String DAY = "2026-11-20";
  private static final List<String> DATASETS =
      List.of("files", "stacks", "host_stacks", "locations", "modules", "functions");
  private final SparkSession spark = TestSpark.get();

  private static String fleet(Path root, int copies) {
    FleetFixture fleet = new FleetFixture(root);
    for (int i = 0; i < copies; i++) {
      fleet.copy(
          DAY, "web" + (i % 4), SampleData.GPERFTOOLS.resolve("multithreaded.prof"), i + ".prof");
    }
    return fleet.toString();
  }

  private FleetSummary run(String in, String out) throws Exception {
    return FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(new String[] {"--input", in, "--output", out, "--date", DAY}));
  }

  private static Path lease(String out) {
    return Path.of(out, "_leases", "date=" + DAY);
  }

  private static String holder(long pid, String host) {
    return "run other (pid " + pid + " on " + host + ", started 2026-11-20T00:00:00Z)";
  }

  private static String thisHost() throws Exception {
    return InetAddress.getLocalHost().getHostName();
  }

  private Dataset<Row> table(String out, String t) throws java.io.IOException {
    return FleetOutput.read(spark, out, t);
  }

  @Test
  void aLiveLeaseStopsASecondRunBeforeItChangesAnything(@TempDir Path tmp) throws Exception {
    String out = tmp.resolve("out").toString();
    run(fleet(tmp.resolve("a"), 2), out);
    List<Dataset<Row>> before = new ArrayList<>();
    for (String t : DATASETS) {
      before.add(table(out, t).cache());
      before.get(before.size() - 1).count();
    }
    // Held by a live process: this one, as another run in the same JVM would be.
    String live = holder(ProcessHandle.current().pid(), thisHost());
    Files.createDirectories(lease(out).getParent());
    Files.writeString(lease(out), live);

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> run(fleet(tmp.resolve("b"), 3), out));
    assertTrue(
        e.getMessage().contains("date " + DAY + " is being written by " + live), e.getMessage());
    assertEquals(live, Files.readString(lease(out)), "the lease is left to its holder");
    for (int i = 0; i < DATASETS.size(); i++) {
      String t = DATASETS.get(i);
      SameRows.assertSameRows(before.get(i), table(out, t), t);
      assertTrue(Files.exists(Path.of(out, t, "date=" + DAY, "_SUCCESS")), t + " still marked");
    }
    assertTrue(Files.exists(Path.of(out, "_runs", "date=" + DAY)), "the run record stays");
    before.forEach(Dataset::unpersist);

    // A live holder on another machine, touched a moment ago: also refused.
    Files.writeString(lease(out), holder(1, "elsewhere.example"));
    assertThrows(IllegalStateException.class, () -> run(fleet(tmp.resolve("c"), 1), out));
  }

  @Test
  void aLeaseWhoseHolderDiedIsBroken(@TempDir Path tmp) throws Exception {
    String in = fleet(tmp.resolve("in"), 2);
    long expected =
        2 * SampleData.pprofSampleCount(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    String out = tmp.resolve("out").toString();
    Files.createDirectories(lease(out).getParent());

    // Its process is gone from this machine (a run killed with SIGKILL).
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Files.writeString(lease(out), holder(gone.pid(), thisHost()));
    assertEquals(BigDecimal.valueOf(expected), run(in, out).totalCount());
    assertFalse(Files.exists(lease(out)), "released after the run");

    // Untouched for longer than the timeout (a machine that went away).
    Files.writeString(lease(out), holder(1, "elsewhere.example"));
    Files.setLastModifiedTime(
        lease(out),
        FileTime.from(Instant.now().minus(DateLease.TIMEOUT).minus(1, ChronoUnit.MINUTES)));
    assertEquals(BigDecimal.valueOf(expected), run(in, out).totalCount());
    assertFalse(Files.exists(lease(out)));
    try (var leases = Files.list(lease(out).getParent())) {
      assertEquals(List.of(), leases.toList(), "nothing left beside the leases");
    }
  }

  @Test
  void markersSayTheWholeRunCommitted(@TempDir Path tmp) throws Exception {
    String out = tmp.resolve("out").toString();
    run(fleet(tmp.resolve("in"), 1), out);
    for (String t : DATASETS) {
      assertTrue(Files.exists(Path.of(out, t, "_SUCCESS")), t);
      assertTrue(Files.exists(Path.of(out, t, "date=" + DAY, "_SUCCESS")), t);
    }
    String record = Files.readString(Path.of(out, "_runs", "date=" + DAY));
    for (String t : DATASETS) {
      assertTrue(record.contains("\"" + t + "\""), record);
    }
    assertFalse(Files.exists(Path.of(out, "_leases", "date=" + DAY)));
    // Nothing of the run's bookkeeping is read as data.
    assertEquals(
        DATASETS.size() + 3,
        Files.list(Path.of(out)).count(),
        "the six datasets, _current, _runs and _leases");
    // The pointer names this run for every dataset, the run the record names.
    FleetOutput.Pointer pointer =
        FleetOutput.pointer(
            org.apache.hadoop.fs.FileSystem.getLocal(new org.apache.hadoop.conf.Configuration()),
            new org.apache.hadoop.fs.Path(out),
            DAY);
    assertTrue(record.contains("\"run\": \"" + pointer.run() + "\""), record);
    for (String t : DATASETS) {
      assertEquals(pointer.run(), pointer.datasets().get(t), t);
      assertTrue(Files.isDirectory(Path.of(out, t, "date=" + DAY, "run=" + pointer.run())), t);
    }
  }

  /**
   * Two runs of one date at once, as two schedulers would start them: the second stops with a
   * message while the first holds the date, and the date ends up exactly the first run's.
   */
  @Test
  void twoOverlappingRunsOfOneDate(@TempDir Path tmp) throws Exception {
    String first = fleet(tmp.resolve("first"), 10);
    String second = fleet(tmp.resolve("second"), 3);
    long perFile = SampleData.pprofSampleCount(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    String out = tmp.resolve("out").toString();
    for (int round = 0; round < 2; round++) {
      Process job = childJob(first, out, tmp.resolve("child-" + round + ".log"));
      try {
        long deadline = System.currentTimeMillis() + 180_000;
        while (!Files.exists(lease(out))
            && job.isAlive()
            && System.currentTimeMillis() < deadline) {
          Thread.sleep(5);
        }
        assertTrue(
            Files.exists(lease(out)),
            "the first run took the lease: "
                + Files.readString(tmp.resolve("child-" + round + ".log")));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(second, out));
        assertTrue(e.getMessage().contains("is being written by run "), e.getMessage());
        assertEquals(0, job.waitFor(), Files.readString(tmp.resolve("child-" + round + ".log")));
      } finally {
        job.destroyForcibly();
      }
      Row files =
          table(out, "files")
              .where("date = '" + DAY + "'")
              .selectExpr("count(*)", "sum(count)")
              .first();
      assertEquals(10, files.getLong(0), "round " + round);
      assertEquals(BigDecimal.valueOf(10 * perFile), files.getDecimal(1), "round " + round);
      assertFalse(Files.exists(Path.of(out, "stacks", "date=" + DAY, "date=" + DAY)), "no nesting");
    }
  }

  private static Process childJob(String in, String out, Path log) throws Exception {
    // A job on a few KB, started as jobs/lib/launch --small starts one.
    List<String> jvmOptions = new ArrayList<>(ChildJvm.shortJobOptions());
    jvmOptions.add("-Xmx1g");
    jvmOptions.addAll(ChildJvm.loggingOfThisJvm());
    return ChildJvm.start(
        ChildJvm.archivedCommand(
            jvmOptions,
            System.getProperty("java.class.path"),
            FleetAggregate.class.getName(),
            List.of("--input", in, "--output", out, "--date", DAY)),
        log,
        Map.of());
  }
}
