package dev.fleetprof.jobs;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;

/**
 * What the fleet job's stages keep for the several queries that read it, each computed once, at the
 * first of them, and kept until {@link #close}.
 *
 * <p>A large run persists it: Spark keeps it as compressed column batches, the least memory (the
 * 100,000-profile run spills them in a 2 GiB heap as it is). But a persisted dataset keeps its
 * whole plan, and Spark's analyzer walks every node of it again at each DataFrame step of a later
 * stage (and a join renews every relation below it): a small run's driver spent much of its time
 * analyzing the read again and again. A small run ({@code FleetStages.read} decides) keeps a local
 * checkpoint instead: its rows kept as blocks on the executors, behind a plan of one leaf.
 */
final class KeptDatasets implements AutoCloseable {
  private final List<Dataset<Row>> persisted = new ArrayList<>();

  /**
   * The datasets kept as checkpoints, as they were before: the plans their checkpoints compute. The
   * first job to compute a lazy checkpoint drops the checkpoint's lineage, and with it the only
   * strong references to that plan's SQL metrics (Spark holds accumulators by weak reference). A
   * job running beside it (the writes run concurrently) that computes the same checkpoint then
   * reports its tasks' metrics to accumulators a collection may have removed, and Spark logs
   * "attempted to access non-existent accumulator" at ERROR for each of them.
   */
  private final List<Dataset<Row>> checkpointed = new ArrayList<>();

  private boolean checkpointing;

  /** Whether what is kept from here on is checkpointed rather than persisted. */
  void checkpointFromHereOn(boolean checkpointing) {
    this.checkpointing = checkpointing;
  }

  /** {@code d}, kept: persisted or checkpointed, computed by the first query that reads it. */
  Dataset<Row> keep(Dataset<Row> d) {
    if (!checkpointing) {
      Dataset<Row> kept = d.persist(StorageLevel.MEMORY_AND_DISK());
      persisted.add(kept);
      return kept;
    }
    // Not unpersisted by close(): Spark warns that a local checkpoint cannot be recomputed once
    // unpersisted, and a small run's blocks are small. Spark's context cleaner removes them once
    // the run's datasets are garbage, as it does for any RDD.
    checkpointed.add(d);
    return d.localCheckpoint(false);
  }

  /** Unpersists everything persisted and lets go of the checkpoints' plans. */
  @Override
  public void close() {
    for (Dataset<Row> d : persisted) {
      d.unpersist();
    }
    persisted.clear();
    checkpointed.clear();
  }
}
