package dev.fleetprof.jobs;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Runs a {@code jobs/*.sql} file as {@code jobs/sql} does, for the tests of the SQL jobs. */
final class SqlFiles {
  private SqlFiles() {}

  /**
   * The last statement's result of {@code jobs/NAME} over the fleet output {@code output}, with
   * {@code -d KEY=VALUE} definitions given as pairs ({@code limit} is 100000 unless given).
   */
  static Dataset<Row> run(SparkSession spark, String output, String name, String... defines)
      throws Exception {
    Map<String, String> vars = new HashMap<>();
    vars.put("output", output);
    vars.put("limit", "100000");
    for (int i = 0; i < defines.length; i += 2) {
      vars.put(defines[i], defines[i + 1]);
    }
    java.util.List<String> statements = new java.util.ArrayList<>();
    for (String sql : SqlStatements.read(Path.of("jobs", name))) {
      statements.add(SqlVariables.substitute(sql, vars));
    }
    FleetViews.register(spark, statements, output);
    Dataset<Row> last = null;
    for (String sql : statements) {
      last = spark.sql(sql);
    }
    return last;
  }
}
