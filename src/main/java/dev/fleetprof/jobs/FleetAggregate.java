package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.sum;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet aggregation job: reads directories of profiles and writes, under {@code --output}, the
 * Parquet dataset {@code stacks/}: one row per (format, kind, period, period_unit, frames) with the
 * summed {@code count}, the records and the profiles it came from. {@code frames} (module + file
 * offset per PC) is the key, not raw {@code pcs}, so stacks from different hosts and processes
 * (ASLR) add up.
 *
 * <p>Run locally with {@code jobs/fleet-aggregate}, or on a cluster with {@code spark-submit --class
 * dev.fleetprof.jobs.FleetAggregate target/fleetprof-*.jar}.
 */
public final class FleetAggregate {
  private static final Logger LOG = LoggerFactory.getLogger(FleetAggregate.class);

  /**
   * Counts are unsigned 64-bit values in a bigint; summed as DECIMAL(38,0) they can neither overflow
   * (ANSI mode would fail the job) nor turn negative.
   */
  static final String UNSIGNED_COUNT = "CASE WHEN count >= 0 THEN CAST(count AS DECIMAL(38,0))"
      + " ELSE CAST(count AS DECIMAL(38,0)) + 18446744073709551616 END";

  static final String USAGE = String.join("\n",
      "Usage: jobs/fleet-aggregate --input DIR [--input DIR ...] --output DIR [options]",
      "",
      "Reads every profile under the input directories (gperftools, gprof, DCPI; files and",
      "directories on any Hadoop FileSystem: file:, hdfs://, s3a://) and writes Parquet under",
      "--output:",
      "  stacks/   format, kind, period, period_unit, frames, count (DECIMAL(38,0)), records,",
      "            profiles: the summed count of every distinct stack of frames",
      "",
      "Options:",
      "  --input DIR        a directory, file or glob of profiles (repeatable; default sample-data)",
      "  --output DIR       where to write the Parquet datasets (default target/fleet-output)",
      "  --format NAME      auto (default), gperftools, gprof or dcpi",
      "  --glob PATTERN     only read files whose names match (Spark's pathGlobFilter)",
      "  --help             this text");

  /** Parsed command line. */
  record Args(List<String> inputs, String output, String format, String glob) {
    static Args parse(String[] argv) {
      List<String> inputs = new ArrayList<>();
      String output = "target/fleet-output";
      String format = "auto";
      String glob = null;
      for (int i = 0; i < argv.length; i++) {
        String a = argv[i];
        switch (a) {
          case "--input" -> inputs.add(value(argv, ++i, a));
          case "--output" -> output = value(argv, ++i, a);
          case "--format" -> format = value(argv, ++i, a);
          case "--glob" -> glob = value(argv, ++i, a);
          default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
        }
      }
      if (inputs.isEmpty()) {
        inputs.add("sample-data");
      }
      return new Args(inputs, output, format, glob);
    }

    private static String value(String[] argv, int i, String flag) {
      if (i >= argv.length) {
        throw new IllegalArgumentException(flag + " needs a value");
      }
      return argv[i];
    }
  }

  public static void main(String[] argv) {
    if (argv.length > 0 && (argv[0].equals("--help") || argv[0].equals("-h"))) {
      System.out.println(USAGE);
      return;
    }
    Args args;
    try {
      args = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("fleet-aggregate: " + e.getMessage() + "\n\n" + USAGE);
      System.exit(2);
      return;
    }
    SparkSession spark = Sessions.start("fleetprof fleet-aggregate");
    try {
      run(spark, args);
    } finally {
      spark.stop();
    }
  }

  static Summary run(SparkSession spark, Args args) {
    long started = System.nanoTime();
    LOG.info("fleet-aggregate: reading {} -> {}", args.inputs(), args.output());
    var reader = spark.read().format("profile").option("format", args.format());
    if (args.glob() != null) {
      reader = reader.option("pathGlobFilter", args.glob());
    }
    Dataset<Row> profiles = reader.load(args.inputs().toArray(new String[0]));

    Dataset<Row> stacks = profiles
        .groupBy(col("format"), col("kind"), col("period"), col("period_unit"), col("frames"))
        .agg(sum(expr(UNSIGNED_COUNT)).cast("decimal(38,0)").as("count"),
            count(expr("1")).as("records"),
            countDistinct(col("path")).as("profiles"));
    String stacksPath = args.output() + "/stacks";
    stacks.write().mode(SaveMode.Overwrite).parquet(stacksPath);

    Row totals = spark.read().parquet(stacksPath)
        .agg(count(expr("1")), sum("records"), sum("count")).first();
    long files = profiles.select("path").distinct().count();
    Summary s = new Summary(files, totals.isNullAt(1) ? 0 : totals.getLong(1), totals.getLong(0),
        totals.isNullAt(2) ? java.math.BigDecimal.ZERO : totals.getDecimal(2),
        (System.nanoTime() - started) / 1_000_000, stacksPath);
    String line = String.format("fleet-aggregate: %d profile files with records, %d records,"
            + " total count %s -> %d stack rows in %s (%.1f s)", s.files(), s.records(),
        s.totalCount().toPlainString(), s.stackRows(), s.stacksPath(), s.millis() / 1000.0);
    LOG.info(line);
    System.out.println(line);
    return s;
  }

  /** What a run did. */
  record Summary(long files, long records, long stackRows, java.math.BigDecimal totalCount,
      long millis, String stacksPath) {}
}
