package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.fleetprof.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * A script's temporary views keep the plan they were made with ({@link SqlRunner#ANALYZED_VIEWS}),
 * unless the session says otherwise, and the session gets its setting back after the script.
 */
class SqlRunnerViewsTest {
  private final SparkSession spark = TestSpark.get();

  /**
   * A view over a view, then the inner view made again: a view kept as its plan still reads what
   * the inner view was; a view kept as its text reads it anew.
   */
  private static final String SCRIPT =
      "CREATE OR REPLACE TEMPORARY VIEW views_inner AS SELECT 1 AS x;"
          + " CREATE OR REPLACE TEMPORARY VIEW views_outer AS SELECT x FROM views_inner;"
          + " CREATE OR REPLACE TEMPORARY VIEW views_inner AS SELECT 2 AS x;"
          + " SELECT x FROM views_outer";

  private String run(String... argv) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream log = new PrintStream(new ByteArrayOutputStream(), true)) {
      SqlRunner.run(spark, SqlRunner.parse(argv), o, log);
    }
    return out.toString(StandardCharsets.UTF_8).strip();
  }

  @Test
  void aScriptsViewsKeepTheirPlanAndTheSessionItsSetting() throws Exception {
    assertFalse(spark.conf().contains(SqlRunner.ANALYZED_VIEWS), "a session of its own");
    assertEquals("{\"x\":1}", run("--format", "json", "-e", SCRIPT));
    assertFalse(spark.conf().contains(SqlRunner.ANALYZED_VIEWS), "the setting is put back");
  }

  @Test
  void theSessionsOwnSettingWins() throws Exception {
    spark.conf().set(SqlRunner.ANALYZED_VIEWS, "false");
    try {
      assertEquals("{\"x\":2}", run("--format", "json", "-e", SCRIPT));
      assertEquals("false", spark.conf().get(SqlRunner.ANALYZED_VIEWS));
    } finally {
      spark.conf().unset(SqlRunner.ANALYZED_VIEWS);
    }
  }
}
