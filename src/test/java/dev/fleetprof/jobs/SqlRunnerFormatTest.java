package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.univocity.parsers.csv.CsvParser;
import com.univocity.parsers.csv.CsvParserSettings;
import dev.fleetprof.testing.ScalaValues;
import dev.fleetprof.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * jobs/sql --format json|csv, run through the runner's own code path on a real local session: the
 * printed text, read back by Jackson and by a CSV parser, holds exactly the rows Spark returns for
 * the query, with the values that are easiest to get wrong.
 */
class SqlRunnerFormatTest {
  /** Strings that need quoting, decimals beyond long, dates, nested values and nulls. */
  private static final String ROWS =
      String.join(
          "\n",
          "SELECT * FROM VALUES",
          "  (1, 'plain', CAST('123456789012345678901234567890123456' AS DECIMAL(38,0)),",
          "   DATE'2026-11-20', TIMESTAMP'2026-11-20 12:34:56.123456',",
          "   array(named_struct('f', 'a,b', 'n', 1L), named_struct('f', NULL, 'n', NULL)),",
          "   map('k', 1), X'00FF10', 1.5D, true),",
          "  (2, 'comma, \"quote\"\\nnew line\\r\\nCRLF and lone\\rCR',",
          "   CAST('-99999999999999999999999999999999999999' AS DECIMAL(38,0)),",
          "   DATE'1970-01-01', TIMESTAMP'1999-12-31 23:59:59',",
          "   array(named_struct('f', 'x\"y\\nz', 'n', 9223372036854775807L)), map(), X'', 1e300D,",
          "   false),",
          "  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),",
          "  (4, '', 9223372036854775808BD, DATE'0001-01-01', TIMESTAMP'2026-01-01 00:00:00.000001',",
          "   array(), map('a,b', NULL), X'22', -0.0D, NULL),",
          "  (5, '  spaces kept  ', 18446744073709551616BD, DATE'9999-12-31', NULL, NULL,",
          "   NULL, NULL, NULL, NULL),",
          "  (6, '#not a comment', 1BD, NULL, NULL, array(NULL), NULL, NULL, NULL, NULL),",
          "  (7, 'ünïcødé ✓ 火', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
          "AS t(id, `s, \"quoted\"`, big, day, ts, items, tags, bin, ratio, flag)");

  private static final int ROW_COUNT = 7;

  private static SparkSession spark;

  /** Integers beyond long stay exact; doubles stay doubles (a BigDecimal has no -0.0). */
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  @BeforeAll
  static void session() {
    spark = TestSpark.get();
  }

  /** What the runner prints on stdout and on its log stream for a command line. */
  private record Printed(String out, String log) {}

