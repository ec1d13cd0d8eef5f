package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** {@link SameRows} fails where EXCEPT ALL both ways would: a row missing, extra or repeated. */
class SameRowsTest {
  private final SparkSession spark = TestSpark.get();

  private Dataset<Row> rows(List<String> values) {
    return spark
        .createDataset(values, Encoders.STRING())
        .toDF("v")
        .selectExpr("v", "array(v) AS a");
  }

  @Test
  void equalMultisetsPassAndEveryDifferenceFails() {
    SameRows.assertSameRows(rows(List.of("a", "b", "b")), rows(List.of("b", "a", "b")), "same");
    for (List<String> other :
        List.of(List.of("a", "b"), List.of("a", "b", "b", "c"), List.of("a", "a", "b"))) {
      assertThrows(
          AssertionError.class,
          () -> SameRows.assertSameRows(rows(List.of("a", "b", "b")), rows(other), "differ"),
          other.toString());
    }
  }
}
