package dev.fleetprof.jobs;

import dev.fleetprof.jobs.ResultPrinter.Format;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** The command line of {@code jobs/sql} (see {@code --help}): the {@link Script} it asks for. */
@Command(
    name = "sql",
    sortOptions = false,
    customSynopsis = {
      "sql [-d KEY=VALUE ...] [--view NAME=PATH ...] [--format table|json|csv]",
      "           [--max-rows N] [--remote sc://HOST:PORT] (-e 'SQL;...' | FILE.sql)..."
    },
    description =
        "Runs Spark SQL statements on an embedded Spark session (or a Spark Connect server's,"
            + " with --remote) where the profile"
            + " source is available, in the order given, and prints each result. The fleet"
            + " job's datasets under -d output=DIR (default "
            + SqlCommand.DEFAULT_OUTPUT
            + ") are the views fleet_stacks, fleet_host_stacks, fleet_locations,"
            + " fleet_modules, fleet_functions and fleet_files: each date as its last"
            + " completed run published it.",
    parameterListHeading = "%nArguments:%n",
    optionListHeading = "%nOptions:%n",
    footerHeading = "%n",
    footer = {
      "Example: jobs/sql --view p=sample-data/gperftools \\",
      "           -e \"SELECT path, sum(count) AS samples FROM p GROUP BY path\"",
      "         jobs/sql --format json -d date=2026-11-21 jobs/by-host.sql | jq .host"
    })
final class SqlCommand implements CommandLines.Options<SqlCommand.Script> {
  /** The statements to run (variables substituted) and how to print their results. */
  record Script(
      List<String> statements,
      Format format,
      int maxRows,
      String output,
      String remote,
      Map<String, String> dimensionFilters) {}

  /** The fleet job's output the {@code fleet_*} views show, unless {@code -d output=} says. */
  static final String DEFAULT_OUTPUT = "target/fleet-output";

  private static final int DEFAULT_MAX_ROWS = 50;

  /**
   * The statements of -e, --view and the files, in command-line order: these options are setters,
   * which picocli calls in that order (fields would keep each option's values apart).
   */
  private final List<Supplier<List<String>>> parts = new ArrayList<>();

  private final Map<String, String> vars = new HashMap<>();

  @Option(
      names = {"-d", "--define"},
      paramLabel = "KEY=VALUE",
      order = 1,
      converter = Assignment.Parser.class,
      description =
          "replace $${KEY} in the statements ($${KEY:-default} has a default), as"
              + " spark-sql's --define does; e.g. -d date=2026-11-20")
  private void define(Assignment a) {
    vars.put(a.name(), a.value());
  }

  @Option(
      names = "--view",
      paramLabel = "NAME=PATH",
      order = 2,
      converter = Assignment.Parser.class,
      description = "first run CREATE TEMPORARY VIEW NAME USING profile OPTIONS (path 'PATH')")
  private void view(Assignment a) {
    parts.add(
        () ->
            List.of(
                "CREATE OR REPLACE TEMPORARY VIEW "
                    + a.name()
                    + " USING profile OPTIONS (path '"
                    + a.value().replace("'", "\\'")
                    + "')"));
  }

  @Option(
      names = "-e",
      paramLabel = "SQL",
      order = 3,
      description = "statements to run (separated by ';')")
  private void statements(String sql) {
    parts.add(() -> SqlStatements.expand(SqlStatements.split(sql)));
  }

  @Parameters(
      paramLabel = "FILE.sql",
      index = "0..*",
      arity = "0..1",
      description = "a file of statements to run")
  private void file(String path) {
    parts.add(() -> SqlStatements.read(Path.of(path)));
  }

