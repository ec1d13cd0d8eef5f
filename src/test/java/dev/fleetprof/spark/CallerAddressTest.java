package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SameRows;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code gperftools.callerAddress=call}: every caller's frame of a gperftools record is the frame
 * of its return address (what the default read gives) with the offset one less, the leaf and every
 * other column unchanged, and {@code stack_id} the documented fingerprint of those frames. Other
 * formats are untouched. The same holds for splits of a profile and in pushed aggregations.
 */
class CallerAddressTest {
  private static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = TestSpark.get();
  }

  private static Dataset<Row> read(String path, String callerAddress, long splitBytes) {
    return spark
        .read()
        .format("profile")
        .option("gperftools.callerAddress", callerAddress)
        .option("maxPartitionBytes", splitBytes)
        .load(path);
  }

  @Test
  void callersAreOneBeforeTheirReturnAddressInGperftoolsRecordsOnly() {
    for (String path : List.of(SampleData.ROOT.toString(), SampleData.FLEET.toString())) {
      Dataset<Row> stored = read(path, "return", 128L << 20).alias("s");
      Dataset<Row> call = read(path, "call", 128L << 20).alias("c");
      List<Row> rows =
          stored
              .join(
                  call,
                  stored
                      .col("path")
                      .equalTo(call.col("path"))
                      .and(stored.col("record_offset").equalTo(call.col("record_offset")))
                      .and(stored.col("kind").equalTo(call.col("kind"))))
              .selectExpr(
                  "s.format",
                  "s.frames",
                  "c.frames",
                  "c.stack_id",
                  "s.pcs = c.pcs AND s.mapping <=> c.mapping AND s.count = c.count")
              .collectAsList();
      assertEquals(read(path, "return", 128L << 20).count(), rows.size(), path);
      long gperftools = 0;
      long callers = 0;
      for (Row r : rows) {
        List<Row> before = r.getList(1);
        List<Row> after = r.getList(2);
        List<Row> expected = new ArrayList<>(before);
        if (r.getString(0).equals("gperftools")) {
          gperftools++;
          for (int i = 1; i < before.size(); i++) {
            Row f = before.get(i);
            expected.set(i, RowFactory.create(f.get(0), f.getLong(1) - 1));
            callers++;
          }
        }
        assertEquals(expected, after, path + " " + before);
        assertEquals(StackIdTest.documented(after), r.getLong(3), path + " " + after);
        assertTrue(r.getBoolean(4), path + ": other columns changed");
      }
      assertTrue(gperftools > 100 && callers > 1000, path + ": " + gperftools + " " + callers);
    }
  }

  @Test
  void splitsAndPushedAggregationsGiveTheSameFrames() {
    String path = SampleData.GPERFTOOLS.toString();
    Dataset<Row> whole = read(path, "call", 128L << 20).select("path", "record_offset", "frames");
    for (long split : new long[] {2048, 8192, 65536}) {
      Dataset<Row> parts = read(path, "call", split).select("path", "record_offset", "frames");
      SameRows.assertSameRows(whole, parts, "split " + split);
    }
    for (long split : new long[] {2048, 128L << 20}) {
      Dataset<Row> pushed =
          read(path, "call", split).groupBy("frames", "stack_id").sum("count").toDF("f", "i", "n");
      Dataset<Row> plain =
          spark
              .read()
              .format("profile")
              .option("gperftools.callerAddress", "call")
              .option("aggregatePushdown", "false")
              .option("maxPartitionBytes", split)
              .load(path)
              .groupBy("frames", "stack_id")
              .sum("count")
              .toDF("f", "i", "n");
      assertTrue(AggregatePushdownTest.pushed(pushed), "pushed: " + pushed.queryExecution());
      SameRows.assertSameRows(plain, pushed, "split " + split);
    }
  }
}
