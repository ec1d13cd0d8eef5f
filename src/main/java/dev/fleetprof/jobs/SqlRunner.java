package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.named_struct;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import com.univocity.parsers.csv.CsvWriter;
import com.univocity.parsers.csv.CsvWriterSettings;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.CommandResult;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;
import scala.runtime.BoxedUnit;

/**
 * Runs Spark SQL statements (given inline or from .sql files) on an embedded Spark session where
 * the {@code profile} source is available, and prints each result: ad-hoc SQL over profiles without
 * a notebook or a cluster. {@code --format json|csv} prints the rows of queries for scripts to
 * read, and nothing else on stdout.
 */
public final class SqlRunner {
  /** How results are printed on stdout. */
  enum Format {
    TABLE,
    JSON,
    CSV;

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The statements to run (variables substituted) and how to print their results. */
  record Script(List<String> statements, Format format, int maxRows, String output) {
    Script(List<String> statements, Format format, int maxRows) {
      this(statements, format, maxRows, DEFAULT_OUTPUT);
    }
  }

  /** The fleet job's output the {@code fleet_*} views show, unless {@code -d output=} says. */
  static final String DEFAULT_OUTPUT = "target/fleet-output";

  /** The prefix of the views over the fleet job's datasets: {@code fleet_functions}, ... */
  static final String VIEW_PREFIX = "fleet_";

  private static final int DEFAULT_MAX_ROWS = 50;

