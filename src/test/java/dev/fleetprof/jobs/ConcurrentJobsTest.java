package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.TestSpark;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.ForeachFunction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Spark actions side by side: each under its description, results kept, the first failure. */
class ConcurrentJobsTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void actionsRunSideBySideUnderTheirOwnDescriptions() throws Exception {
    List<String> descriptions = Collections.synchronizedList(new ArrayList<>());
    SparkListener listener =
        new SparkListener() {
          @Override
          public void onJobStart(SparkListenerJobStart start) {
            descriptions.add(start.properties().getProperty("spark.job.description"));
          }
        };
    spark.sparkContext().addSparkListener(listener);
    try {
      ConcurrentJobs jobs = new ConcurrentJobs(spark, "concurrent-jobs-test", 2);
      Future<Long> a = jobs.add("test: count a", () -> spark.range(0, 1000, 1, 2).count());
      Future<Long> b = jobs.add("test: count b", () -> spark.range(0, 10, 1, 2).count());
      Future<Long> c = jobs.add("test: count c", () -> spark.range(0, 7, 1, 1).count());
      jobs.run();
      assertEquals(1000L, ConcurrentJobs.result(a));
      assertEquals(10L, ConcurrentJobs.result(b));
      assertEquals(7L, ConcurrentJobs.result(c));
      // Listeners hear of jobs asynchronously.
      for (long until = System.currentTimeMillis() + 10_000;
          descriptions.size() < 3 && System.currentTimeMillis() < until; ) {
        Thread.sleep(20);
      }
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    for (String d : List.of("test: count a", "test: count b", "test: count c")) {
      assertTrue(descriptions.contains(d), d + " in " + descriptions);
    }
  }

  /**
   * One action fails while another's job runs (its tasks would run a minute): the failure is thrown
   * as it came, the running job is cancelled, and an action not yet started never starts.
   */
  @Test
  void theFirstFailureCancelsTheOthersAndIsThrown() throws Exception {
    ConcurrentJobs jobs = new ConcurrentJobs(spark, "concurrent-jobs-test-failing", 2);
    AtomicBoolean running = new AtomicBoolean();
    AtomicBoolean thirdRan = new AtomicBoolean();
    IllegalStateException boom = new IllegalStateException("boom");
    jobs.add(
        "test: a long job",
        () -> {
          running.set(true);
          aMinuteLongJob();
          return null;
        });
    jobs.add(
        "test: a failing action",
        () -> {
          awaitARunningJob();
          assertTrue(running.get(), "the long job started");
          throw boom;
        });
    jobs.add(
        "test: a third action",
        () -> {
          thirdRan.set(true);
          return null;
        });
    long start = System.nanoTime();
    IllegalStateException thrown = assertThrows(IllegalStateException.class, jobs::run);
    long seconds = (System.nanoTime() - start) / 1_000_000_000L;
    assertSame(boom, thrown);
    assertTrue(seconds < 45, "the long job was cancelled, not waited for: " + seconds + " s");
    assertFalse(thirdRan.get(), "an action after the failure does not start");
  }

  /**
   * Once started, an action runs as it is added, while the caller goes on; {@link
   * ConcurrentJobs#cancel} (the caller failed) cancels a running job, skips the actions not started
   * and returns only once none runs.
   */
  @Test
  void startedActionsRunAsAddedAndCancelStopsThem() throws Exception {
    ConcurrentJobs jobs = new ConcurrentJobs(spark, "concurrent-jobs-test-started", 1);
    jobs.start();
    CountDownLatch firstRan = new CountDownLatch(1);
    jobs.add(
        "test: added after start",
        () -> {
          firstRan.countDown();
          return null;
        });
    assertTrue(firstRan.await(30, TimeUnit.SECONDS), "ran without run()");
    AtomicBoolean longJobEnded = new AtomicBoolean();
    AtomicBoolean queuedRan = new AtomicBoolean();
    jobs.add(
        "test: a long job",
        () -> {
          try {
            aMinuteLongJob();
          } finally {
            longJobEnded.set(true);
          }
          return null;
        });
    jobs.add(
        "test: queued behind it",
        () -> {
          queuedRan.set(true);
          return null;
        });
    awaitARunningJob();
    long start = System.nanoTime();
    jobs.cancel();
    long seconds = (System.nanoTime() - start) / 1_000_000_000L;
    assertTrue(longJobEnded.get(), "cancel returned while an action ran");
    assertTrue(seconds < 45, "the long job was cancelled, not waited for: " + seconds + " s");
    assertFalse(queuedRan.get(), "an action not started when cancelled does not start");
    assertThrows(CancellationException.class, jobs::run);
  }

  /** A Spark job whose two tasks run a minute unless cancelled. */
  private void aMinuteLongJob() {
    spark
        .range(0, 2, 1, 2)
        .foreach(
            (ForeachFunction<Long>)
                x -> {
                  long until = System.currentTimeMillis() + 60_000;
                  while (!TaskContext.get().isInterrupted() && System.currentTimeMillis() < until) {
                    Thread.sleep(20);
                  }
                });
  }

  /** Waits (at most 30 s) until a Spark job runs. */
  private void awaitARunningJob() throws InterruptedException {
    long until = System.currentTimeMillis() + 30_000;
    while (spark.sparkContext().statusTracker().getActiveJobIds().length == 0
        && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
  }
}
