package dev.fleetprof.jobs;

import java.nio.file.Path;
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
    java.util.List<String> argv =
        new java.util.ArrayList<>(java.util.List.of("-d", "output=" + output));
    java.util.Set<String> given = new java.util.HashSet<>();
    for (int i = 0; i < defines.length; i += 2) {
      argv.addAll(java.util.List.of("-d", defines[i] + "=" + defines[i + 1]));
      given.add(defines[i]);
    }
    Path file = Path.of("jobs", name);
    if (!given.contains("limit") && java.nio.file.Files.readString(file).contains("${limit")) {
      argv.addAll(java.util.List.of("-d", "limit=100000"));
    }
    argv.add(file.toString());
    SqlCommand.Script script = SqlRunner.parse(argv.toArray(new String[0]));
    java.util.List<Dataset<Row>> results = new java.util.ArrayList<>();
    SqlRunner.statements(spark, script, (sql, result) -> results.add(result.get()));
    return results.get(results.size() - 1);
  }
}
