package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.FullDiskFileSystem;
import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The output's disk fills up while a run re-writes a date, in each dataset the run writes: the run
 * fails, saying so, every dataset still reads as the previous run's, no marker or run record says
 * the date is complete, the lease is released, and once there is room again the next run succeeds
 * and marks the date. The output is on a real, small tmpfs, filled the moment the run starts
 * writing the dataset; where this machine cannot mount one (not root, no CAP_SYS_ADMIN), on the
 * local disk through {@link FullDiskFileSystem}, whose writes fail as a full disk's do under that
 * dataset.
 */
class FleetAggregateDiskFullTest {
  private static final String DAY = "2026-11-20";
  private static final long TMPFS_BYTES = 64L << 20;

  @TempDir static Path tmp;
  private static Path mount;
  private final SparkSession spark = TestSpark.get();

  @BeforeAll
  static void mountASmallTmpfs() throws Exception {
    if (Boolean.getBoolean("fleetprof.test.fullDiskFileSystem")) {
      System.out.println("FleetAggregateDiskFullTest: asked for FullDiskFileSystem, no tmpfs");
      return;
    }
    mount = Files.createDirectories(tmp.resolve("small-disk"));
    Process p =
        new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=" + TMPFS_BYTES, "tmpfs", mount.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    boolean mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    if (!mounted) {
      System.out.println(
          "FleetAggregateDiskFullTest: cannot mount a tmpfs ("
              + out.strip()
              + "): the disk fills through FullDiskFileSystem instead");
      mount = null;
    }
  }

  /**
   * Unmounts the tmpfs, so that the temporary directory can be deleted: a process that has just
   * ended may still hold a file there for a moment (EBUSY), so it tries again for a while, then
   * detaches it lazily (the kernel frees it once the last file on it is closed).
   */
  @AfterAll
  static void unmount() throws Exception {
    if (mount == null) {
      return;
    }
    for (int attempt = 0; attempt < 20; attempt++) {
      Process p = new ProcessBuilder("umount", mount.toString()).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return;
      }
      Thread.sleep(500);
    }
    new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor(30, TimeUnit.SECONDS);
  }

  private FleetSummary run(String in, String out) throws Exception {
    return FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(new String[] {"--input", in, "--output", out, "--date", DAY}));
  }

  /** Fills the disk but {@code room} bytes with a file of zeros named {@code name}; returns it. */
  private static Path leaveRoom(long room, String name) throws IOException {
    Path filler = mount.resolve("filler-" + name);
    FileStore store = Files.getFileStore(mount);
    long fill = Math.max(0, store.getUsableSpace() - room);
    byte[] zeros = new byte[1 << 16];
    try (OutputStream o = Files.newOutputStream(filler)) {
      for (long n = 0; n < fill; ) {
        int k = (int) Math.min(zeros.length, fill - n);
        try {
          o.write(zeros, 0, k);
        } catch (IOException full) {
          break;
        }
        n += k;
      }
    }
    return filler;
  }

  @Test
  void aDiskThatFillsUpLeavesNoDateMarkedAndTheNextRunRepairs() throws Exception {
    FleetFixture fleet = new FleetFixture(tmp.resolve("in"));
    for (int i = 0; i < 8; i++) {
      for (String sample : List.of("multithreaded.prof", "deep_recursion.prof")) {
        fleet.copy(DAY, "web" + (i % 4), SampleData.GPERFTOOLS.resolve(sample), i + "-" + sample);
      }
    }
    String in = fleet.toString();
    String out =
        (mount != null ? mount : Files.createDirectories(tmp.resolve("local-disk")))
            .resolve("fleet")
            .toString();
    run(in, out);
    List<Dataset<Row>> before = new ArrayList<>();
    for (String t : FleetAggregate.DATASETS) {
      before.add(FleetOutput.read(spark, out, t).cache());
      before.get(before.size() - 1).count();
    }

    // The disk fills up while the run writes each dataset in turn: most of the disk filled before
    // the run starts (4 MiB left: room for the whole run), the rest the moment its staging
    // directory for that dataset appears. A run that wins the race (its last steps take
    // milliseconds) must then have marked the date whole. The first run is in its own JVM, as a
    // scheduler starts the job (its exit code and message); the others in this one, whose warm
    // session spares each the start of a JVM and of Spark.
    List<String> failures = new ArrayList<>();
    for (String dataset : FleetAggregate.DATASETS) {
      Path log = tmp.resolve("run-" + dataset + ".log");
      boolean ownJvm = dataset.equals(FleetAggregate.DATASETS.get(0));
      int exit =
          mount != null
              ? fillTmpfs(in, out, dataset, log, ownJvm)
              : fullUnder(in, out, dataset, log, ownJvm);
      boolean failed = exit != 0;
      if (failed) {
        assertEquals(1, exit, dataset + ": " + Files.readString(log));
        assertTrue(
            Files.readString(log).contains("No space left"),
            dataset + ": " + Files.readString(log));
        failures.add(dataset + ": " + lastLine(log));
      }
      for (int i = 0; i < FleetAggregate.DATASETS.size(); i++) {
        String t = FleetAggregate.DATASETS.get(i);
        Dataset<Row> now = FleetOutput.read(spark, out, t);
        SameRows.assertSameRows(before.get(i), now, t + ", full in " + dataset);
        assertEquals(
            !failed,
            Files.exists(Path.of(out, t, "date=" + DAY, "_SUCCESS")),
            t + " marked after a run that " + (failed ? "failed" : "succeeded") + " in " + dataset);
      }
      assertEquals(!failed, Files.exists(Path.of(out, "_runs", "date=" + DAY)), "in " + dataset);
      assertFalse(Files.exists(Path.of(out, "_leases", "date=" + DAY)), "full in " + dataset);
    }
    System.out.println("disk-full runs failed with: " + failures);
    assertTrue(failures.size() >= 4, "most runs hit the full disk: " + failures);

    FleetSummary again = run(in, out);
    assertEquals(16, again.files());
    for (String t : FleetAggregate.DATASETS) {
      assertTrue(Files.exists(Path.of(out, t, "date=" + DAY, "_SUCCESS")), t);
    }
    assertTrue(Files.exists(Path.of(out, "_runs", "date=" + DAY)));
    before.forEach(Dataset::unpersist);
  }

  @Test
  void aDiskThatFillsUpWhenOnlyTheRunRecordIsLeftMarksNoDatasetComplete() throws Exception {
    // The disk fills after the last Parquet file: the driver's own write of the run record fails,
    // thrown by Hadoop's local file system as an Error (FSError), with no task failure around it.
    FleetFixture fleet = new FleetFixture(tmp.resolve("in-record"));
    fleet.copy(DAY, "web0", SampleData.GPERFTOOLS.resolve("multithreaded.prof"), "a.prof");
    String in = fleet.toString();
    String out = Files.createDirectories(tmp.resolve("record-disk")).resolve("fleet").toString();
    run(in, out);
    Path log = tmp.resolve("run-record.log");
    assertEquals(1, fullUnder(in, out, "_runs", log, false), Files.readString(log));
    assertTrue(Files.readString(log).contains("No space left"), Files.readString(log));
    for (String t : FleetAggregate.DATASETS) {
      assertFalse(Files.exists(Path.of(out, t, "_SUCCESS")), t);
      assertFalse(Files.exists(Path.of(out, t, "date=" + DAY, "_SUCCESS")), t);
    }
    assertFalse(Files.exists(Path.of(out, "_runs", "date=" + DAY)));
    assertFalse(Files.exists(Path.of(out, "_leases", "date=" + DAY)));
  }

  /** A run whose tmpfs fills the moment it starts writing {@code dataset}; its exit code. */
  private int fillTmpfs(String in, String out, String dataset, Path log, boolean ownJvm)
      throws Exception {
    Path most = leaveRoom(4L << 20, "most");
    Path rest = null;
    Run job = ownJvm ? childJob(in, out, log, List.of()) : inThisJvm(in, out, log);
    try {
      assertTrue(
          waitForStaging(Path.of(out, dataset), job, 180_000),
          dataset + ": the run never wrote it: " + Files.readString(log));
      rest = leaveRoom(0, "rest");
      return job.exitCode(dataset);
    } finally {
      job.stop();
      Files.delete(most);
      if (rest != null) {
        Files.delete(rest);
      }
    }
  }

  /** A run whose writes under {@code dataset} fail as on a full disk; its exit code. */
  private int fullUnder(String in, String out, String dataset, Path log, boolean ownJvm)
      throws Exception {
    String full = FullDiskFileSystem.SCHEME + "://" + out;
    if (ownJvm) {
      Run job =
          childJob(
              in,
              full,
              log,
              List.of(
                  "-Dspark.hadoop.fs."
                      + FullDiskFileSystem.SCHEME
                      + ".impl="
                      + FullDiskFileSystem.class.getName(),
                  "-D" + FullDiskFileSystem.FULL_UNDER + "=" + dataset));
      try {
        return job.exitCode(dataset);
      } finally {
        job.stop();
      }
    }
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    conf.set("fs." + FullDiskFileSystem.SCHEME + ".impl", FullDiskFileSystem.class.getName());
    System.setProperty(FullDiskFileSystem.FULL_UNDER, dataset);
    Run job = inThisJvm(in, full, log);
    try {
      return job.exitCode(dataset);
    } finally {
      job.stop();
      System.clearProperty(FullDiskFileSystem.FULL_UNDER);
    }
  }

  /** A run of the job, in its own JVM or in this one. */
  private interface Run {
    boolean alive();

    /** Waits for the run's end: 0 when it succeeded, else what the job's command exits with. */
    int exitCode(String dataset) throws Exception;

    void stop() throws InterruptedException;
  }

  /**
   * The job in this JVM's session, on a thread of its own; a run that fails writes its error (each
   * cause's message) to {@code log} and ends with 1, as the job's command exits.
   */
  private Run inThisJvm(String in, String out, Path log) throws IOException {
    Files.writeString(log, ""); // what the run says, once it ends
    java.util.concurrent.CompletableFuture<Integer> done =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              String said;
              int exit;
              try {
                run(in, out);
                said = "succeeded\n";
                exit = 0;
              } catch (Exception e) {
                StringBuilder text = new StringBuilder();
                for (Throwable t = e; t != null; t = t.getCause()) {
                  text.append(t).append('\n');
                }
                said = text.toString();
                exit = 1;
              }
              try {
                Files.writeString(log, said);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
              return exit;
            });
    return new Run() {
      @Override
      public boolean alive() {
        return !done.isDone();
      }

      @Override
      public int exitCode(String dataset) throws Exception {
        try {
          return done.get(180, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new AssertionError(dataset + ": the run hangs on a full disk", e);
        }
      }

      @Override
      public void stop() {
        done.cancel(true);
      }
    };
  }

  /** What the run said of the full disk (its first line naming it), for the test's report. */
  private static String lastLine(Path log) throws IOException {
    return Files.readAllLines(log).stream()
        .filter(l -> l.contains("No space left"))
        .findFirst()
        .map(String::strip)
        .orElse("(no line names the full disk)");
  }

  /** The job in its own JVM, as a scheduler starts it. */
  private static Run childJob(String in, String out, Path log, List<String> options)
      throws Exception {
    List<String> jvmOptions = new ArrayList<>(List.of("-Xmx1g"));
    jvmOptions.addAll(options);
    jvmOptions.addAll(dev.fleetprof.testing.ChildJvm.loggingOfThisJvm());
    Process p =
        dev.fleetprof.testing.ChildJvm.start(
            dev.fleetprof.testing.ChildJvm.archivedCommand(
                jvmOptions,
                System.getProperty("java.class.path"),
                FleetAggregate.class.getName(),
                List.of("--input", in, "--output", out, "--date", DAY)),
            log,
            java.util.Map.of());
    return new Run() {
      @Override
      public boolean alive() {
        return p.isAlive();
      }

      @Override
      public int exitCode(String dataset) throws Exception {
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), dataset + ": the run hangs on a full disk");
        return p.exitValue();
      }

      @Override
      public void stop() throws InterruptedException {
        // Gone before the test goes on: a killed JVM still holds its files on the disk until then.
        p.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
      }
    };
  }

  private static boolean waitForStaging(Path dataset, Run job, long timeoutMillis)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (System.currentTimeMillis() < deadline && job.alive()) {
      java.io.File[] staged =
          dataset.toFile().listFiles(f -> f.getName().startsWith(".spark-staging"));
      if (staged != null && staged.length > 0) {
        return true;
      }
      Thread.sleep(2);
    }
    return false;
  }
}
