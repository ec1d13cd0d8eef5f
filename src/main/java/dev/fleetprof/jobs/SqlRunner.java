package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.PrintStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs Spark SQL statements (given inline or from .sql files) on an embedded Spark session where
 * the {@code profile} source is available, and prints each result: ad-hoc SQL over profiles without
 * a notebook or a cluster. {@code --format json|csv} prints the rows of queries for scripts to
 * read, and nothing else on stdout.
 *
 * <p>Its parts: {@link SqlCommand} (the command line), {@link SqlStatements} (a script split into
 * statements), {@link SqlVariables} ({@code ${KEY}} substituted), {@link FleetViews} (the {@code
 * fleet_*} views over the fleet job's output) and {@link ResultPrinter} (table, json, csv).
 */
public final class SqlRunner {
  /** {@code profile.`PATH`} in a statement. */
  private static final Pattern PROFILE_PATH = Pattern.compile("(?i)\\bprofile\\s*\\.\\s*`([^`]*)`");

  /**
   * Whether a temporary view made by SQL keeps its analyzed plan rather than its text. The scripts
   * build views on views (diff-dates.sql reads its per-host view six times over, each through views
   * of its own): kept as text, every reference parses and analyzes the whole chain again, and
   * analysis alone took most of a minute on the demo output. A script's views are made in order and
   * read the {@code fleet_*} views registered for it, so a plan kept when a view is made is the one
   * its text would give.
   */
  static final String ANALYZED_VIEWS = "spark.sql.legacy.storeAnalyzedPlanForView";

  private SqlRunner() {}

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(
            new SqlCommand(),
            argv,
            System.out,
            System.err,
            (appName, script) ->
                script.remote() != null
                    ? Sessions.connect(script.remote())
                    : Sessions.start(appName),
            (spark, script) -> run(spark, script, System.out, System.err)));
  }

  /**
   * Parses a command line and reads the .sql files it names; an IllegalArgumentException says what
   * is wrong with it.
   */
  static SqlCommand.Script parse(String[] argv) {
    return CommandLines.parse(new SqlCommand(), argv);
  }

  /**
   * Runs the statements in order and prints results on {@code out} in the chosen format. With json
   * and csv, {@code out} gets the rows of queries only: the statements themselves and what commands
   * return (SET, SHOW ...) go to {@code log} as tables.
   */
  static void run(SparkSession spark, SqlCommand.Script script, PrintStream out, PrintStream log)
      throws IOException {
    ResultPrinter printer = new ResultPrinter(script.format(), script.maxRows(), out, log);
    statements(
        spark,
        script,
        (sql, result) -> {
          printer.statement(sql);
          printer.result(sql, result.get());
        });
  }

  /** What is done with each statement of a script, in order: {@code result} runs it. */
  interface StatementRun {
    void accept(String sql, java.util.function.Supplier<Dataset<Row>> result) throws IOException;
  }

  /**
   * Registers the {@code fleet_*} views a script names, then hands each statement to {@code each},
   * in a session set as a script's views need (its own settings win; put back afterwards).
   */
  static void statements(SparkSession spark, SqlCommand.Script script, StatementRun each)
      throws IOException {
    SessionSettings settings = new SessionSettings(spark);
    settings.setUnlessSet(ANALYZED_VIEWS, "true");
    try {
      FleetViews.register(spark, script.statements(), script.output(), script.dimensionFilters());
      for (String sql : script.statements()) {
        each.accept(sql, () -> sql(spark, sql));
      }
    } finally {
      settings.restore();
    }
  }

  /**
   * {@code spark.sql}, with a way out for {@code profile.`PATH`} in a session without the profile
   * catalog: Spark then reads files in place only for sources with a V1 file format, which {@code
   * profile} is not, and its error does not say what to do instead.
   */
  private static Dataset<Row> sql(SparkSession spark, String sql) {
    try {
      return spark.sql(sql);
    } catch (Exception e) {
      // AnalysisException is checked in Java's eyes, though Scala declares nothing: rethrown as is.
      if (!(e instanceof AnalysisException a)
          || !"UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY".equals(ErrorConditions.of(a))
          || !"profile".equalsIgnoreCase(a.getMessageParameters().get("dataSourceType"))) {
        throw e;
      }
      Matcher m = PROFILE_PATH.matcher(sql);
      String path = m.find() ? m.group(1) : "PATH";
      throw new IllegalArgumentException(
          "profile.`"
              + path
              + "` needs the profile catalog, which this session lacks: set"
              + " spark.sql.catalog.profile=dev.fleetprof.spark.ProfileCatalog (as"
              + " conf/spark-defaults.conf does), or use CREATE TEMPORARY VIEW"
              + " v USING profile OPTIONS (path '"
              + path.replace("'", "\\'")
              + "') or jobs/sql --view v="
              + path,
          e);
    }
  }
}
