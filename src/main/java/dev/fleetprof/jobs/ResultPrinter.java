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
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.CommandResult;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.runtime.BoxedUnit;

/**
 * Prints each statement of a script and its result on stdout in one of three formats. With json and
 * csv, stdout gets the rows of queries only: the statements themselves and what commands return
 * (SET, SHOW ...) go to the log stream as tables.
 */
final class ResultPrinter {
  /** How results are printed on stdout. */
  enum Format {
    TABLE,
    JSON,
    CSV;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
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

  private final Format format;
  private final int maxRows;
  private final PrintStream out;
  private final PrintStream log;

  ResultPrinter(Format format, int maxRows, PrintStream out, PrintStream log) {
    this.format = format;
    this.maxRows = maxRows;
    this.out = out;
    this.log = log;
  }

  /** A statement about to run, on one line: a table's heading, or a line of the log. */
  void statement(String sql) {
    (format == Format.TABLE ? out : log).println("-- " + sql.replaceAll("\\s+", " "));
  }

  /** A statement's result: nothing for a statement that returns no columns. */
  void result(String sql, Dataset<Row> result) throws IOException {
    if (result.columns().length == 0) {
      return;
    }
    if (format == Format.TABLE) {
      printTable(result, maxRows, out);
    } else if (isCommand(sql, result)) {
      printTable(result, maxRows, log);
    } else if (format == Format.JSON) {
      printJson(result, out);
    } else {
      printCsv(result, out);
    }
  }

  /** A statement that is a list of VALUES, perhaps in parentheses. */
  private static final Pattern VALUES = Pattern.compile("(?i)[\\s(]*VALUES\\b");

  /** Whether spark.sql ran the statement as a command (eagerly, rows already there). */
  private static boolean isCommand(String sql, Dataset<Row> result) {
    if (Sessions.isConnect(result.sparkSession())) {
      // A Connect client sees no query execution. Its server runs a command at once and answers
      // with the rows, a local relation; a query's answer is the query, which is local only when
      // it is a list of VALUES.
      return result.isLocal() && !VALUES.matcher(sql).lookingAt();
    }
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
    if (Sessions.isConnect(result.sparkSession())) {
      // Classic Spark's show() ends a table with a blank line, Spark Connect's does not: the same
      // script prints the same on either.
      out.println();
    }
    out.flush();
  }

  /** JSON Lines by Spark's own JSON writer, a partition at a time (never the whole result). */
  private static void printJson(Dataset<Row> result, PrintStream out) throws IOException {
    Dataset<String> lines =
        result.select(to_json(struct(col("*")), JSON_OPTIONS)).as(Encoders.STRING());
    Writer w = utf8(out);
    Iterator<String> it = lines.toLocalIterator();
    try {
      while (it.hasNext()) {
        w.write(it.next());
        w.write('\n');
      }
    } finally {
      close(it);
    }
    w.flush();
  }

  /**
   * A header and RFC 4180 records by univocity's CSV writer (Spark's own CSV library). Spark turns
   * each value into its text first, as json would write it; a partition at a time, as in json.
   */
  private static void printCsv(Dataset<Row> result, PrintStream out) throws IOException {
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
    try {
      while (rows.hasNext()) {
        Row row = rows.next();
        for (int i = 0; i < values.length; i++) {
          Object v = row.get(i);
          // BigDecimal.toString may use an exponent; json writes the same number, plainly here.
          values[i] = v instanceof BigDecimal d ? d.toPlainString() : v;
        }
        csv.writeRow(values);
      }
    } finally {
      close(rows);
    }
    csv.flush();
  }

  /**
   * Closes a result's iterator if it holds anything: a Spark Connect client's holds Arrow memory
   * until closed, even once read to the end, and its session fails to stop over a leak.
   */
  private static void close(Iterator<?> rows) throws IOException {
    if (rows instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    }
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
}
