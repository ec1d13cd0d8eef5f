package dev.fleetprof.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Path SQL through {@link ProfileCatalog}: {@code SELECT * FROM profile.`path`} reads what {@code
 * spark.read().format("profile").load(path)} reads, with read options from {@code WITH (...)} (or
 * the reader's options, on Spark 3.5) and from the catalog's settings.
 */
class ProfileCatalogTest {
  private static final String CATALOG = "spark.sql.catalog.profile";

  /** A second catalog whose settings make FAILFAST every table's default. */
  private static final String STRICT = "spark.sql.catalog.profile_strict";

  private static SparkSession spark;

  /** The shared session's own registration (conf/spark-defaults.conf has one), restored after. */
  private static String registered;

  @TempDir static Path tmp;

  /** A DCPI file that reads cleanly beside one whose header is cut off. */
  private static Path mixed;

  private static Path fleet;

  @BeforeAll
  static void register() throws Exception {
    spark = TestSpark.get();
    registered = spark.conf().get(CATALOG, null);
    spark.conf().set(CATALOG, ProfileCatalog.class.getName());
    spark.conf().set(STRICT, ProfileCatalog.class.getName());
    spark.conf().set(STRICT + ".mode", "FAILFAST");

    mixed = Files.createDirectories(tmp.resolve("mixed"));
    Files.copy(SampleData.DCPI.resolve("valid-small.prof"), mixed.resolve("valid-small.prof"));
    Files.copy(
        SampleData.DCPI_REFERENCE.resolve("bad-truncated-header.prof"),
        mixed.resolve("bad-truncated-header.prof"));

    List<Path> gperftools =
        List.of(
            SampleData.GPERFTOOLS.resolve("multithreaded.prof"),
            SampleData.GPERFTOOLS.resolve("shared_library.prof"));
    fleet =
        new FleetFixture(tmp.resolve("fleet"))
            .copy("2026-11-19", "web01", gperftools)
            .copy("2026-11-20", "web01", gperftools.subList(0, 1))
            .copy("2026-11-20", "web02", gperftools.subList(1, 2))
            .root();
  }

  @AfterAll
  static void unregister() {
    if (registered == null) {
      spark.conf().unset(CATALOG);
    } else {
      spark.conf().set(CATALOG, registered);
    }
    spark.conf().unset(STRICT);
    spark.conf().unset(STRICT + ".mode");
  }

  private static String quoted(Path p) {
    return "`" + p.toAbsolutePath().toString().replace("`", "``") + "`";
  }

  /** Rows as JSON text: set operations refuse the map inside the {@code dcpi} column. */
  private static Dataset<Row> json(Dataset<Row> rows) {
    return rows.select(to_json(struct(col("*"))).as("row"));
  }

  private static void assertSameRows(Dataset<Row> expected, Dataset<Row> actual) {
    assertEquals(List.of(expected.schema().fieldNames()), List.of(actual.schema().fieldNames()));
    long n = expected.count();
    assertTrue(n > 0, "the comparison needs rows");
    assertEquals(n, actual.count());
    assertEquals(0, json(expected).exceptAll(json(actual)).count(), "rows missing from the SQL");
    assertEquals(0, json(actual).exceptAll(json(expected)).count(), "rows only in the SQL");
  }

  private static Dataset<Row> load(Path p) {
    return spark.read().format("profile").load(p.toAbsolutePath().toString());
  }

  /**
   * The shared session starts from conf/spark-defaults.conf, as jobs/sql's local sessions do: the
   * catalog is there before this class registers it.
   */
  @Test
  void localRunsRegisterTheCatalog() {
    assertEquals(ProfileCatalog.class.getName(), registered);
  }

  @Test
  void pathSqlReadsWhatLoadReads() {
    assertSameRows(
        load(SampleData.GPERFTOOLS),
        spark.sql("SELECT * FROM profile." + quoted(SampleData.GPERFTOOLS)));
  }

  @Test
  void partitionedTreeHasItsPartitionColumns() {
    Dataset<Row> sql = spark.sql("SELECT * FROM profile." + quoted(fleet));
    assertTrue(List.of(sql.schema().fieldNames()).containsAll(List.of("date", "host")));
    assertSameRows(load(fleet), sql);
    assertSameRows(
        load(fleet).where("date = DATE'2026-11-20' AND host = 'web02'"),
        spark.sql(
            "SELECT * FROM profile."
                + quoted(fleet)
                + " WHERE date = DATE'2026-11-20' AND host = 'web02'"));
  }

  @Test
  void tableAndTempViewReadWhatLoadReads() {
    assertSameRows(load(fleet), spark.table("profile." + quoted(fleet)));
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW catalog_fleet AS SELECT * FROM profile." + quoted(fleet));
    try {
      assertSameRows(load(fleet), spark.table("catalog_fleet"));
    } finally {
      spark.sql("DROP VIEW IF EXISTS catalog_fleet");
    }
  }

  /** The offset the DCPI sample generator wrote into the file's reference. */
  private static String badOffset() throws Exception {
    Properties expected = new Properties();
    try (var in =
        Files.newBufferedReader(
            SampleData.DCPI_REFERENCE.resolve("bad-truncated-header.prof.expected"))) {
      expected.load(in);
    }
    return expected.getProperty("offset");
  }

  /** How a query gives a catalog table read options of its own. */
  enum QueryOptions {
    /** SQL: {@code SELECT * FROM profile.`path` WITH ('mode'='FAILFAST')}, Spark 4 SQL. */
    SQL_WITH,
    /**
     * The reader: {@code spark.read().option("mode", "FAILFAST").table("profile.`path`")}, the same
     * options on the same scan; Spark 3.5 has this one only.
     */
    READER_TABLE;

    /** Skips the test, visibly, where this Spark has no such route. */
    void assumeAvailable() {
      if (this == SQL_WITH) {
        TestSpark.assumeSpark4Sql("WITH (...) read options after a table name");
      }
    }

    Dataset<Row> select(String table, String key, String value) {
      if (this == SQL_WITH) {
        return spark.sql("SELECT * FROM " + table + " WITH ('" + key + "'='" + value + "')");
      }
      return spark.read().option(key, value).table(table);
    }
  }

  @ParameterizedTest(name = "{displayName} via {0}")
  @EnumSource(QueryOptions.class)
  void queryOptionsChangeTheMode(QueryOptions options) throws Exception {
    options.assumeAvailable();
    String table = "profile." + quoted(mixed);
    List<Row> errors =
        spark.sql("SELECT error FROM " + table + " WHERE kind = 'error'").collectAsList();
    assertEquals(1, errors.size(), "PERMISSIVE by default: the bad file is an error row");
    String error = errors.get(0).getString(0);
    assertTrue(error.contains("bad-truncated-header.prof"), error);
    assertTrue(error.contains("offset " + badOffset()), error);

    Dataset<Row> dropped = options.select(table, "mode", "DROPMALFORMED");
    assertEquals(0, dropped.where("kind = 'error'").count());
    assertSameRows(load(mixed.resolve("valid-small.prof")), dropped);

    Exception failed =
        assertThrows(
            Exception.class, () -> options.select(table, "mode", "FAILFAST").collectAsList());
    assertTrue(stackText(failed).contains("bad-truncated-header.prof"), stackText(failed));
  }

  @ParameterizedTest(name = "{displayName} via {0}")
  @EnumSource(QueryOptions.class)
  void catalogSettingsAreDefaultsThatQueryOptionsOverride(QueryOptions options) {
    options.assumeAvailable();
    String table = "profile_strict." + quoted(mixed);
    Exception failed =
        assertThrows(Exception.class, () -> spark.sql("SELECT * FROM " + table).collectAsList());
    assertTrue(stackText(failed).contains("bad-truncated-header.prof"), stackText(failed));

    assertEquals(1, options.select(table, "mode", "PERMISSIVE").where("kind = 'error'").count());
  }

  @ParameterizedTest(name = "{displayName} via {0}")
  @EnumSource(QueryOptions.class)
  void listingOptionsOfAQueryApply(QueryOptions options) {
    options.assumeAvailable();
    Dataset<Row> one =
        options
            .select("profile." + quoted(SampleData.GPERFTOOLS), "pathGlobFilter", "multi*")
            .select("path")
            .distinct();
    List<Row> paths = one.collectAsList();
    assertEquals(1, paths.size());
    assertTrue(paths.get(0).getString(0).endsWith("/multithreaded.prof"), paths.toString());
  }

  @ParameterizedTest(name = "{displayName} via {0}")
  @EnumSource(QueryOptions.class)
  void listingOptionsThatChangeColumnsAreRefused(QueryOptions options) {
    options.assumeAvailable();
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                options
                    .select("profile." + quoted(fleet), "recursiveFileLookup", "true")
                    .collectAsList());
    assertTrue(stackText(e).contains("change the columns"), stackText(e));
  }

  @Test
  void missingPathIsNamed() {
    Path missing = tmp.resolve("no-such-day");
    Exception e =
        assertThrows(Exception.class, () -> spark.sql("SELECT * FROM profile." + quoted(missing)));
    assertTrue(e.getMessage().contains(missing.toAbsolutePath().toString()), e.getMessage());
    assertFalse(e.getMessage().contains("UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY"), e.getMessage());
  }

  @Test
  void namespaceIsRefused() {
    Exception e =
        assertThrows(
            Exception.class,
            () -> spark.sql("SELECT * FROM profile.data." + quoted(SampleData.GPERFTOOLS)));
    assertTrue(e.getMessage().contains("namespace"), e.getMessage());
  }

  @Test
  void catalogIsReadOnly() {
    Exception e =
        assertThrows(Exception.class, () -> spark.sql("CREATE TABLE profile.`/tmp/new` (a INT)"));
    assertTrue(stackText(e).contains("read-only"), stackText(e));
    Exception drop =
        assertThrows(
            Exception.class,
            () -> spark.sql("DROP TABLE profile." + quoted(SampleData.GPERFTOOLS)));
    assertTrue(stackText(drop).contains("read-only"), stackText(drop));
    assertEquals(0, spark.sql("SHOW TABLES IN profile").count());
    assertEquals(0, spark.sql("SHOW NAMESPACES IN profile").count());
  }

  @Test
  void describeListsTheColumns() {
    List<String> described =
        spark.sql("DESCRIBE profile." + quoted(fleet)).collectAsList().stream()
            .map(r -> r.getString(0))
            .toList();
    for (String column : load(fleet).schema().fieldNames()) {
      assertTrue(described.contains(column), column + " not in " + described);
    }
  }

  @Test
  void useMakesSingleNamesPaths() {
    spark.sql("USE profile");
    try {
      assertSameRows(
          load(SampleData.GPERFTOOLS), spark.sql("SELECT * FROM " + quoted(SampleData.GPERFTOOLS)));
    } finally {
      spark.sql("USE spark_catalog");
    }
  }

  @Test
  void catalogNamesAreCaseSensitive() {
    assertThrows(
        Exception.class,
        () -> spark.sql("SELECT * FROM PROFILE." + quoted(SampleData.GPERFTOOLS)).count());
  }

  private static String stackText(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.append(c).append('\n');
    }
    return out.toString();
  }
}
