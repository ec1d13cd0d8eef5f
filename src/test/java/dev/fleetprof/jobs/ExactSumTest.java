package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The job sums counts and values over BIGINTs only when no sum of them can leave one: the run's
 * totals (the read's measure rows) at most {@code Long.MAX_VALUE}, nothing negative. Either way a
 * sum is the exact one, as BigInteger arithmetic gives it.
 */
class ExactSumTest {
  private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  /** A measure row as {@code FleetStages.read} collects them. */
  private static Row measureRow(BigDecimal count, BigDecimal value, Long leastValuePerCount) {
    return RowFactory.create(
        java.sql.Date.valueOf("2026-11-20"),
        "cpu",
        "nanoseconds",
        count,
        value,
        1L,
        leastValuePerCount);
  }

  @Test
  void longsOnlyWhileTheTotalsFitOne() {
    BigDecimal half = MAX.divideToIntegralValue(BigDecimal.valueOf(2));
    BigDecimal rest = MAX.subtract(half);
    assertTrue(
        FleetStages.sumsFitLong(
            List.of(
                measureRow(half, BigDecimal.ONE, 1L),
                measureRow(rest, MAX.subtract(BigDecimal.ONE), 1L))),
        "counts and values that add up to Long.MAX_VALUE");
    assertFalse(
        FleetStages.sumsFitLong(
            List.of(
                measureRow(half, null, null), measureRow(rest.add(BigDecimal.ONE), null, null))),
        "counts one past Long.MAX_VALUE");
    assertFalse(
        FleetStages.sumsFitLong(
            List.of(
                measureRow(BigDecimal.ONE, MAX, 1L),
                measureRow(BigDecimal.ONE, BigDecimal.ONE, 1L))),
        "values one past Long.MAX_VALUE");
    assertFalse(
        FleetStages.sumsFitLong(List.of(measureRow(BigDecimal.TEN, BigDecimal.ONE, -1L))),
        "a negative value_per_count: a part could exceed the total");
    assertTrue(
        FleetStages.sumsFitLong(List.of(measureRow(null, null, null))),
        "the rows of problems only");
  }

  @Test
  void bothWaysGiveTheExactSum() {
    SparkSession spark = TestSpark.get();
    StructType schema =
        new StructType()
            .add("k", DataTypes.IntegerType)
            .add("count", DataTypes.createDecimalType(38, 0));
    List<Row> rows = new ArrayList<>();
    BigInteger[] sums = new BigInteger[3];
    java.util.Arrays.fill(sums, BigInteger.ZERO);
    java.util.Random random = new java.util.Random(29);
    for (int i = 0; i < 3000; i++) {
      int k = i % 3;
      // Up to 2^50 each: 3,000 of them stay far below Long.MAX_VALUE in every group.
      BigInteger c = BigInteger.valueOf(random.nextLong() >>> 14);
      rows.add(RowFactory.create(k, new BigDecimal(c)));
      sums[k] = sums[k].add(c);
    }
    Dataset<Row> d = spark.createDataFrame(rows, schema).repartition(4);
    for (boolean overLongs : new boolean[] {false, true}) {
      List<Row> out =
          d.groupBy("k")
              .agg(FleetStages.exactSum(d.col("count"), overLongs).as("s"))
              .orderBy("k")
              .collectAsList();
      for (Row r : out) {
        assertEquals(
            new BigDecimal(sums[r.getInt(0)]),
            r.getDecimal(1),
            "group " + r.getInt(0) + ", longs " + overLongs);
      }
      assertEquals(
          DataTypes.createDecimalType(38, 0),
          d.groupBy("k")
              .agg(FleetStages.exactSum(d.col("count"), overLongs))
              .schema()
              .fields()[1]
              .dataType());
    }
  }
}
