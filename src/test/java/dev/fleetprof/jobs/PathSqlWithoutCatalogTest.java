package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * jobs/sql on a session without the profile catalog: Spark refuses {@code profile.`path`} (its
 * error names no way out) and the runner says which setting, or which statement, reads the path.
 * Spark 3.5 and 4 refuse it alike, and the runner recognises both.
 */
class PathSqlWithoutCatalogTest {
  @Test
  void profilePathSaysWhatToSet() {
    // A session of its own, without the catalog: a session that has once resolved the catalog
    // keeps it whatever its settings say later.
    SparkSession session = TestSpark.get().newSession();
    session.conf().unset("spark.sql.catalog.profile");
    String path = SampleData.GPERFTOOLS.toAbsolutePath().toString();
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                SqlRunner.run(
                    session,
                    SqlRunner.parse(
                        new String[] {"-e", "SELECT count(*) FROM profile.`" + path + "`"}),
                    sink,
                    sink));
    assertTrue(
        e.getMessage().contains("spark.sql.catalog.profile=dev.fleetprof.spark.ProfileCatalog"),
        e.getMessage());
    assertTrue(e.getMessage().contains("jobs/sql --view v=" + path), e.getMessage());
    assertInstanceOf(AnalysisException.class, e.getCause(), "Spark's own refusal, kept as cause");
  }
}
