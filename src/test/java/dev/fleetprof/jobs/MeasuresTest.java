package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * What each built-in format's counts measure, as the formats describe them and {@link Measures}
 * turns that into SQL: one stack row per case, its measure, unit, value per count and count.
 */
class MeasuresTest {
  private final SparkSession spark = TestSpark.get();

  /** Stack rows: format, kind, period, period_unit, sample type and unit, samples, count. */
  private static final String ROWS =
      "SELECT format, kind, CAST(period AS BIGINT) AS period, period_unit,"
          + " CASE WHEN st IS NULL THEN NULL ELSE named_struct('type', st, 'unit', su) END"
          + " AS sample_type, CAST(samples AS DECIMAL(38,0)) AS samples,"
          + " CAST(n AS DECIMAL(38,0)) AS count, i FROM VALUES"
          + " (0, 'gperftools', 'sample', 10000, 'microseconds', NULL, NULL, NULL, 3),"
          + " (1, 'gprof', 'histogram', 10000, 'microseconds', NULL, NULL, NULL, 4),"
          + " (2, 'gprof', 'histogram', 3, 'hertz', NULL, NULL, NULL, 4),"
          + " (3, 'gprof', 'arc', NULL, NULL, NULL, NULL, NULL, 5),"
          + " (4, 'gprof', 'basic_block', NULL, NULL, NULL, NULL, NULL, 6),"
          + " (5, 'dcpi', 'sample', 65536, 'cycles', NULL, NULL, NULL, 7),"
          + " (6, 'dcpi', 'sample', NULL, '', NULL, NULL, NULL, 8),"
          + " (7, 'pprof', 'sample', NULL, NULL, 'cpu', 'nanoseconds', 2, 2000),"
          + " (8, 'pprof', 'sample', NULL, NULL, 'cpu', 'Milliseconds', NULL, 9),"
          + " (9, 'pprof', 'sample', NULL, NULL, 'alloc_space', 'bytes', NULL, 4096),"
          + " (10, 'gperftools', 'error', NULL, NULL, NULL, NULL, NULL, 0)"
          + " AS t(i, format, kind, period, period_unit, st, su, samples, n)";

  private List<String> measured(Map<String, Long> effective) {
    Dataset<Row> rows = Measures.withMeasure(spark.sql(ROWS), effective).orderBy("i");
    List<String> out = new ArrayList<>();
    for (Row r :
        rows.selectExpr("measure", "unit", "value_per_count", "count", "measured")
            .collectAsList()) {
      out.add(
          r.get(0)
              + " "
              + r.get(1)
              + " "
              + r.get(2)
              + " "
              + ((BigDecimal) r.get(3)).toPlainString()
              + " "
              + ((BigDecimal) r.get(4)).toPlainString());
    }
    return out;
  }

  @Test
  void eachFormatsCountsMeasureWhatItSays() {
    assertEquals(
        List.of(
            "cpu nanoseconds 10000000 3 3",
            "cpu nanoseconds 10000000 4 4",
            "cpu nanoseconds null 4 4",
            "calls count 1 5 5",
            "executions count 1 6 6",
            "cycles count 65536 7 7",
            "events count 1 8 8",
            "cpu nanoseconds 1 2 2000",
            "cpu nanoseconds 1000000 9 9",
            "alloc_space bytes 1 4096 4096",
            "null null null 0 0"),
        measured(Map.of()));
  }

  @Test
  void anEffectivePeriodReplacesTheRecordedOneOfItsFormatsCpuSamples() {
    List<String> out = measured(Measures.effectivePeriods(List.of("gperftools=4ms")));
    assertEquals("cpu nanoseconds 4000000 3 3", out.get(0));
    assertEquals("cpu nanoseconds 10000000 4 4", out.get(1));
    assertEquals("cycles count 65536 7 7", out.get(5));
  }
}
