package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-host and per-date levels group by a 64-bit key of the frames: every dataset is the same
 * as when the keys collide everywhere (two bits of key), which makes the job group by the frames
 * themselves, so a collision can never merge two stacks.
 */
class FleetAggregateStackKeyTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void everyDatasetIsTheSameWhenTheKeysCollideOnEveryFormat(@TempDir Path tmp) throws Exception {
    for (Path input : List.of(SampleData.FLEET, SampleData.ROOT)) {
      String keyed = tmp.resolve(input.getFileName() + "-keyed").toString();
      String colliding = tmp.resolve(input.getFileName() + "-colliding").toString();
      int before = FleetAggregate.GROUPED_BY_FRAMES.get();
      run(input, keyed);
      assertEquals(before, FleetAggregate.GROUPED_BY_FRAMES.get(), input + ": keys collided");
      FleetAggregate.stackKeyMask = 3;
      try {
        run(input, colliding);
      } finally {
        FleetAggregate.stackKeyMask = -1L;
      }
      assertEquals(before + 1, FleetAggregate.GROUPED_BY_FRAMES.get(), input + ": no collision");
      for (String dataset : FleetAggregate.DATASETS) {
        Dataset<Row> a = FleetOutput.read(spark, keyed, dataset);
        Dataset<Row> b = FleetOutput.read(spark, colliding, dataset);
        long rows = a.count();
        assertTrue(rows > 0, input + " " + dataset);
        assertEquals(rows, b.count(), input + " " + dataset);
        assertEquals(0, a.exceptAll(b).count(), input + " " + dataset);
        assertEquals(0, b.exceptAll(a).count(), input + " " + dataset);
      }
    }
  }

  private void run(Path input, String output) throws Exception {
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(new String[] {"--input", input.toString(), "--output", output}));
  }
}