  private static Printed run(String... argv) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream l = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      SqlRunner.run(spark, SqlRunner.parse(argv), o, l);
    }
    return new Printed(out.toString(StandardCharsets.UTF_8), log.toString(StandardCharsets.UTF_8));
  }

  /** The script: commands around two queries; only the queries' rows belong on stdout. */
  private static String script() {
    return "SET fleetprof.test.format=yes;\n"
        + "CREATE OR REPLACE TEMPORARY VIEW format_rows AS "
        + ROWS
        + ";\n"
        + "SELECT * FROM format_rows ORDER BY id;\n"
        + "SHOW TABLES;\n"
        + "SELECT count(*) AS n FROM format_rows";
  }

  private static List<Row> expectedRows() {
    return spark.sql(ROWS + " ORDER BY id").collectAsList();
  }

  private static StructType expectedSchema() {
    return spark.sql(ROWS).schema();
  }

  @Test
  void jsonLinesHoldExactlyTheQueryRows() throws Exception {
    Printed p = run("--format", "json", "-e", script());
    assertFalse(p.out().contains("\r"), "JSON escapes every line end inside values");
    String[] lines = p.out().split("\n", -1);
    assertEquals("", lines[lines.length - 1], "every line ends with \\n");
    assertEquals(
        ROW_COUNT + 1 + 1, lines.length, "rows of both queries, nothing else:\n" + p.out());

    StructType schema = expectedSchema();
    List<Row> rows = expectedRows();
    for (int r = 0; r < ROW_COUNT; r++) {
      JsonNode object = JSON.readTree(lines[r]);
      assertTrue(object.isObject(), lines[r]);
      List<String> keys = new ArrayList<>();
      object.fieldNames().forEachRemaining(keys::add);
      assertEquals(List.of(schema.fieldNames()), keys, "every column, nulls included, in order");
      for (int c = 0; c < schema.fields().length; c++) {
        StructField f = schema.fields()[c];
        assertValue(
            rows.get(r).get(c),
            f.dataType(),
            object.get(f.name()),
            "row " + r + " column " + f.name());
      }
    }
    JsonNode count = JSON.readTree(lines[ROW_COUNT]);
    assertEquals(ROW_COUNT, count.get("n").asLong());

    assertTrue(p.log().contains("-- SET fleetprof.test.format=yes"), p.log());
    assertTrue(p.log().contains("fleetprof.test.format"), "a command's rows go to the log");
    assertTrue(p.log().contains("format_rows"), "SHOW TABLES' rows go to the log");
  }

  @Test
  void csvHoldsExactlyTheQueryRows() throws Exception {
    Printed p = run("--format", "csv", "-e", script());
    String out = p.out();
    StructType schema = expectedSchema();
    List<Row> rows = expectedRows();

    // RFC 4180 quoting, written out by hand from the RFC's rules for the values in ROWS.
    assertTrue(
        out.startsWith("id,\"s, \"\"quoted\"\"\",big,day,ts,items,tags,bin,ratio,flag\n"), out);
    assertTrue(out.contains("\n2,\"comma, \"\"quote\"\"\nnew line\r\nCRLF and lone\rCR\","), out);
    assertTrue(out.contains("\n3,,,,,,,,,\n"), "nulls are empty fields: " + out);
    assertTrue(out.contains("\n4,\"\","), "the empty string is a quoted empty field: " + out);
    assertTrue(out.contains("\n5,  spaces kept  ,18446744073709551616,"), out);

    List<String[]> records = parseCsv(out);
    assertEquals(1 + ROW_COUNT + 1 + 1, records.size(), "two headers and both queries' rows");
    assertArrayEquals(schema.fieldNames(), records.get(0));
    for (int r = 0; r < ROW_COUNT; r++) {
      String[] record = records.get(1 + r);
      assertEquals(schema.fields().length, record.length);
      for (int c = 0; c < record.length; c++) {
        DataType type = schema.fields()[c].dataType();
        assertValue(
            rows.get(r).get(c),
            type,
            csvFieldAsJson(record[c], type),
            "row " + r + " column " + schema.fields()[c].name());
      }
    }
    assertArrayEquals(new String[] {"n"}, records.get(1 + ROW_COUNT));
    assertArrayEquals(new String[] {String.valueOf(ROW_COUNT)}, records.get(2 + ROW_COUNT));
    assertTrue(p.log().contains("format_rows"), "SHOW TABLES' rows go to the log");
  }

  @Test
  void jsonAndCsvPrintEveryRowWhateverMaxRows() throws Exception {
    int n = 5000;
    String[] json =
        run("--format", "json", "--max-rows", "3", "-e", "SELECT id FROM range(" + n + ")")
            .out()
            .split("\n");
    assertEquals(n, json.length);
    for (int i = 0; i < n; i++) {
      assertEquals(i, JSON.readTree(json[i]).get("id").asLong());
    }
    List<String[]> csv =
        parseCsv(
            run("--format", "csv", "--max-rows", "3", "-e", "SELECT id FROM range(" + n + ")")
                .out());
    assertEquals(n + 1, csv.size());
    assertEquals(String.valueOf(n - 1), csv.get(n)[0]);
  }

  @Test
  void tableIsShowOnTheGivenStreamCutAtMaxRows() throws Exception {
    Printed p = run("--max-rows", "3", "-e", "SELECT id FROM range(10)");
    assertTrue(p.out().startsWith("-- SELECT id FROM range(10)\n"), p.out());
    assertTrue(p.out().contains("only showing top 3 rows"), p.out());
    assertEquals(3, p.out().lines().filter(l -> l.matches("\\|\\d+ *\\|")).count(), p.out());
    assertEquals("", p.log());
  }

  @Test
  void badValuesAreRefusedWithWhatIsWrong() {
    assertMessage(
        "Invalid value for option '--format': 'xml' is not one of table, json, csv",
        "--format",
        "xml");
    assertMessage(
        "Invalid value for option '--max-rows': 'abc' is not a whole number >= 0",
        "--max-rows",
        "abc");
    assertMessage(
        "Invalid value for option '--max-rows': '-1' is not a whole number >= 0",
        "--max-rows",
        "-1");
    assertMessage(
        "Invalid value for option '--max-rows': '99999999999' is not a whole number" + " >= 0",
        "--max-rows",
        "99999999999");
    assertThrows(
        IllegalArgumentException.class,
        () -> SqlRunner.parse(new String[] {"-e", "SELECT 1", "--format"}));
  }

  private static void assertMessage(String message, String option, String value) {
    Exception e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SqlRunner.parse(new String[] {option, value, "-e", "SELECT 1"}));
    assertEquals(message, e.getMessage());
  }

  @Test
  void badValuesExitWithTwoAndOneLineAndTheUsageBeforeSparkStarts() throws Exception {
    for (String[] bad :
        List.of(new String[] {"--format", "xml"}, new String[] {"--max-rows", "abc"})) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  SqlRunner.class.getName()));
      command.addAll(List.of(bad));
      command.addAll(List.of("-e", "SELECT 1"));
      Process process = new ProcessBuilder(command).start();
      assertTrue(process.waitFor(60, TimeUnit.SECONDS), "exits without starting Spark");
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(2, process.exitValue(), err);
      assertEquals("", out);
      List<String> lines = err.lines().toList();
      assertTrue(
          lines.get(0).startsWith("sql: ")
              && lines.get(0).contains(bad[0])
              && lines.get(0).contains("'" + bad[1] + "'"),
          err);
      assertTrue(lines.get(1).startsWith("Usage: sql "), err);
      assertFalse(err.contains("Exception"), err);
    }
  }

  /** A CSV parser set to RFC 4180 alone: no comments, spaces kept, line ends in values kept. */
  private static List<String[]> parseCsv(String text) {
    CsvParserSettings s = new CsvParserSettings();
    s.getFormat().setDelimiter(',');
    s.getFormat().setQuote('"');
    s.getFormat().setQuoteEscape('"');
    s.getFormat().setLineSeparator("\n");
    s.getFormat().setComment('\0');
    s.setIgnoreLeadingWhitespaces(false);
    s.setIgnoreTrailingWhitespaces(false);
    s.setNormalizeLineEndingsWithinQuotes(false);
    s.setKeepQuotes(false);
    s.setNullValue(null);
    s.setEmptyValue("");
    s.setSkipEmptyLines(false);
    s.setMaxCharsPerColumn(-1);
    return new CsvParser(s).parseAll(new StringReader(text));
  }

  /**
   * A CSV field as the JSON value it stands for: numbers and booleans, and nested values, are JSON
   * text; any other value is the text of a JSON string; an empty field is null.
   */
  private static JsonNode csvFieldAsJson(String field, DataType type) throws Exception {
    if (field == null) {
      return NullNode.getInstance();
    }
    if (type instanceof DecimalType) {
      assertFalse(field.contains("E"), "decimals are plain in CSV: " + field);
    }
    if (type instanceof NumericType
        || type instanceof BooleanType
        || type instanceof ArrayType
        || type instanceof StructType
        || type instanceof MapType) {
      return JSON.readTree(field);
    }
    return TextNode.valueOf(field);
  }

  /** That a JSON value is a value of a Spark row, as collected by Spark itself, losing nothing. */
  private static void assertValue(Object expected, DataType type, JsonNode actual, String where) {
    if (expected == null) {
      assertTrue(actual != null && actual.isNull(), where + ": null, not " + actual);
      return;
    }
    if (type instanceof StringType) {
      assertTrue(actual.isTextual(), where);
      assertEquals(expected, actual.textValue(), where);
    } else if (type instanceof IntegerType || type instanceof LongType) {
      assertTrue(actual.isIntegralNumber(), where);
      assertEquals(((Number) expected).longValue(), actual.longValue(), where);
    } else if (type instanceof DecimalType) {
      assertTrue(actual.isNumber(), where);
      BigDecimal e = (BigDecimal) expected;
      assertEquals(0, e.compareTo(actual.decimalValue()), where + ": " + e + " vs " + actual);
      if (e.abs().compareTo(new BigDecimal(BigInteger.TWO.pow(63))) >= 0) {
        assertTrue(actual.isBigInteger() || actual.isBigDecimal(), where);
      }
    } else if (type instanceof DoubleType) {
      assertTrue(actual.isNumber(), where);
      assertEquals(
          Double.doubleToLongBits((Double) expected),
          Double.doubleToLongBits(actual.doubleValue()),
          where + ": " + actual);
    } else if (type instanceof BooleanType) {
      assertTrue(actual.isBoolean(), where);
      assertEquals(expected, actual.booleanValue(), where);
    } else if (type instanceof DateType) {
      // java.sql.Date prints ISO 8601 (yyyy-mm-dd).
      assertEquals(expected.toString(), actual.textValue(), where);
    } else if (type instanceof TimestampType) {
      assertEquals(
          ((Timestamp) expected).toInstant(),
          OffsetDateTime.parse(actual.textValue()).toInstant(),
          where + ": " + actual);
    } else if (type instanceof BinaryType) {
      assertArrayEquals((byte[]) expected, Base64.getDecoder().decode(actual.textValue()), where);
    } else if (type instanceof ArrayType a) {
      assertTrue(actual.isArray(), where);
      List<?> items = ScalaValues.list((scala.collection.Seq<?>) expected);
      assertEquals(items.size(), actual.size(), where);
      for (int i = 0; i < items.size(); i++) {
        assertValue(items.get(i), a.elementType(), actual.get(i), where + "[" + i + "]");
      }
    } else if (type instanceof StructType s) {
      assertTrue(actual.isObject(), where);
      Row row = (Row) expected;
      List<String> keys = new ArrayList<>();
      actual.fieldNames().forEachRemaining(keys::add);
      assertEquals(List.of(s.fieldNames()), keys, where);
      for (int i = 0; i < s.fields().length; i++) {
        assertValue(
            row.get(i),
            s.fields()[i].dataType(),
            actual.get(s.fields()[i].name()),
            where + "." + s.fields()[i].name());
      }
    } else if (type instanceof MapType m) {
      assertTrue(actual.isObject(), where);
      Map<?, ?> map = ScalaValues.map((scala.collection.Map<?, ?>) expected);
      assertEquals(map.size(), actual.size(), where);
      for (Map.Entry<?, ?> e : map.entrySet()) {
        assertValue(
            e.getValue(),
            m.valueType(),
            actual.get((String) e.getKey()),
            where + "[" + e.getKey() + "]");
      }
    } else {
      throw new AssertionError(where + ": no check for " + type);
    }
  }
}
