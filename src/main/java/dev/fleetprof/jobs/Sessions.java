package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session of a job. Under {@code spark-submit} the cluster's settings apply untouched;
 * run locally (no {@code spark.master} set) it uses {@code conf/spark-defaults.conf} and local mode,
 * so that a local run needs nothing but Maven and a JDK.
 */
final class Sessions {
  private Sessions() {}

  /** What a job does with its session and its parsed command line. */
  interface Job<A> {
    void run(SparkSession spark, A args) throws IOException;
  }

  /**
   * A job's {@code main}: {@code --help} (or no arguments, when the job needs some) prints the usage;
   * a command line that does not parse (IllegalArgumentException) prints why and the usage and exits
   * with 2; otherwise the job runs on a session that is stopped afterwards.
   */
  static <A> void main(String name, String usage, String[] argv, boolean needsArguments,
      java.util.function.Function<String[], A> parse, Job<A> job) throws IOException {
    if ((needsArguments && argv.length == 0)
        || (argv.length > 0 && (argv[0].equals("--help") || argv[0].equals("-h")))) {
      System.out.println(usage);
      return;
    }
    A args;
    try {
      args = parse.apply(argv);
    } catch (IllegalArgumentException e) {
      System.err.println(name + ": " + e.getMessage() + "\n\n" + usage);
      System.exit(2);
      return;
    }
    SparkSession spark = start("fleetprof " + name);
    try {
      job.run(spark, args);
    } finally {
      spark.stop();
    }
  }

  static SparkSession start(String appName) {
    SparkConf conf = new SparkConf();
    if (!conf.contains("spark.master")) {
      Path defaults = Path.of(System.getProperty("fleetprof.conf.dir", "conf"))
          .resolve("spark-defaults.conf");
      if (Files.isRegularFile(defaults)) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(defaults)) {
          p.load(r);
        } catch (IOException e) {
          throw new IllegalStateException("cannot read " + defaults + ": " + e.getMessage(), e);
        }
        for (String key : p.stringPropertyNames()) {
          if (!conf.contains(key)) {
            conf.set(key, p.getProperty(key).strip());
          }
        }
      }
      conf.setIfMissing("spark.master", "local[*]");
    }
    return SparkSession.builder().appName(appName).config(conf).getOrCreate();
  }
}
