package dev.fleetprof.jobs;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The temporary views {@code jobs/sql} shows the fleet job's output as: {@code fleet_functions} for
 * {@code functions/}, ... (one per dataset of {@link FleetAggregate#DATASETS}).
 */
final class FleetViews {
  /** The prefix of the views over the fleet job's datasets: {@code fleet_functions}, ... */
  static final String VIEW_PREFIX = "fleet_";

  private FleetViews() {}

  /**
   * Registers one temporary view per dataset of the fleet job's output that the statements name
   * ({@code fleet_functions} for {@code functions/}, ...): each date as its pointer publishes it,
   * one run per date, read after the pointer, so a query never sees a date half replaced or twice
   * while a re-run of it publishes (see {@link FleetOutput}). The views hold the listing made here:
   * every statement of the script sees the same runs.
   */
  static void register(SparkSession spark, List<String> statements, String output)
      throws IOException {
    String all = String.join("\n", statements).toLowerCase(Locale.ROOT);
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
    FleetOutput.Published published = null; // the pointers, read once for every view
    for (String dataset : FleetAggregate.DATASETS) {
      String view = VIEW_PREFIX + dataset;
      if (!Pattern.compile("\\b" + view + "\\b").matcher(all).find()) {
        continue;
      }
      if (!fs.exists(new Path(out, dataset))) {
        throw new IllegalArgumentException(
            view
                + ": no "
                + dataset
                + "/ under "
                + output
                + ": run jobs/fleet-aggregate --output "
                + output
                + " first, or pass -d output=DIR");
      }
      if (published == null) {
        published = FleetOutput.published(spark, output);
      }
      published.read(dataset).createOrReplaceTempView(view);
    }
  }
}
