package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fleetprof.testing.DeltaKernelReader;
import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The output's datasets as Delta tables (docs/open-tables.md), read by Delta Kernel, a reader that
 * is neither Spark nor fleetprof: each table holds exactly the runs the job's own readers read, one
 * per date; a re-run with no rows for a date empties it; an output written before the tables
 * becomes tables at its next run, with every date it had published.
 */
class FleetOutputTablesTest {
  private static final String DAY = "2026-11-20";
  private static final String NEXT_DAY = "2026-11-21";
  private static final Path SAMPLE = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
  private final SparkSession spark = TestSpark.get();
  private final DeltaKernelReader kernel = new DeltaKernelReader();

  private void run(String in, String out, String... more) throws Exception {
    List<String> argv = new ArrayList<>(List.of("--input", in, "--output", out));
    argv.addAll(List.of(more));
    FleetAggregate.run(spark, FleetAggregate.Args.parse(argv.toArray(new String[0])));
  }

  /** A table's rows per date and run, as Delta Kernel reads its latest version. */
  private Map<String, Long> rowsInTable(String out, String dataset) {
    Map<String, Long> counts = new TreeMap<>();
    for (Map<String, Object> row :
        kernel.latest(out + "/" + dataset, List.of("date", "run")).rows()) {
      counts.merge(row.get("date") + " " + row.get("run"), 1L, Long::sum);
    }
    return counts;
  }

  /** The rows per date and run the job's own reader reads (through the dates' pointers). */
  private Map<String, Long> rowsPublished(String out, String dataset) throws Exception {
    FleetOutput.Published published = FleetOutput.published(spark, out);
    FileSystem fs = FileSystem.getLocal(spark.sparkContext().hadoopConfiguration());
    Map<String, Long> counts = new TreeMap<>();
    for (Row r : published.read(dataset).groupBy("date").count().collectAsList()) {
      String date = r.get(0).toString();
      FleetOutput.Pointer pointer =
          FleetOutput.pointer(fs, new org.apache.hadoop.fs.Path(out), date);
      counts.put(date + " " + pointer.datasets().get(dataset), r.getLong(1));
    }
    return counts;
  }

  private void assertTablesHoldThePublishedRuns(String out) throws Exception {
    for (String dataset : FleetAggregate.DATASETS) {
      Map<String, Long> published = rowsPublished(out, dataset);
      assertFalse(published.isEmpty(), dataset);
      assertEquals(published, rowsInTable(out, dataset), dataset + ": the table's runs and rows");
    }
  }

  @Test
  void anOutputWrittenBeforeTheTablesBecomesTablesWithEveryPublishedDate(@TempDir Path tmp)
      throws Exception {
    String out = tmp.resolve("out").toString();
    FleetFixture first = new FleetFixture(tmp.resolve("first"));
    first.copy(DAY, "web1", SAMPLE, "a.prof").copy(NEXT_DAY, "web1", SAMPLE, "a.prof");
    run(first.toString(), out);
    // The layout before the tables is this one without the logs.
    for (String dataset : FleetAggregate.DATASETS) {
      deleteTree(Path.of(out, dataset, DeltaTables.LOG_DIRECTORY));
    }

    FleetFixture second = new FleetFixture(tmp.resolve("second"));
    second.copy(NEXT_DAY, "web1", SAMPLE, "a.prof").copy(NEXT_DAY, "web2", SAMPLE, "b.prof");
    run(second.toString(), out, "--date", NEXT_DAY);

    assertTablesHoldThePublishedRuns(out);
    Map<String, Long> stacks = rowsInTable(out, "stacks");
    assertTrue(
        stacks.keySet().stream().anyMatch(k -> k.startsWith(DAY + " ")),
        "the date only the first run wrote is in the table: " + stacks);
    JsonNode record =
        new ObjectMapper().readTree(Path.of(out, "_runs", "date=" + NEXT_DAY).toFile());
    assertEquals(
        kernel.latest(out + "/stacks", List.of("date")).version(),
        record.path("versions").path("stacks").asLong(-1),
        "the run record names the table's version that holds the run: " + record);
  }

  @Test
  void aReRunWithNoRowsForADatasetEmptiesTheDateInItsTable(@TempDir Path tmp) throws Exception {
    String out = tmp.resolve("out").toString();
    FleetFixture before = new FleetFixture(tmp.resolve("before"));
    before.copy(DAY, "web1", SAMPLE, "a.prof").copy(DAY, "web2", SAMPLE, "b.prof");
    run(before.toString(), out);
    assertTablesHoldThePublishedRuns(out);

    // The re-run finds one file, not a profile: a row in files, none in the other datasets.
    FleetFixture after = new FleetFixture(tmp.resolve("after"));
    after.write(DAY, "web1", "a.prof", "not a profile\n".getBytes());
    run(after.toString(), out);

    assertEquals(1, rowsInTable(out, "files").values().stream().mapToLong(Long::longValue).sum());
    for (String dataset : List.of("stacks", "host_stacks", "locations", "functions", "modules")) {
      assertEquals(Map.of(), rowsInTable(out, dataset), dataset + ": the date is emptied");
      IllegalArgumentException none =
          assertThrows(
              IllegalArgumentException.class,
              () -> FleetOutput.published(spark, out).read(dataset),
              dataset + ": the job's own reader agrees");
      assertTrue(none.getMessage().startsWith("no published rows"), none.getMessage());
    }
  }

  private static void deleteTree(Path dir) throws Exception {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
