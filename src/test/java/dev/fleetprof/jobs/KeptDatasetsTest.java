package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.fleetprof.testing.TestSpark;
import java.lang.ref.WeakReference;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.Test;

/** What the fleet job's stages keep: computed once, and whole until the run lets go of it. */
class KeptDatasetsTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void aLargeRunPersistsUntilClosed() {
    KeptDatasets kept = new KeptDatasets();
    Dataset<Row> d = kept.keep(spark.range(0, 100, 1, 2).toDF());
    assertEquals(StorageLevel.MEMORY_AND_DISK(), d.storageLevel());
    kept.close();
    assertEquals(StorageLevel.NONE(), d.storageLevel());
  }

  /**
   * A small run's checkpoint is computed by the first job that reads it, while another job (the
   * writes run side by side) may be computing it too: the metrics that job's tasks report must
   * still have their accumulators on the driver when they finish (Spark holds accumulators by weak
   * reference; a lost one is an ERROR on the console). An accumulator of the checkpointed plan's
   * own stands for them here: held by nothing but that plan.
   */
  @Test
  void aCheckpointsPlanOutlivesTheFirstJobThatComputesIt() throws InterruptedException {
    try (KeptDatasets kept = new KeptDatasets()) {
      kept.checkpointFromHereOn(true);
      Counted counted = keptAndCounted(kept, 1000);
      assertEquals(1000, counted.rows().count());
      for (int i = 0; i < 3; i++) {
        System.gc();
        Thread.sleep(50);
      }
      LongAccumulator computed = counted.computed().get();
      assertNotNull(computed, "the checkpointed plan's accumulator was collected");
      // Computed once: the second query reads the checkpoint's blocks.
      assertEquals(1000, counted.rows().count());
      assertEquals(1000, computed.value());
    }
  }

  private record Counted(Dataset<Row> rows, WeakReference<LongAccumulator> computed) {}

  /** {@code n} rows, kept, counted as they are computed by an accumulator only the plan holds. */
  private Counted keptAndCounted(KeptDatasets kept, long n) {
    LongAccumulator computed = spark.sparkContext().longAccumulator("rows computed");
    Dataset<Row> rows =
        spark
            .range(0, n, 1, 2)
            .map(
                (MapFunction<Long, Long>)
                    id -> {
                      computed.add(1);
                      return id;
                    },
                Encoders.LONG())
            .toDF();
    return new Counted(kept.keep(rows), new WeakReference<>(computed));
  }
}
