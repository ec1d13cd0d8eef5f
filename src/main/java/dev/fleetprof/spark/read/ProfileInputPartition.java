package dev.fleetprof.spark.read;

import dev.fleetprof.split.SplitPlanner.Slice;
import java.util.List;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * The slices one task reads. Kept small (paths and offsets only): heavy per-file state, such as the
 * mappings of split files, travels in a broadcast.
 */
public final class ProfileInputPartition implements InputPartition {
  private static final long serialVersionUID = 1L;
  private final String[] paths;
  private final long[] starts;
  private final long[] ends;
  private final long[] lengths;
  private final long[] modified;

  /** Per slice, what its file is when it is not a regular file (not to be opened), else null. */
  private final String[] notRegular;

  private final String[] hosts;

  /** Per slice, the file's partition values (Spark's internal values; null when no columns). */
  private final Object[][] partitionValues;

  public ProfileInputPartition(
      List<Slice> slices,
      Object[][] partitionValues,
      long[] modified,
      String[] notRegular,
      String[] hosts) {
    this.partitionValues = partitionValues;
    this.modified = modified;
    this.notRegular = notRegular;
    int n = slices.size();
    this.paths = new String[n];
    this.starts = new long[n];
    this.ends = new long[n];
    this.lengths = new long[n];
    for (int i = 0; i < n; i++) {
      Slice s = slices.get(i);
      paths[i] = s.path();
      starts[i] = s.start();
      ends[i] = s.end();
      lengths[i] = s.fileLength();
    }
    this.hosts = hosts;
  }

  int size() {
    return paths.length;
  }

  Slice slice(int i) {
    return new Slice(paths[i], starts[i], ends[i], lengths[i]);
  }

  /** Slice {@code i}'s file's modification time, in milliseconds since the epoch. */
  long modified(int i) {
    return modified[i];
  }

  /** What slice {@code i}'s file is when it is not a regular file ({@code "a FIFO"}), else null. */
  String notRegular(int i) {
    return notRegular[i];
  }

  Object[] partitionValues(int i) {
    return partitionValues[i];
  }

  @Override
  public String[] preferredLocations() {
    return hosts;
  }
}
