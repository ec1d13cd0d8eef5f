package dev.fleetprof.spark;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Tuple2;

/** The Hadoop Configuration for one read, built as Spark's file sources build theirs. */
public final class HadoopConf {
  private HadoopConf() {}

  /**
   * The SparkContext's Hadoop configuration, plus Hadoop keys set in the session's SQL conf (e.g.
   * {@code spark.conf.set("fs.s3a.endpoint", ...)}), plus the read's options that are not the
   * source's own.
   */
  public static Configuration forRead(SparkSession spark, CaseInsensitiveStringMap options) {
    Configuration conf = new Configuration(spark.sparkContext().hadoopConfiguration());
    // Walked with Scala's own iterator: the converters to Java collections differ between Scala
    // 2.12 and 2.13, and the jar is built for both.
    scala.collection.Iterator<Tuple2<String, String>> sessionConf =
        spark.conf().getAll().iterator();
    while (sessionConf.hasNext()) {
      Tuple2<String, String> e = sessionConf.next();
      if (!e._1().startsWith("spark.")) {
        conf.set(e._1(), e._2());
      }
    }
    for (Map.Entry<String, String> e : ReadOptions.hadoopOptions(options).entrySet()) {
      conf.set(e.getKey(), e.getValue());
    }
    return conf;
  }
}
