package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Late binaries: an output aggregated without binaries, symbolized afterwards with {@code
 * jobs/symbolize}, equals the output of a run that had the binaries from the start (row for row,
 * both ways), for the dates named, and leaves other dates as they were.
 */
class SymbolizeOutputTest {
  @Test
  void lateSymbolizationEqualsSymbolizingInTheJob(@TempDir Path tmp) throws Exception {
    SparkSession spark = TestSpark.get();
    String bin = SampleData.GPERFTOOLS_BINARIES.toAbsolutePath().toString();
    for (String day : List.of("2026-11-20", "2026-11-21")) {
      Path dir = Files.createDirectories(tmp.resolve("in/date=" + day + "/host=h1"));
      Files.copy(SampleData.GPERFTOOLS.resolve("shared_library.prof"), dir.resolve("a.prof"));
      Files.copy(SampleData.GPERFTOOLS.resolve("deep_recursion.prof"), dir.resolve("b.prof"));
    }
    String in = tmp.resolve("in").toString();
    String late = tmp.resolve("late").toString();
    String direct = tmp.resolve("direct").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {"--input", in, "--output", late, "--no-module-paths"}));
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input", in, "--output", direct, "--binaries", bin, "--no-module-paths"
            }));
    assertEquals(
        0,
        FleetOutput.read(spark, late, "locations").where("lines IS NOT NULL").count(),
        "nothing is named without binaries");

    SymbolizeOutput.run(
        spark,
        SymbolizeOutput.Args.parse(
            new String[] {
              "--output", late, "--binaries", bin, "--no-module-paths", "--date", "2026-11-21"
            }));

    // The date's pointer now names the new run for what was rewritten, the job's run for the rest.
    org.apache.hadoop.fs.FileSystem fs =
        org.apache.hadoop.fs.FileSystem.getLocal(new org.apache.hadoop.conf.Configuration());
    FleetOutput.Pointer p =
        FleetOutput.pointer(fs, new org.apache.hadoop.fs.Path(late), "2026-11-21");
    String symbolized = p.datasets().get("locations");
    assertEquals(symbolized, p.datasets().get("functions"));
    for (String table : List.of("files", "stacks", "host_stacks", "modules")) {
      assertTrue(!symbolized.equals(p.datasets().get(table)), table + " is the job's run");
    }
    FleetOutput.Pointer other =
        FleetOutput.pointer(fs, new org.apache.hadoop.fs.Path(late), "2026-11-20");
    assertEquals(Set.of(other.run()), Set.copyOf(other.datasets().values()), "untouched date");

    for (String table : List.of("locations", "functions")) {
      Dataset<Row> got = FleetOutput.read(spark, late, table).where("date = '2026-11-21'");
      Dataset<Row> want =
          FleetOutput.read(spark, direct, table)
              .where("date = '2026-11-21'")
              .select(
                  got.columns()[0],
                  java.util.Arrays.copyOfRange(got.columns(), 1, got.columns().length));
      assertEquals(0, got.exceptAll(want).count(), table + ": nothing more than the direct run");
      assertEquals(0, want.exceptAll(got).count(), table + ": nothing less than the direct run");
      assertTrue(got.count() > 0, table);
    }
    assertEquals(
        0,
        FleetOutput.read(spark, late, "locations")
            .where("date = '2026-11-20' AND lines IS NOT NULL")
            .count(),
        "the other date is untouched");
    assertTrue(
        FleetOutput.read(spark, late, "functions")
                .where("date = '2026-11-21' AND function = 'work_checksum'")
                .count()
            > 0);
  }
}
