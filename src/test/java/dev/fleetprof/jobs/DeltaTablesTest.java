package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Delta commits alone, without Spark: a table's log after many runs (checkpointed, each version
 * holding exactly the last run of each date), and runs of different dates committing to one table
 * at the same time (none lost). The files committed are stand-ins (a commit lists them, never opens
 * them); what the job's real tables hold is checked by {@link FleetOutputTablesTest}.
 */
class DeltaTablesTest {
  /** A table's schema as Spark writes it: a column, then the partition columns. */
  static final String SCHEMA =
      "{\"type\":\"struct\",\"fields\":["
          + "{\"name\":\"n\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"date\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},"
          + "{\"name\":\"run\",\"type\":\"string\",\"nullable\":false,\"metadata\":{}}]}";

  private final Configuration conf = new Configuration();

  /** What a run's write leaves: one part file in {@code date=D/run=R/}. */
  private static void write(Path table, String date, String run) throws Exception {
    Path dir = Files.createDirectories(table.resolve("date=" + date).resolve("run=" + run));
    Files.writeString(dir.resolve("part-00000.parquet"), run);
  }

  private long commit(Path table, String date, String run) throws Exception {
    return DeltaTables.commitRun(
        conf, new org.apache.hadoop.fs.Path(table.toUri()), SCHEMA, List.of(date), run, Map.of());
  }

  private boolean holds(Path table, String date, String run) throws Exception {
    return DeltaTables.holds(conf, new org.apache.hadoop.fs.Path(table.toUri()), date, run);
  }

  @Test
  void manyRunsOfADateLeaveACheckpointedLogHoldingTheLastRunOnly(@TempDir Path tmp)
      throws Exception {
    Path table = tmp.resolve("stacks");
    for (int i = 0; i < 12; i++) {
      write(table, "2026-11-20", "r" + i);
      assertEquals(i, commit(table, "2026-11-20", "r" + i), "one version per run");
      assertTrue(holds(table, "2026-11-20", "r" + i), "run " + i + " committed");
      if (i > 0) {
        assertFalse(holds(table, "2026-11-20", "r" + (i - 1)), "run " + (i - 1) + " replaced");
      }
    }
    assertTrue(
        Files.exists(table.resolve("_delta_log/00000000000000000010.checkpoint.parquet")),
        "a checkpoint at version 10");
    // A run with no files for the date empties it.
    assertEquals(12, commit(table, "2026-11-20", "nothing-written"));
    assertFalse(holds(table, "2026-11-20", "r11"));
  }

  @Test
  void aTableUnderAPathThatNeedsEscapingHoldsItsRuns(@TempDir Path tmp) throws Exception {
    Path table = tmp.resolve("fleet prof #1%").resolve("stacks");
    write(table, "2026-11-20", "r0");
    commit(table, "2026-11-20", "r0");
    write(table, "2026-11-20", "r1");
    commit(table, "2026-11-20", "r1");
    assertTrue(holds(table, "2026-11-20", "r1"));
    assertFalse(holds(table, "2026-11-20", "r0"));
  }

  @Test
  void runsOfOtherDatesCommitToOneTableAtOnceAndNoneIsLost(@TempDir Path tmp) throws Exception {
    Path table = tmp.resolve("stacks");
    List<String> dates = List.of("2026-11-20", "2026-11-21", "2026-11-22");
    int runs = 5;
    for (String date : dates) {
      for (int i = 0; i < runs; i++) {
        write(table, date, date + "-r" + i);
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(dates.size());
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (String date : dates) {
        Callable<Void> oneDate =
            () -> {
              for (int i = 0; i < runs; i++) {
                commit(table, date, date + "-r" + i);
              }
              return null;
            };
        done.add(pool.submit(oneDate));
      }
      for (Future<Void> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    try (Stream<Path> log = Files.list(table.resolve("_delta_log"))) {
      assertEquals(
          dates.size() * runs,
          log.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).count(),
          "one version per commit, none overwritten");
    }
    for (String date : dates) {
      assertTrue(holds(table, date, date + "-r" + (runs - 1)), date + ": its last run");
      for (int i = 0; i < runs - 1; i++) {
        assertFalse(holds(table, date, date + "-r" + i), date + ": run " + i + " replaced");
      }
    }
  }
}
