package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read options behave as in Spark's own file sources (checked against the {@code binaryFile} source
 * on the same trees), resolve once with clear errors, and the scan plays its part in Spark's plans:
 * {@code input_file_name()}, and equal scans reused.
 */
class ReadOptionsTest {
  private final SparkSession spark = TestSpark.get();

  @TempDir Path dir;

  /** Two hosts of one day, two profiles each. */
  private Path fleet() throws Exception {
    List<Path> profiles = SampleData.gperftoolsProfiles();
    for (String host : List.of("a", "b")) {
      Path d = Files.createDirectories(dir.resolve("date=2026-11-20").resolve("host=" + host));
      for (Path p : profiles.subList(0, 2)) {
        Files.copy(p, d.resolve(p.getFileName()));
      }
    }
    return dir;
  }

  private static List<String> partitionColumns(Dataset<Row> df, List<String> own) {
    return Arrays.stream(df.columns()).filter(c -> !own.contains(c)).toList();
  }

  @Test
  void recursiveFileLookupTurnsOffPartitionColumnsAsInSparksFileSources() throws Exception {
    Path root = fleet();
    List<String> binaryOwn = List.of("path", "modificationTime", "length", "content");
    List<String> profileOwn = List.of(ProfileSchema.SCHEMA.fieldNames());
    for (String recursive : List.of("false", "true")) {
      Dataset<Row> binary =
          spark
              .read()
              .format("binaryFile")
              .option("recursiveFileLookup", recursive)
              .load(root.toString());
      Dataset<Row> profile =
          spark
              .read()
              .format("profile")
              .option("recursiveFileLookup", recursive)
              .load(root.toString());
      assertEquals(
          partitionColumns(binary, binaryOwn),
          partitionColumns(profile, profileOwn),
          "partition columns with recursiveFileLookup=" + recursive);
      assertEquals(
          binary.select("path").distinct().count(),
          profile.select("path").distinct().count(),
          "files read");
    }
    assertEquals(
        List.of("date", "host"),
        partitionColumns(spark.read().format("profile").load(root.toString()), profileOwn),
        "the default infers them");
  }

  @Test
  void badOptionValuesFailWhenTheReadIsDefinedNamingTheOption() throws Exception {
    Path root = fleet();
    for (String[] kv :
        new String[][] {
          {"recursiveFileLookup", "maybe"},
          {"dcpi.offsetUnit", "bogus"},
          {"gperftools.callerAddress", "caller"},
          {"gmon.pointerSize", "3"},
          {"mode", "lenient"},
          {"format", "perf"},
          {"maxPartitionBytes", "lots"}
        }) {
      Exception e =
          assertThrows(
              Exception.class,
              () ->
                  spark
                      .read()
                      .format("profile")
                      .option(kv[0], kv[1])
                      .load(root.toString())
                      .schema());
      String message = String.valueOf(e.getMessage());
      assertTrue(message.contains(kv[1]), kv[0] + ": " + message);
    }
  }

  @Test
  void inputFileNameIsTheFileOfEachRow() throws Exception {
    Path root = fleet();
    // One partition holds every file, so a reader that forgot to move on would be caught.
    Dataset<Row> df =
        spark
            .read()
            .format("profile")
            .option("maxPartitionBytes", "64m")
            .load(root.toString())
            .select(functions.col("path"), functions.input_file_name().as("input"));
    List<Row> rows = df.collectAsList();
    assertTrue(rows.size() > 4, "records read");
    for (Row r : rows) {
      assertEquals(r.getString(0), r.getString(1));
    }
    assertEquals(4, df.select("input").distinct().count());
  }

  @Test
  void equalScansAreReusedInOnePlan() throws Exception {
    Path root = fleet();
    Dataset<Row> byHost =
        spark
            .read()
            .format("profile")
            .load(root.toString())
            .groupBy("host")
            .agg(functions.sum("count").as("samples"));
    Dataset<Row> twice =
        byHost.union(
            spark
                .read()
                .format("profile")
                .load(root.toString())
                .groupBy("host")
                .agg(functions.sum("count").as("samples")));
    List<Row> rows = twice.collectAsList();
    assertEquals(4, rows.size());
    String plan = twice.queryExecution().executedPlan().toString();
    assertTrue(plan.contains("ReusedExchange"), "the second scan reuses the first:\n" + plan);
  }

  @Test
  void metadataColumnIsSparksFileMetadata() throws Exception {
    Path root = fleet();
    List<String> fields =
        List.of(
            "file_path",
            "file_name",
            "file_size",
            "file_block_start",
            "file_block_length",
            "file_modification_time");
    Dataset<Row> profile = spark.read().format("profile").load(root.toString());
    assertTrue(!Arrays.asList(profile.columns()).contains("_metadata"), "hidden from SELECT *");
    List<Row> ours = profile.select("_metadata.*").distinct().orderBy("file_path").collectAsList();
    List<Row> sparks =
        spark
            .read()
            .format("binaryFile")
            .load(root.toString())
            .select("_metadata.*")
            .select(fields.stream().map(functions::col).toArray(org.apache.spark.sql.Column[]::new))
            .orderBy("file_path")
            .collectAsList();
    assertEquals(4, ours.size());
    assertEquals(sparks, ours);
    // Every row carries its own file's values, also with path and partition columns beside them.
    for (Row r :
        profile
            .select(
                functions.col("path"), functions.col("_metadata.file_name"), functions.col("host"))
            .distinct()
            .collectAsList()) {
      assertTrue(
          r.getString(0).endsWith("/host=" + r.getString(2) + "/" + r.getString(1)), r.toString());
    }
  }
}
