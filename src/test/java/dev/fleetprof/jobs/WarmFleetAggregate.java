package dev.fleetprof.jobs;

import java.io.IOException;
import java.util.Arrays;
import org.apache.spark.sql.SparkSession;

/**
 * The fleet job run several times in one JVM and one Spark session, each run timed on its own: what
 * the job costs once the JVM has started, Spark is up and the JIT has compiled Spark's planner,
 * code generator and the job's hot code (a notebook's or a long-lived driver's state), against the
 * cold run {@code jobs/fleet-aggregate} makes. bench/run's warm rows run it in a child JVM.
 *
 * <p>Usage: {@code WarmFleetAggregate RUNS --input DIR --output DIR [job options]}. Run {@code i}
 * writes to {@code OUTPUT-i} (a fresh output each time: a run into an earlier one would time
 * replacing its dates too). Prints the job's summary of every run and {@code warm run I of N: S s}.
 */
public final class WarmFleetAggregate {
  private WarmFleetAggregate() {}

  public static void main(String[] argv) throws IOException {
    int runs = Integer.parseInt(argv[0]);
    String[] jobArgv = Arrays.copyOfRange(argv, 1, argv.length);
    int outputAt = indexOf(jobArgv, "--output") + 1;
    String output = jobArgv[outputAt];
    SparkSession spark = Sessions.start("fleetprof warm fleet-aggregate");
    try {
      for (int i = 1; i <= runs; i++) {
        String[] runArgv = jobArgv.clone();
        runArgv[outputAt] = output + "-" + i;
        FleetAggregate.Args runArgs = FleetAggregate.Args.parse(runArgv);
        long start = System.nanoTime();
        FleetAggregate.run(spark, runArgs);
        System.out.printf(
            "warm run %d of %d: %.2f s%n", i, runs, (System.nanoTime() - start) / 1e9);
      }
    } finally {
      spark.stop();
    }
  }

  private static int indexOf(String[] argv, String option) {
    for (int i = 0; i < argv.length - 1; i++) {
      if (argv[i].equals(option)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no " + option + " DIR given");
  }
}
