package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session of a job. Under {@code spark-submit} the cluster's settings apply untouched;
 * run locally (no {@code spark.master} set) it uses {@code conf/spark-defaults.conf} and local
 * mode, so that a local run needs nothing but Maven and a JDK.
 */
final class Sessions {
  private Sessions() {}

  static SparkSession start(String appName) {
    return start(appName, Map.of());
  }

  /** As {@link #start(String)}, with {@code settings} over every other setting. */
  static SparkSession start(String appName, Map<String, String> settings) {
    SparkConf conf = new SparkConf();
    if (!conf.contains("spark.master")) {
      Path defaults =
          Path.of(System.getProperty("fleetprof.conf.dir", "conf")).resolve("spark-defaults.conf");
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
      // Local runs print results on the console: Spark's progress bar would write over them (and
      // leave blank lines in tables), even without the defaults file.
      conf.setIfMissing("spark.ui.showConsoleProgress", "false");
    }
    settings.forEach(conf::set);
    return SparkSession.builder().appName(appName).config(conf).getOrCreate();
  }

  /** The class of Spark 4's Connect sessions, from the Spark Connect JVM client's jar. */
  private static final String CONNECT_SESSION = "org.apache.spark.sql.connect.SparkSession";

  /**
   * A Spark Connect session with the server at {@code url} ({@code sc://HOST:PORT}), built by
   * Spark's Connect client, whose jar must be on the classpath ({@code jobs/sql --remote} puts it
   * there). With {@code spark.api.mode=connect}, Spark 4's builder builds a Connect session even
   * beside classic Spark; these two settings are what its {@code connect()} and {@code remote(url)}
   * set, methods that Spark 3.5's builder (the jar also compiles against 3.5) lacks.
   */
  static SparkSession connect(String url) {
    try {
      Class.forName(CONNECT_SESSION, false, Sessions.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "no Spark Connect client on the classpath ("
              + CONNECT_SESSION
              + " is Spark 4's): start jobs/sql with --remote, which adds it",
          e);
    }
    return SparkSession.builder()
        .config("spark.api.mode", "connect")
        .config("spark.connect.remote", url)
        .getOrCreate();
  }

  /** Whether a session is a Spark Connect client's rather than classic Spark's. */
  static boolean isConnect(SparkSession spark) {
    return spark.getClass().getName().equals(CONNECT_SESSION);
  }
}
