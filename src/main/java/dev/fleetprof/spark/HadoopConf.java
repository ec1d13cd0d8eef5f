package dev.fleetprof.spark;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The Hadoop Configuration for one read, built as Spark's file sources build theirs. */
final class HadoopConf {
  private HadoopConf() {}

  /**
   * The SparkContext's Hadoop configuration, plus Hadoop keys set in the session's SQL conf (e.g.
   * {@code spark.conf.set("fs.s3a.endpoint", ...)}), plus the read's options that are not the
   * source's own.
   */
  static Configuration forRead(SparkSession spark, CaseInsensitiveStringMap options) {
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    for (Map.Entry<String, String> e :
        scala.jdk.javaapi.CollectionConverters.asJava(spark.conf().getAll()).entrySet()) {
      if (!e.getKey().startsWith("spark.")) {
        conf.set(e.getKey(), e.getValue());
      }
    }
    for (Map.Entry<String, String> e : ReadOptions.hadoopOptions(options).entrySet()) {
      conf.set(e.getKey(), e.getValue());
    }
    return conf;
  }
}