  /** The command line (see {@code --help}). */
  @Command(
      name = "sql",
      sortOptions = false,
      customSynopsis = {
        "sql [-d KEY=VALUE ...] [--view NAME=PATH ...] [--format table|json|csv]",
        "           [--max-rows N] (-e 'SQL;...' | FILE.sql)..."
      },
      description =
          "Runs Spark SQL statements on an embedded Spark session where the profile"
              + " source is available, in the order given, and prints each result. The fleet"
              + " job's datasets under -d output=DIR (default "
              + DEFAULT_OUTPUT
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
  static final class Options implements CommandLines.Options<Script> {
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
      parts.add(() -> split(sql));
    }

    @Parameters(
        paramLabel = "FILE.sql",
        index = "0..*",
        arity = "0..1",
        description = "a file of statements to run")
    private void file(String path) {
      parts.add(
          () -> {
            try {
              return split(Files.readString(Path.of(path)));
            } catch (IOException | java.io.UncheckedIOException e) {
              throw new IllegalArgumentException("cannot read " + path + ": " + e);
            }
          });
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

    @Override
    public Script args() {
      List<String> resolved = new ArrayList<>();
      for (Supplier<List<String>> part : parts) {
        for (String sql : part.get()) {
          resolved.add(substitute(sql, vars));
        }
      }
      if (resolved.isEmpty()) {
        throw new IllegalArgumentException("no statements given (-e SQL or FILE.sql)");
      }
      if (maxRows != null && format != Format.TABLE) {
        System.err.println(
            "sql: --max-rows applies to --format table only; " + format + " prints every row");
      }
      return new Script(
          List.copyOf(resolved),
          format,
          maxRows != null ? maxRows : DEFAULT_MAX_ROWS,
          vars.getOrDefault("output", DEFAULT_OUTPUT));
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

  /**
   * How json (and csv, for values that are not plain strings, numbers or booleans) renders values:
   * Spark's JSON writer, keeping null fields and timestamps to the microsecond (its default format
   * stops at milliseconds).
   */
  static final Map<String, String> JSON_OPTIONS =
      Map.of(
          "ignoreNullFields", "false",
          "timestampFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
          "timestampNTZFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSSSS");

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(
            new Options(),
            argv,
            System.out,
            System.err,
            (spark, script) -> run(spark, script, System.out, System.err)));
  }

  /**
   * Parses a command line and reads the .sql files it names; an IllegalArgumentException says what
   * is wrong with it.
   */
  static Script parse(String[] argv) {
    return CommandLines.parse(new Options(), argv);
  }

  /**
   * Runs the statements in order and prints results on {@code out} in the chosen format. With json
   * and csv, {@code out} gets the rows of queries only: the statements themselves and what commands
   * return (SET, SHOW ...) go to {@code log} as tables.
   */
  static void run(SparkSession spark, Script script, PrintStream out, PrintStream log)
      throws IOException {
    boolean table = script.format() == Format.TABLE;
    registerFleetViews(spark, script.statements(), script.output());
    for (String sql : script.statements()) {
      (table ? out : log).println("-- " + sql.replaceAll("\\s+", " "));
      Dataset<Row> result = sql(spark, sql);
      if (result.columns().length == 0) {
        continue;
      }
      if (table) {
        printTable(result, script.maxRows(), out);
      } else if (isCommand(result)) {
        printTable(result, script.maxRows(), log);
      } else if (script.format() == Format.JSON) {
        printJson(result, out);
      } else {
        printCsv(result, out);
      }
    }
  }

  /**
   * Registers one temporary view per dataset of the fleet job's output that the statements name
   * ({@code fleet_functions} for {@code functions/}, ...): each date as its pointer publishes it,
   * one run per date, read after the pointer, so a query never sees a date half replaced or twice
   * while a re-run of it publishes (see {@link FleetOutput}). The views hold the listing made here:
   * every statement of the script sees the same runs.
   */
  static void registerFleetViews(SparkSession spark, List<String> statements, String output)
      throws IOException {
    String all = String.join("\n", statements).toLowerCase(java.util.Locale.ROOT);
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(output);
    org.apache.hadoop.fs.FileSystem fs =
        out.getFileSystem(spark.sparkContext().hadoopConfiguration());
    FleetOutput.Published published = null; // the pointers, read once for every view
    for (String dataset : FleetAggregate.DATASETS) {
      String view = VIEW_PREFIX + dataset;
      if (!java.util.regex.Pattern.compile("\\b" + view + "\\b").matcher(all).find()) {
        continue;
      }
      if (!fs.exists(new org.apache.hadoop.fs.Path(out, dataset))) {
        throw new IllegalArgumentException(
            view
                + ": no "
                + dataset
                + "/ under "
                + output
                + ": run jobs/fleet-aggregate --output "
                + output
                + " first, or pass -d output=DIR");
      }
      if (published == null) {
        published = FleetOutput.published(spark, output);
      }
      published.read(dataset).createOrReplaceTempView(view);
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
      java.util.regex.Matcher m = PROFILE_PATH.matcher(sql);
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

  /** {@code profile.`PATH`} in a statement. */
  private static final java.util.regex.Pattern PROFILE_PATH =
      java.util.regex.Pattern.compile("(?i)\\bprofile\\s*\\.\\s*`([^`]*)`");

  /** Whether spark.sql ran the statement as a command (eagerly, rows already there). */
  private static boolean isCommand(Dataset<Row> result) {
    return result.queryExecution().commandExecuted() instanceof CommandResult;
  }

  /** Spark's show(), which prints with Scala's println: on Console.out, here made {@code out}. */
  private static void printTable(Dataset<Row> result, int maxRows, PrintStream out) {
    scala.Console.withOut(
        out,
        () -> {
          result.show(maxRows, false);
          return BoxedUnit.UNIT;
        });
    out.flush();
  }

  /** JSON Lines by Spark's own JSON writer, a partition at a time (never the whole result). */
  static void printJson(Dataset<Row> result, PrintStream out) throws IOException {
    Dataset<String> lines =
        result.select(to_json(struct(col("*")), JSON_OPTIONS)).as(Encoders.STRING());
    Writer w = utf8(out);
    Iterator<String> it = lines.toLocalIterator();
    while (it.hasNext()) {
      w.write(it.next());
      w.write('\n');
    }
    w.flush();
  }

  /**
   * A header and RFC 4180 records by univocity's CSV writer (Spark's own CSV library). Spark turns
   * each value into its text first, as json would write it; a partition at a time, as in json.
   */
  static void printCsv(Dataset<Row> result, PrintStream out) {
    StructField[] fields = result.schema().fields();
    // Positional names: the result's own may repeat, or hold dots that col() would misread.
    String[] positional = new String[fields.length];
    for (int i = 0; i < fields.length; i++) {
      positional[i] = "c" + i;
    }
    Column[] texts = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      texts[i] = csvText(col(positional[i]), fields[i].dataType()).as(positional[i]);
    }
    Iterator<Row> rows = result.toDF(positional).select(texts).toLocalIterator();
    CsvWriter csv = new CsvWriter(utf8(out), csvSettings());
    csv.writeRow((Object[]) result.columns());
    Object[] values = new Object[fields.length];
    while (rows.hasNext()) {
      Row row = rows.next();
      for (int i = 0; i < values.length; i++) {
        Object v = row.get(i);
        // BigDecimal.toString may use an exponent; json writes the same number, plainly here.
        values[i] = v instanceof BigDecimal d ? d.toPlainString() : v;
      }
      csv.writeRow(values);
    }
    csv.flush();
  }

  /**
   * A CSV field's value: strings, numbers and booleans as they are (Java's text of them is
   * Spark's); nested values as JSON text; anything else (dates, timestamps, intervals, binary) as
   * the JSON writer renders it, taken out of its JSON string.
   */
  private static Column csvText(Column c, DataType type) {
    if (type instanceof StringType || type instanceof NumericType || type instanceof BooleanType) {
      return c;
    }
    if (type instanceof StructType
        || type instanceof ArrayType
        || type instanceof MapType
        // VARIANT (Spark 4), by name: the class does not exist on Spark 3.5, which the jar also
        // targets.
        || type.typeName().equals("variant")) {
      return to_json(c, JSON_OPTIONS);
    }
    return get_json_object(to_json(named_struct(lit("v"), c), JSON_OPTIONS), "$.v");
  }

  private static CsvWriterSettings csvSettings() {
    CsvWriterSettings s = new CsvWriterSettings();
    s.getFormat().setDelimiter(',');
    s.getFormat().setQuote('"');
    s.getFormat().setQuoteEscape('"');
    s.getFormat().setLineSeparator("\n");
    // RFC 4180 knows no comments: a value starting with '#' is data.
    s.getFormat().setComment('\0');
    // Spaces are data; line ends inside a value are kept as they are.
    s.setIgnoreLeadingWhitespaces(false);
    s.setIgnoreTrailingWhitespaces(false);
    s.setNormalizeLineEndingsWithinQuotes(false);
    // Null is an empty field, the empty string a quoted one; a row of nulls is still a row.
    s.setNullValue(null);
    s.setEmptyValue("\"\"");
    s.setSkipEmptyLines(false);
    s.setMaxCharsPerColumn(-1);
    return s;
  }

  /** UTF-8 whatever the platform's charset: JSON and most CSV readers expect it. Never closed. */
  private static Writer utf8(PrintStream out) {
    return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
  }

  private static final java.util.regex.Pattern VARIABLE =
      java.util.regex.Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(?::-([^}]*))?}");

