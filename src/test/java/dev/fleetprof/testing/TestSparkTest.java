package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.junit.jupiter.api.Test;

/**
 * The tests' session interprets Spark's expressions, as the launcher's small runs do, and a class
 * that asks for generated code gets it, then the session's setting again.
 */
class TestSparkTest {
  /** Whether the plan of a small aggregation, run, has whole-stage generated code in it. */
  private static boolean wholeStage() {
    Dataset<Row> q = TestSpark.get().range(0, 1000).selectExpr("id % 7 AS k").groupBy("k").count();
    q.collectAsList();
    return TestSpark.nodes(TestSpark.finalPlan(q)).stream()
        .anyMatch(p -> p instanceof WholeStageCodegenExec);
  }

  @Test
  void interpretedUnlessAClassAsksForGeneratedCode() {
    assertFalse(wholeStage(), "the session's default");
    TestSpark.generatedCode(true);
    try {
      assertTrue(wholeStage(), "asked for");
    } finally {
      TestSpark.generatedCode(false);
    }
    assertFalse(wholeStage(), "after");
  }
}
