package dev.fleetprof.testing;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.Assumptions;
import scala.Option;

/**
 * One real local Spark session for all tests in the JVM, with the settings of the jobs' local runs
 * ({@code conf/spark-defaults.conf}, adaptive query execution included) apart from the few that
 * only suit a test JVM. Spark's code generation is off, as in the launcher's runs on a few MB
 * ({@code conf/small-run-jvm-options}), which is what nearly every test is: hundreds of queries on
 * small data, each of which would otherwise compile its Java first. Tests of the source's rows
 * under generated code, as a large run reads them, turn it on for their class ({@link
 * GeneratedCode}).
 */
public final class TestSpark {
  /** The settings a job run locally starts from (see {@code Sessions} in the jobs). */
  private static final Path PRODUCTION_DEFAULTS = Path.of("conf", "spark-defaults.conf");

  private static SparkSession spark;

  /**
   * The session settings that turn Spark's code generation on ({@code true}: whole-stage code
   * generation, and generated projections and predicates, falling back to interpreted ones as
   * Spark's default does) or off.
   */
  private static Map<String, String> codeGeneration(boolean on) {
    return Map.of(
        "spark.sql.codegen.wholeStage",
        Boolean.toString(on),
        "spark.sql.codegen.factoryMode",
        on ? "FALLBACK" : "NO_CODEGEN");
  }

  private TestSpark() {}

  public static synchronized SparkSession get() {
    if (spark == null) {
      SparkSession.Builder builder = SparkSession.builder();
      productionDefaults().forEach((k, v) -> builder.config((String) k, ((String) v).strip()));
      codeGeneration(false).forEach(builder::config);
      spark =
          builder
              // Two attempts per task, so that tests can check a retried task gives the same rows.
              .master("local[2,2]")
              .appName("fleetprof-tests")
              .config("spark.ui.enabled", "false")
              .config("spark.ui.showConsoleProgress", "false")
              // Tiny inputs: fewer shuffle files per map task than a real fleet needs.
              .config("spark.sql.shuffle.partitions", "4")
              .config(
                  "spark.sql.warehouse.dir",
                  System.getProperty("java.io.tmpdir") + "/fleetprof-test-warehouse")
              .getOrCreate();
    }
    return spark;
  }

  /**
   * Turns Spark's code generation on, or off again as the session starts ({@link GeneratedCode}
   * does both around a class's tests).
   */
  public static void generatedCode(boolean on) {
    codeGeneration(on).forEach(get().conf()::set);
  }

  /**
   * The major version of the Spark the tests run on (4; 3 for Spark 3.5, which the jar is also
   * built for), for the few tests of what differs between the two.
   */
  public static int majorVersion() {
    return Integer.parseInt(get().version().split("\\.")[0]);
  }

  /**
   * Skips a test, visibly, on Spark 3.5, whose SQL parser does not know a statement the test runs
   * (e.g. read options in {@code WITH (...)} after a table name).
   */
  public static void assumeSpark4Sql(String what) {
    Assumptions.assumeTrue(
        majorVersion() >= 4, what + " is Spark 4 SQL; this is Spark " + get().version());
  }

  private static Properties productionDefaults() {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(PRODUCTION_DEFAULTS)) {
      p.load(r);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + PRODUCTION_DEFAULTS, e);
    }
    return p;
  }

  /**
   * The physical plan a query ran with: under adaptive execution, the final plan it arrived at
   * (call it after the query ran); otherwise the executed plan itself.
   */
  public static SparkPlan finalPlan(Dataset<?> executed) {
    SparkPlan plan = executed.queryExecution().executedPlan();
    return plan instanceof AdaptiveSparkPlanExec adaptive ? adaptive.executedPlan() : plan;
  }

  /** A custom metric of the (single) profile scan in an executed query's plan. */
  public static long scanMetric(Dataset<Row> executed, String name) {
    SparkPlan plan = finalPlan(executed);
    for (SparkPlan node : nodes(plan)) {
      if (node instanceof BatchScanExec scan) {
        Option<SQLMetric> m = scan.metrics().get(name);
        if (m.isEmpty()) {
          throw new AssertionError("no metric " + name + " on " + scan);
        }
        return m.get().value();
      }
    }
    throw new AssertionError("no BatchScanExec in " + plan);
  }

  /**
   * Every node of a plan, looking inside the query stages (and nested adaptive plans) that adaptive
   * execution puts between a query and its scans, where Spark's own tree walk stops.
   */
  public static List<SparkPlan> nodes(SparkPlan plan) {
    List<SparkPlan> out = new ArrayList<>();
    List<SparkPlan> todo = new ArrayList<>(List.of(plan));
    while (!todo.isEmpty()) {
      SparkPlan node = todo.remove(todo.size() - 1);
      out.add(node);
      if (node instanceof AdaptiveSparkPlanExec adaptive) {
        todo.add(adaptive.executedPlan());
      } else if (node instanceof QueryStageExec stage) {
        todo.add(stage.plan());
      } else {
        scala.collection.Iterator<SparkPlan> children = node.children().iterator();
        while (children.hasNext()) {
          todo.add(children.next());
        }
      }
    }
    return out;
  }
}
