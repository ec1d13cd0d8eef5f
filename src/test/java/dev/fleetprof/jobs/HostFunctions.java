package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The per-host functions {@code top-functions.sql} and {@code diff-dates.sql} compute from
 * host_stacks/ and locations/ (their view {@code host_functions}), against the job's own
 * functions/.
 */
final class HostFunctions {
  private static final String[] COLUMNS = {
    "date",
    "format",
    "kind",
    "measure",
    "unit",
    "module",
    "function",
    "self_count",
    "total_count",
    "self_value",
    "total_value"
  };

  private HostFunctions() {}

  /** {@code host_functions} as the last SQL job run left it, summed over its hosts. */
  static Dataset<Row> summed(SparkSession spark) {
    return spark.sql(
        "SELECT date, format, kind, measure, unit, module, function,"
            + " CAST(sum(self_count) AS DECIMAL(38,0)) AS self_count,"
            + " CAST(sum(total_count) AS DECIMAL(38,0)) AS total_count,"
            + " CAST(sum(self_value) AS DECIMAL(38,0)) AS self_value,"
            + " CAST(sum(total_value) AS DECIMAL(38,0)) AS total_value"
            + " FROM host_functions"
            + " GROUP BY date, format, kind, measure, unit, module, function");
  }

  /** The rows of {@code output}'s functions/ of those days and that measure. */
  static Dataset<Row> of(SparkSession spark, String output, List<String> days, String measure) {
    return spark
        .read()
        .parquet(output + "/functions")
        .where(
            "measure = '"
                + measure
                + "' AND CAST(date AS STRING) IN ('"
                + String.join("', '", days)
                + "')")
        .selectExpr(COLUMNS);
  }

  /** The same rows, as many times each (EXCEPT ALL both ways), and some. */
  static void assertSame(String what, Dataset<Row> want, Dataset<Row> got) {
    Dataset<Row> w = want.selectExpr(COLUMNS);
    Dataset<Row> g = got.selectExpr(COLUMNS);
    assertFalse(w.isEmpty(), what + ": no rows");
    assertEquals(List.of(), w.exceptAll(g).collectAsList(), what + ": rows not computed");
    assertEquals(List.of(), g.exceptAll(w).collectAsList(), what + ": rows computed in excess");
  }
}
