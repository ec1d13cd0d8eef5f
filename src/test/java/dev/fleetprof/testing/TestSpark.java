package dev.fleetprof.testing;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.Option;

/** One real local Spark session for all tests in the JVM. */
public final class TestSpark {
  private static SparkSession spark;

  private TestSpark() {}

  public static synchronized SparkSession get() {
    if (spark == null) {
      spark = SparkSession.builder()
          // Two attempts per task, so that tests can check a retried task gives the same rows.
          .master("local[2,2]")
          .appName("fleetprof-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "4")
          // Adaptive execution wraps the plan; tests read scan metrics from the plain plan.
          .config("spark.sql.adaptive.enabled", "false")
          .config("spark.sql.warehouse.dir", System.getProperty("java.io.tmpdir")
              + "/fleetprof-test-warehouse")
          .getOrCreate();
    }
    return spark;
  }

  /** A custom metric of the (single) profile scan in an executed query's plan. */
  public static long scanMetric(Dataset<Row> executed, String name) {
    SparkPlan plan = executed.queryExecution().executedPlan();
    scala.collection.Iterator<SparkPlan> leaves = plan.collectLeaves().iterator();
    while (leaves.hasNext()) {
      SparkPlan leaf = leaves.next();
      if (leaf instanceof BatchScanExec scan) {
        Option<SQLMetric> m = scan.metrics().get(name);
        if (m.isEmpty()) {
          throw new AssertionError("no metric " + name + " on " + scan);
        }
        return m.get().value();
      }
    }
    throw new AssertionError("no BatchScanExec in " + plan);
  }
}