  @Option(
      names = "--format",
      paramLabel = "F",
      defaultValue = "table",
      order = 4,
      description = {
        "how results are printed on stdout (default ${DEFAULT-VALUE}):",
        "  table  each statement, then its result as Spark's show() prints it",
        "  json   JSON Lines: one object per row, keys are the column names",
        "         and values as Spark's to_json writes them (decimals exact,",
        "         dates and timestamps ISO 8601 to the microsecond, arrays and",
        "         structs nested, binary base64, nulls as null)",
        "  csv    a header line, then an RFC 4180 record per row (LF line ends);",
        "         values as json writes them but decimals never with an",
        "         exponent, nested ones as JSON text; null is an empty field, the",
        "         empty string is \"\"",
        "json and csv print every row of every query (SELECT, WITH, VALUES",
        "...), in order, and nothing else: statements and the output of",
        "commands (SET, SHOW, DESCRIBE, CREATE ...) go to stderr"
      })
  private Format format;

  @Option(
      names = "--max-rows",
      paramLabel = "N",
      order = 5,
      converter = CommandLines.NonNegativeInt.class,
      description =
          "rows to print per result with --format table (default " + DEFAULT_MAX_ROWS + ")")
  private Integer maxRows;

  @Option(
      names = "--remote",
      paramLabel = "sc://HOST:PORT",
      order = 6,
      converter = ConnectAddress.class,
      description = {
        "run the statements on the Spark Connect server there (started by",
        "jobs/connect-server, say) instead of starting Spark here: a second",
        "or so a query instead of a session's start (default: $SPARK_REMOTE,",
        "as Spark's clients take it, if set)"
      })
  private String remote;

  @Override
  public Script args() {
    List<String> statements = new ArrayList<>();
    for (Supplier<List<String>> part : parts) {
      statements.addAll(part.get());
    }
    if (statements.isEmpty()) {
      throw new IllegalArgumentException("no statements given (-e SQL or FILE.sql)");
    }
    Map<String, String> filters = SqlVariables.dimensionFilters(statements, vars);
    Map<String, String> all = new HashMap<>(vars);
    all.putIfAbsent(SqlVariables.DIMENSION_FILTER, SqlVariables.dimensionPredicate(filters));
    all.putIfAbsent(SqlVariables.DIMENSION_FILTERED, filters.isEmpty() ? "" : "yes");
    List<String> resolved = new ArrayList<>();
    for (String sql : statements) {
      resolved.add(SqlVariables.substitute(sql, all));
    }
    if (maxRows != null && format != Format.TABLE) {
      System.err.println(
          "sql: --max-rows applies to --format table only; " + format + " prints every row");
    }
    return new Script(
        List.copyOf(resolved),
        format,
        maxRows != null ? maxRows : DEFAULT_MAX_ROWS,
        vars.getOrDefault("output", DEFAULT_OUTPUT),
        remote != null ? remote : environmentRemote(),
        filters);
  }

  /** The environment's Spark Connect address, as Spark's own clients read it: $SPARK_REMOTE. */
  private static String environmentRemote() {
    String remote = System.getenv("SPARK_REMOTE");
    if (remote == null || remote.isBlank()) {
      return null;
    }
    try {
      return new ConnectAddress().convert(remote.strip());
    } catch (TypeConversionException e) {
      throw new IllegalArgumentException("SPARK_REMOTE: " + e.getMessage());
    }
  }

  /**
   * A Spark Connect server's address, {@code sc://HOST:PORT} (with {@code /;key=value} parameters
   * if any, as Spark's clients take them): {@code local}, which Spark's shells read as "start a
   * server here", is not one, since a server started per run is what the option avoids.
   */
  static final class ConnectAddress implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      if (!value.matches("sc://[^/:;]+(:[0-9]{1,5})?(/.*)?")) {
        throw new TypeConversionException(
            "'" + value + "' is not a Spark Connect address such as sc://127.0.0.1:15002");
      }
      return value;
    }
  }

  /** A {@code NAME=VALUE} option value. */
  record Assignment(String name, String value) {
    /** Splits at the first '='. */
    static final class Parser implements ITypeConverter<Assignment> {
      @Override
      public Assignment convert(String text) {
        String[] nameValue = text.split("=", 2);
        if (nameValue.length != 2) {
          throw new TypeConversionException("'" + text + "' is not NAME=VALUE");
        }
        return new Assignment(nameValue[0], nameValue[1]);
      }
    }
  }
}
