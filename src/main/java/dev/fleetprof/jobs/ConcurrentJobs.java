package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.SparkSession;

/**
 * Spark actions run side by side from driver threads, as Spark's scheduler allows: while one
 * action's query is planned on the driver, another's tasks use the executors. Each action's jobs
 * carry its description in the Spark UI and one job group, so the first failure cancels the others'
 * running jobs (Spark aborts their writes) and skips those not started; {@link #run} then throws
 * that failure as it came.
 */
final class ConcurrentJobs {
  /** Spark's work, which may throw the checked exceptions Spark's Scala code throws undeclared. */
  interface Action<T> {
    T call() throws Exception;
  }

  private final SparkSession spark;
  private final String group;
  private final int threads;
  private final List<FutureTask<?>> actions = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private ExecutorService pool; // once started

  /**
   * @param group the Spark job group of every action's jobs
   * @param threads how many actions run at once
   */
  ConcurrentJobs(SparkSession spark, String group, int threads) {
    this.spark = spark;
    this.group = group;
    this.threads = Math.max(1, threads);
  }

  /**
   * Adds an action, shown as {@code description} in the Spark UI; its result once {@link #run}.
   * After {@link #start}, it starts as soon as a thread is free.
   */
  <T> Future<T> add(String description, Action<T> action) {
    FutureTask<T> task =
        new FutureTask<>(
            () -> {
              if (failure.get() != null) {
                throw new CancellationException("an earlier action failed");
              }
              spark.sparkContext().setJobGroup(group, description, false);
              try {
                return action.call();
              } catch (Throwable e) {
                if (failure.compareAndSet(null, e)) {
                  spark.sparkContext().cancelJobGroup(group);
                }
                throw ConcurrentJobs.<Exception>rethrow(e);
              }
            });
    actions.add(task);
    if (pool != null) {
      pool.execute(task);
    }
    return task;
  }

  /**
   * Starts the actions added so far, in their order, up to {@code threads} at once; those added
   * later start as they come. The caller can go on planning what it adds next meanwhile.
   */
  void start() {
    if (pool != null) {
      return;
    }
    pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, group + "-driver");
              t.setDaemon(true);
              return t;
            });
    actions.forEach(pool::execute);
  }

  /**
   * Runs the actions added (starting them, unless {@link #start} did), in their order, up to {@code
   * threads} at once; waits for all; throws the first failure.
   */
  void run() throws IOException {
    start();
    try {
      pool.shutdown();
      pool.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS); // none outlives the run
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      spark.sparkContext().cancelJobGroup(group);
      pool.shutdownNow();
      throw new InterruptedIOException("interrupted while running " + group);
    }
    if (failure.get() != null) {
      throw ConcurrentJobs.<RuntimeException>rethrow(failure.get());
    }
  }

  /**
   * Stops after a failure elsewhere: cancels the running actions' jobs, skips those not started and
   * waits until no action runs, so that nothing of them outlives the caller's cleanup.
   */
  void cancel() {
    failure.compareAndSet(null, new CancellationException("cancelled: " + group));
    spark.sparkContext().cancelJobGroup(group);
    if (pool == null) {
      return;
    }
    pool.shutdown();
    boolean interrupted = false;
    while (!pool.isTerminated()) {
      try {
        pool.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The result of an action of a {@link #run} that returned. */
  static <T> T result(Future<T> action) {
    try {
      return action.get();
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException("an action's result before its run ended", e);
    }
  }

  /** Throws {@code t} as it is: Spark's Scala code throws checked exceptions Java does not see. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T rethrow(Throwable t) throws T {
    throw (T) t;
  }
}
