package dev.fleetprof.jobs;

import static dev.fleetprof.jobs.FleetStages.exactSum;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * What the fleet job's aggregates pay for DECIMAL(38,0) sums: three sums (a count, a value, a self
 * count) of 4 million kept DECIMAL(38,0) rows into 200,000 groups, summed as decimals and as
 * BIGINTs cast back ({@link FleetStages#exactSum}, as the job sums), alternating, in one local[2]
 * session. Prints each round's seconds and the median ratio. Usage: {@code DecimalSums [ROUNDS]}.
 */
public final class DecimalSums {
  private DecimalSums() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "8")
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    Dataset<Row> rows =
        spark
            .range(0, 4_000_000, 1, 4)
            .selectExpr(
                "id % 200000 AS k",
                "CAST(id % 1000 AS DECIMAL(38,0)) AS count",
                "CAST((id % 1000) * 10000000 AS DECIMAL(38,0)) AS value")
            .persist(StorageLevel.MEMORY_AND_DISK());
    rows.count();
    double[] decimals = new double[rounds];
    double[] longs = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      // Which goes first swaps every round.
      for (boolean overLongs : new boolean[] {round % 2 == 0, round % 2 != 0}) {
        long start = System.nanoTime();
        rows.groupBy("k")
            .agg(
                exactSum(col("count"), overLongs),
                exactSum(col("value"), overLongs),
                exactSum(expr("CASE WHEN k % 3 = 0 THEN count ELSE 0 END"), overLongs))
            .write()
            .format("noop")
            .mode("overwrite")
            .save();
        double seconds = (System.nanoTime() - start) / 1e9;
        (overLongs ? longs : decimals)[round] = seconds;
        System.out.printf(
            "round %d, %s: %.2f s%n", round, overLongs ? "bigint" : "decimal", seconds);
      }
    }
    System.out.printf(
        "median: decimal %.2f s, bigint %.2f s, bigint/decimal %.2fx (round 0, JIT warm-up, left out)%n",
        median(decimals), median(longs), median(longs) / median(decimals));
    spark.stop();
  }

  private static double median(double[] all) {
    double[] rest = java.util.Arrays.copyOfRange(all, 1, all.length);
    java.util.Arrays.sort(rest);
    return rest[rest.length / 2];
  }
}
