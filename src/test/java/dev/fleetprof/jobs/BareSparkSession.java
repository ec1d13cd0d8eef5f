package dev.fleetprof.jobs;

import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.spark.ReadOptions;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The floors of a local Spark job: a fresh JVM that starts the session the jobs start ({@link
 * Sessions}: conf/spark-defaults.conf, local mode), runs {@code SELECT 1} and stops. bench/run's
 * quick-start row times it in a child JVM beside the quick-start job.
 *
 * <p>With {@code --read PATH [--runs N]}, it then reads PATH as the fleet job's first stage does
 * (the source's stack rows, the same read options) and sums them, N times, each timed: the floor of
 * any job that reads those inputs with Spark, cold (the child's whole time) and warm (the last
 * read). Prints {@code read I of N: S s (R stack rows, Q records)}.
 *
 * <p>With {@code --writes K --write-dir DIR}, it then writes K one-row Parquet datasets under DIR,
 * one Spark job each, each timed: a lower bound on what writing K datasets adds to any job (the
 * fleet job writes six), since no dataset it writes is smaller. Prints {@code write I of K: S s}.
 *
 * <p>With {@code --rewrite OUTPUT --write-dir DIR [--runs N]}, it then loads the datasets a fleet
 * job wrote under OUTPUT (its one run of each date) into memory and writes them again under DIR as
 * the job writes them (Parquet, by date), N times, each timed: the floor of writing those rows,
 * whatever computes them. Prints {@code rewrite I of N: S s (R rows)}.
 */
public final class BareSparkSession {
  private BareSparkSession() {}

  public static void main(String[] argv) {
    String path = null;
    int runs = 1;
    int writes = 0;
    String writeDir = null;
    String rewrite = null;
    for (int i = 0; i < argv.length; i++) {
      switch (argv[i]) {
        case "--read" -> path = argv[++i];
        case "--runs" -> runs = Integer.parseInt(argv[++i]);
        case "--writes" -> writes = Integer.parseInt(argv[++i]);
        case "--write-dir" -> writeDir = argv[++i];
        case "--rewrite" -> rewrite = argv[++i];
        default -> throw new IllegalArgumentException("unknown argument " + argv[i]);
      }
    }
    long start = System.nanoTime();
    SparkSession spark = Sessions.start("fleetprof bare session");
    try {
      long one = spark.sql("SELECT 1").collectAsList().get(0).getInt(0);
      System.out.printf("SELECT 1 = %d after %.2f s%n", one, (System.nanoTime() - start) / 1e9);
      for (int i = 1; path != null && i <= runs; i++) {
        long began = System.nanoTime();
        Row sums =
            spark
                .read()
                .format("profile")
                .option(ReadOptions.ROWS.name(), "stacks")
                .option(GperftoolsFormat.CALLER_ADDRESS, "call")
                .option(ReadOptions.OPEN_COST_IN_BYTES.name(), FleetStages.READ_OPEN_COST)
                .load(path)
                .selectExpr("count(*)", "sum(records)", "sum(count)", "count(frames)")
                .collectAsList()
                .get(0);
        System.out.printf(
            "read %d of %d: %.2f s (%d stack rows, %d records)%n",
            i, runs, (System.nanoTime() - began) / 1e9, sums.getLong(0), sums.getLong(1));
      }
      if ((writes > 0 || rewrite != null) && writeDir == null) {
        throw new IllegalArgumentException("--writes and --rewrite need --write-dir");
      }
      for (int i = 1; i <= writes; i++) {
        long began = System.nanoTime();
        spark.range(1).write().mode("overwrite").parquet(writeDir + "/dataset-" + i);
        System.out.printf("write %d of %d: %.2f s%n", i, writes, (System.nanoTime() - began) / 1e9);
      }
      if (rewrite != null) {
        rewrite(spark, rewrite, writeDir, runs);
      }
    } finally {
      spark.stop();
    }
  }

  /**
   * {@code --rewrite}: the datasets under {@code output}, cached, then written {@code runs} times.
   */
  private static void rewrite(SparkSession spark, String output, String writeDir, int runs) {
    Map<String, Dataset<Row>> cached = new LinkedHashMap<>();
    long rows = 0;
    Set<Object> dates = new HashSet<>();
    for (String name : FleetAggregate.DATASETS) {
      // The job's layout: DATASET/date=D/run=R/ (a bench output holds one run of each date).
      Dataset<Row> d = spark.read().parquet(output + "/" + name).drop("run").cache();
      for (Row r : d.groupBy("date").count().collectAsList()) {
        dates.add(r.get(0));
        rows += r.getLong(1);
      }
      cached.put(name, d);
    }
    // As the job writes: a file open per date in each task rather than sorting by date first.
    spark.conf().set("spark.sql.maxConcurrentOutputFileWriters", Math.min(dates.size(), 16));
    for (int i = 1; i <= runs; i++) {
      long began = System.nanoTime();
      for (Map.Entry<String, Dataset<Row>> d : cached.entrySet()) {
        d.getValue()
            .write()
            .mode("overwrite")
            .partitionBy("date")
            .parquet(writeDir + "/rewrite-" + i + "/" + d.getKey());
      }
      System.out.printf(
          "rewrite %d of %d: %.2f s (%d rows)%n", i, runs, (System.nanoTime() - began) / 1e9, rows);
    }
  }
}
