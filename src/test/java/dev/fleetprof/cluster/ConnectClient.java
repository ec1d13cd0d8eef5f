package dev.fleetprof.cluster;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The client half of {@link SparkConnectIT}: runs in a JVM of its own on the Spark Connect JVM
 * client's jars (never beside spark-sql), so it names only the Dataset API of spark-sql-api, and
 * writes what each query returned, one {@code label<TAB>row} line per row, for the IT to compare.
 *
 * <p>Arguments: the server's {@code sc://} address, the output file, then the paths to read.
 */
public final class ConnectClient {
  /** Each path's rows, totals per file and kind: what the IT computes with the same SQL. */
  static final String QUERY =
      "SELECT path, kind, count(*) AS n, sum(count) AS total FROM %s GROUP BY path, kind"
          + " ORDER BY path, kind";

  private ConnectClient() {}

  public static void main(String[] args) throws IOException {
    SparkSession spark = SparkSession.builder().remote(args[0]).getOrCreate();
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8))) {
      out.println("session\t" + spark.getClass().getName());
      for (int i = 2; i < args.length; i++) {
        String path = args[i];
        String label = "path" + (i - 2);
        spark.read().format("profile").load(path).createOrReplaceTempView("loaded");
        print(out, label + " format", spark.sql(String.format(QUERY, "loaded")).collectAsList());
        print(
            out,
            label + " catalog",
            spark.sql(String.format(QUERY, "profile.`" + path + "`")).collectAsList());
        spark.sql(
            "CREATE OR REPLACE TEMPORARY VIEW using_view USING profile OPTIONS (path '"
                + path.replace("'", "\\'")
                + "')");
        print(out, label + " using", spark.sql(String.format(QUERY, "using_view")).collectAsList());
      }
    } finally {
      spark.stop();
    }
  }

  private static void print(PrintWriter out, String label, List<Row> rows) {
    for (Row r : rows) {
      out.println(label + "\t" + r);
    }
  }
}
