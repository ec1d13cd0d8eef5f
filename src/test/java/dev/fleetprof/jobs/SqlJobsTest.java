package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL jobs in jobs/*.sql, run as jobs/sql runs them, on the fleet job's output for two days of
 * the sample data: each works, and what it reports agrees with the tables.
 */
class SqlJobsTest {
  private static SparkSession spark;
  @TempDir static Path tmp;
  private static String out;

  @BeforeAll
  static void aggregateTwoDays() throws Exception {
    spark = TestSpark.get();
    Path in = tmp.resolve("in");
    for (String day : List.of("2026-11-20", "2026-11-21")) {
      for (String host : List.of("web041", "web042")) {
        Path dir = in.resolve("date=" + day).resolve("host=" + host);
        Files.createDirectories(dir);
        Files.copy(SampleData.GPERFTOOLS.resolve("multithreaded.prof"), dir.resolve("a.prof"));
      }
    }
    // The second day also ran a different program on one host: its stacks "grew" from nothing.
    Files.copy(SampleData.GPERFTOOLS.resolve("deep_recursion.prof"),
        in.resolve("date=2026-11-21/host=web042/b.prof"));
    out = tmp.resolve("fleet").toString();
    FleetAggregate.run(spark, FleetAggregate.Args.parse(
        new String[] {"--input", in.toString(), "--output", out}));
  }

  private static Dataset<Row> runFile(String name, String... defines) throws Exception {
    Map<String, String> vars = new HashMap<>();
    vars.put("output", out);
    vars.put("limit", "1000");
    for (int i = 0; i < defines.length; i += 2) {
      vars.put(defines[i], defines[i + 1]);
    }
    Dataset<Row> last = null;
    for (String sql : SqlRunner.split(Files.readString(Path.of("jobs", name)))) {
      last = spark.sql(SqlRunner.substitute(sql, vars));
    }
    return last;
  }

  private static BigDecimal dayTotal(String table, String column, String day) {
    return spark.read().parquet(out + "/" + table).where("date = '" + day + "'")
        .selectExpr("sum(" + column + ")").first().getDecimal(0);
  }

  @Test
  void topStacksDefaultsToTheLatestDay() throws Exception {
    List<Row> rows = runFile("top-stacks.sql").collectAsList();
    assertFalse(rows.isEmpty());
    assertTrue(rows.stream().allMatch(r -> r.getDate(0).toString().equals("2026-11-21")));
    BigDecimal sum = rows.stream().map(r -> (BigDecimal) r.getAs("count"))
        .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(dayTotal("stacks", "count", "2026-11-21"), sum, "limit 1000 lists them all");
    assertEquals(1, runFile("top-stacks.sql", "date", "2026-11-20", "limit", "1").count());
  }

  @Test
  void topModulesAndLocationsAddUpToTheDay() throws Exception {
    BigDecimal day = dayTotal("stacks", "count", "2026-11-20");
    BigDecimal modules = runFile("top-modules.sql", "date", "2026-11-20").collectAsList().stream()
        .map(r -> (BigDecimal) r.getAs("self_count")).reduce(BigDecimal.ZERO, BigDecimal::add);
    assertEquals(day, modules);
    BigDecimal locations = runFile("top-locations.sql", "date", "2026-11-20").collectAsList()
        .stream().map(r -> (BigDecimal) r.getAs("self_count"))
        .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertTrue(locations.compareTo(day) <= 0 && locations.signum() > 0);
  }

  @Test
  void byHostSharesAddUpToTheFleet() throws Exception {
    List<Row> rows = runFile("by-host.sql", "date", "2026-11-21").collectAsList();
    assertEquals(2, rows.size());
    double pct = rows.stream().mapToDouble(r -> ((BigDecimal) r.getAs("pct_of_fleet"))
        .doubleValue()).sum();
    assertEquals(100.0, pct, 0.02);
    assertEquals("web042", rows.get(0).getAs("host"), "the host with two programs leads");
  }

  @Test
  void diffShowsWhatGrewAndIsNormalised() throws Exception {
    List<Row> rows = runFile("diff-dates.sql").collectAsList();
    assertEquals("2026-11-20", rows.get(0).getAs("base").toString());
    double delta = rows.stream().mapToDouble(r -> ((BigDecimal) r.getAs("delta_pct"))
        .doubleValue()).sum();
    // Each delta is rounded to 0.001 points.
    assertEquals(0.0, delta, 0.0005 * rows.size() + 1e-9,
        "shares move between stacks, they add up to 100 on both days");
    assertTrue(rows.stream().anyMatch(r -> r.getAs("change").equals("grew")
        && ((BigDecimal) r.getAs("base_count")).signum() == 0), "a new program's stacks grew");
    assertTrue(rows.stream().anyMatch(r -> r.getAs("change").equals("shrank")));
  }

  @Test
  void variablesAreSubstitutedOrRefused() {
    assertEquals("SELECT 'x', 'd'", SqlRunner.substitute("SELECT '${a}', '${b:-d}'",
        Map.of("a", "x")));
    Exception e = assertThrows(IllegalArgumentException.class,
        () -> SqlRunner.substitute("SELECT ${nothing}", Map.of()));
    assertTrue(e.getMessage().contains("-d nothing="));
  }
}
