package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code stack_id} is a function of {@code frames} alone: equal frames give equal ids whatever the
 * load addresses, different frames different ids on every sample, and the ids are the documented
 * algorithm's (recomputed here from the {@code frames} Spark returns), so they are the same on
 * every host, run and version.
 */
class StackIdTest {
  private static SparkSession spark;

  @BeforeAll
  static void session() {
    spark = TestSpark.get();
  }

  private static Dataset<Row> read(String path) {
    return spark.read().format("profile").load(path);
  }

  @Test
  void equalFramesEqualIdsAndDifferentFramesDifferentIdsOnEverySample() {
    for (String path : List.of(SampleData.ROOT.toString(), SampleData.FLEET.toString())) {
      Dataset<Row> pairs = read(path).select("frames", "stack_id").distinct();
      long pairCount = pairs.count();
      assertTrue(pairCount > 100, path + ": " + pairCount);
      assertEquals(pairCount, pairs.select("frames").distinct().count(), path);
      assertEquals(pairCount, pairs.select("stack_id").distinct().count(), path);
    }
  }

  @Test
  void processesAtDifferentLoadAddressesGiveEqualIds() {
    // The demo fleet's hosts ran the same programs under ASLR: equal frames from different pcs.
    Dataset<Row> moved =
        read(SampleData.FLEET.toString())
            .where("format = 'gperftools' AND size(pcs) > 0")
            .groupBy("frames")
            .agg(
                org.apache.spark.sql.functions.countDistinct("pcs").as("addresses"),
                org.apache.spark.sql.functions.countDistinct("stack_id").as("ids"),
                org.apache.spark.sql.functions.countDistinct("host").as("hosts"))
            .where("addresses > 1");
    List<Row> rows = moved.collectAsList();
    assertTrue(rows.size() > 10, "stacks seen at several load addresses: " + rows.size());
    for (Row r : rows) {
      assertEquals(1L, r.getLong(2), "one id for frames at " + r.getLong(1) + " addresses");
    }
    assertTrue(rows.stream().anyMatch(r -> r.getLong(3) > 1), "across hosts too");
  }

  @Test
  void theIdsAreTheDocumentedAlgorithmsOfTheFrames() {
    List<Row> rows =
        read(SampleData.ROOT.toString())
            .unionByName(
                read(SampleData.FLEET.toString()).drop("date", "host", "program", "version"))
            .select("frames", "stack_id")
            .distinct()
            .collectAsList();
    for (Row r : rows) {
      assertEquals(documented(r.getList(0)), r.getLong(1), r.getList(0).toString());
    }
  }

  /** stack_id as the README defines it, from the frames' (module, offset) structs. */
  static long documented(List<Row> frames) {
    long h = 0x666C656574707266L;
    for (Row f : frames) {
      long module = f.isNullAt(0) ? 0x6E6F206D6F64756CL : fnvThenFmix(f.getString(0));
      h = step(step(h, module), f.getLong(1));
    }
    return fmix(step(h, frames.size()));
  }

  private static long fnvThenFmix(String path) {
    long h = 0xCBF29CE484222325L;
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    return fmix(h);
  }

  private static long step(long h, long v) {
    return (Long.rotateLeft(h, 27) ^ fmix(v + 0x9E3779B97F4A7C15L)) * 0xFF51AFD7ED558CCDL;
  }

  private static long fmix(long k) {
    k = (k ^ (k >>> 33)) * 0xFF51AFD7ED558CCDL;
    k = (k ^ (k >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return k ^ (k >>> 33);
  }
}
