package dev.fleetprof.jobs;

/**
 * The floor of any local Spark job: a fresh JVM that starts the session the jobs start ({@link
 * Sessions}: conf/spark-defaults.conf, local mode), runs {@code SELECT 1} and stops. bench/run's
 * quick-start row times it in a child JVM beside the quick-start job.
 */
public final class BareSparkSession {
  private BareSparkSession() {}

  public static void main(String[] argv) {
    long start = System.nanoTime();
    org.apache.spark.sql.SparkSession spark = Sessions.start("fleetprof bare session");
    try {
      long one = spark.sql("SELECT 1").collectAsList().get(0).getInt(0);
      System.out.printf("SELECT 1 = %d after %.2f s%n", one, (System.nanoTime() - start) / 1e9);
    } finally {
      spark.stop();
    }
  }
}
