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
 * run locally (no {@code spark.master} set) it uses {@code conf/spark-defaults.conf} and local
 * mode, so that a local run needs nothing but Maven and a JDK.
 */
final class Sessions {
  private Sessions() {}

  static SparkSession start(String appName) {
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
    return SparkSession.builder().appName(appName).config(conf).getOrCreate();
  }
}
