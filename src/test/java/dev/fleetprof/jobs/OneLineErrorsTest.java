package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one line a failed command prints names what failed: a query over an output with a corrupt
 * Parquet part file (another date's, say) gets Spark's FAILED_TO_CREATE_PLAN_FOR_DIRECT_QUERY,
 * which names no file; the line names the part file.
 */
class OneLineErrorsTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void aCorruptPartFileIsNamedInTheFirstLine(@TempDir Path tmp) throws Exception {
    Path dataset = tmp.resolve("stacks");
    spark
        .range(100)
        .selectExpr("id", "CAST(DATE '2026-11-19' + CAST(id % 2 AS INT) AS DATE) AS date")
        .coalesce(1) // one part file per date
        .write()
        .partitionBy("date")
        .parquet(dataset.toString());
    // Every part file corrupt (one per date): whichever Spark reads first to infer the schema
    // fails the query's planning, as a corrupt file of the earliest date did the jobs'.
    List<Path> parts;
    try (Stream<Path> s = Files.walk(dataset)) {
      parts = s.filter(p -> p.getFileName().toString().endsWith(".parquet")).toList();
    }
    assertEquals(2, parts.size(), "" + parts);
    for (Path part : parts) {
      Files.write(part, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
      Files.deleteIfExists(part.resolveSibling("." + part.getFileName() + ".crc"));
    }

    Exception e =
        assertThrows(
            Exception.class,
            () -> spark.sql("SELECT count(*) FROM parquet.`" + dataset + "`").collectAsList());
    String line = CommandLines.oneLine(e);
    String named =
        parts.stream()
            .map(p -> p.getFileName().toString())
            .filter(line::contains)
            .findFirst()
            .orElse(null);
    assertTrue(named != null, line);
    assertEquals(1, line.lines().count(), line);
    assertTrue(line.startsWith("[FAILED_READ_FILE"), line);
    assertTrue(
        List.of(e.getMessage().split("\\R")).stream().noneMatch(l -> l.contains(named)),
        "Spark's own message does not name it (else this test proves nothing): " + e.getMessage());
  }
}