  /**
   * Replaces {@code ${KEY}} and {@code ${KEY:-default}}; a KEY with neither value nor default
   * fails.
   */
  static String substitute(String sql, java.util.Map<String, String> vars) {
    java.util.regex.Matcher m = VARIABLE.matcher(sql);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = vars.getOrDefault(m.group(1), m.group(2));
      if (v == null) {
        throw new IllegalArgumentException(
            "${" + m.group(1) + "} has no value: pass -d " + m.group(1) + "=...");
      }
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(v));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Splits a script on ';' outside quotes, backquotes and comments; drops empty statements. */
  static List<String> split(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < script.length(); i++) {
      char c = script.charAt(i);
      if (quote != 0) {
        cur.append(c);
        if (c == '\\' && i + 1 < script.length()) {
          cur.append(script.charAt(++i));
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"' || c == '`') {
        quote = c;
        cur.append(c);
      } else if (c == '-' && i + 1 < script.length() && script.charAt(i + 1) == '-') {
        int eol = script.indexOf('\n', i);
        i = eol < 0 ? script.length() : eol;
        cur.append('\n');
      } else if (c == ';') {
        add(out, cur);
      } else {
        cur.append(c);
      }
    }
    add(out, cur);
    return out;
  }

  private static void add(List<String> out, StringBuilder cur) {
    String s = cur.toString().strip();
    if (!s.isEmpty()) {
      out.add(s);
    }
    cur.setLength(0);
  }
}
