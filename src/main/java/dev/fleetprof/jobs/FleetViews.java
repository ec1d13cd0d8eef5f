package dev.fleetprof.jobs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The temporary views {@code jobs/sql} shows the fleet job's output as: {@code fleet_functions} for
 * {@code functions/}, ... (one per dataset of {@link FleetAggregate#DATASETS}).
 */
final class FleetViews {
  /** The prefix of the views over the fleet job's datasets: {@code fleet_functions}, ... */
  static final String VIEW_PREFIX = "fleet_";

  private FleetViews() {}

  /** A dataset's published rows, from pointers read once. */
  private interface Published {
    Dataset<Row> read(String dataset) throws IOException;
  }

  /** Where the pointers are read from, when a view needs them. */
  private interface Pointers {
    Published read() throws IOException;
  }

  /**
   * Registers one temporary view per dataset of the fleet job's output that the statements name
   * ({@code fleet_functions} for {@code functions/}, ...): each date as its pointer publishes it,
   * one run per date, read after the pointer, so a query never sees a date half replaced or twice
   * while a re-run of it publishes (see {@link FleetOutput}). The views hold the listing made here:
   * every statement of the script sees the same runs.
   *
   * <p>On a Spark Connect session, which has no Hadoop configuration of its own to list files with,
   * the output is listed with this JVM's (Hadoop's defaults, {@code HADOOP_CONF_DIR}) and named to
   * the server by its absolute path: the server must see the same files, as it does on this machine
   * or with a shared file system.
   */
  static void register(
      SparkSession spark, List<String> statements, String output, Map<String, String> filters)
      throws IOException {
    if (Sessions.isConnect(spark)) {
      FileSystem fs = new Path(output).getFileSystem(new Configuration());
      Path out = fs.makeQualified(new Path(output));
      register(statements, output, fs, out, () -> new ClientListed(spark, fs, out)::read, filters);
    } else {
      Path out = new Path(output);
      FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
      register(
          statements, output, fs, out, () -> FleetOutput.published(spark, output)::read, filters);
    }
  }

  private static void register(
      List<String> statements,
      String output,
      FileSystem fs,
      Path out,
      Pointers pointers,
      Map<String, String> filters)
      throws IOException {
    String all = String.join("\n", statements).toLowerCase(Locale.ROOT);
    Published published = null; // the pointers, read once for every view
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
        published = pointers.read();
      }
      withDimensions(dataset, published.read(dataset)).createOrReplaceTempView(view);
    }
    if (!filters.isEmpty()) {
      Published read = published != null ? published : pointers.read();
      checkDimensions(
          filters,
          List.of(read.read("files"), read.read("modules")),
          (key, value) -> "-d " + key + "=" + value + ": no statement takes ${" + key + "}, and");
    }
  }

  /** The datasets that have a {@code dimensions} column (see {@link Dimensions}). */
  private static final java.util.Set<String> WITH_DIMENSIONS =
      java.util.Set.of("host_stacks", "modules", "files");

  /**
   * A per-host dataset with its {@code dimensions} column, empty in an output written before the
   * job had one, so that every script reads both.
   */
  static Dataset<Row> withDimensions(String dataset, Dataset<Row> rows) {
    if (!WITH_DIMENSIONS.contains(dataset)
        || java.util.Arrays.asList(rows.columns()).contains(Dimensions.COLUMN)) {
      return rows;
    }
    return rows.withColumn(Dimensions.COLUMN, Dimensions.NONE.entries());
  }

  /**
   * Fails on a dimension filter that names no dimension of the output: of {@code perHost}'s rows
   * ({@code files/}, which has every file's directories, and {@code modules/}, which has the labels
   * too), the message starting with what {@code what} says of the filter.
   */
  static void checkDimensions(
      Map<String, String> filters,
      List<Dataset<Row>> perHost,
      java.util.function.BiFunction<String, String, String> what) {
    Dataset<Row> keys = null;
    for (Dataset<Row> rows : perHost) {
      Dataset<Row> k = withDimensions("files", rows).selectExpr(Dimensions.COLUMN + ".key AS k");
      keys = keys == null ? k : keys.union(k);
    }
    java.util.Set<String> known = new java.util.TreeSet<>();
    for (Row r : keys.selectExpr("explode(k)").distinct().collectAsList()) {
      known.add(r.getString(0));
    }
    for (String key : filters.keySet()) {
      if (!known.contains(key)) {
        throw new IllegalArgumentException(
            what.apply(key, filters.get(key))
                + " the output has no dimension "
                + key
                + (known.isEmpty()
                    ? " (it has none: its profiles had no key=value directories but date and host)"
                    : " (its dimensions: " + String.join(", ", known) + ")"));
      }
    }
  }

  /**
   * What {@link FleetOutput#published} reads, with the pointers and run directories listed on
   * {@code fs} rather than with the session's Hadoop configuration, which only a classic session
   * has.
   */
  private static final class ClientListed implements Published {
    private final SparkSession spark;
    private final FileSystem fs;
    private final Path output;
    private final Map<String, FleetOutput.Pointer> pointers;

    ClientListed(SparkSession spark, FileSystem fs, Path output) throws IOException {
      this.spark = spark;
      this.fs = fs;
      this.output = output;
      this.pointers = FleetOutput.hasPointers(fs, output) ? FleetOutput.pointers(fs, output) : null;
    }

    @Override
    public Dataset<Row> read(String dataset) throws IOException {
      Path base = new Path(output, dataset);
      if (pointers == null) {
        return spark.read().parquet(base.toString());
      }
      List<String> paths = new ArrayList<>();
      for (FleetOutput.Pointer p : pointers.values()) {
        String run = p.datasets().get(dataset);
        Path dir = run == null ? null : FleetOutput.runDirectory(output, dataset, p.date(), run);
        if (dir != null && fs.exists(dir)) {
          paths.add(dir.toString());
        }
      }
      if (paths.isEmpty()) {
        throw new IllegalArgumentException(
            "no published rows in " + base + " (see " + output + "/_current)");
      }
      return spark
          .read()
          .option("basePath", base.toString())
          .parquet(paths.toArray(new String[0]))
          .drop(FleetOutput.RUN);
    }
  }
}
