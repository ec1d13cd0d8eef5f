package dev.fleetprof.cluster;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.format_string;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.xxhash64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.jobs.FleetOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.StructField;

/**
 * Compares two output roots of the job dataset by dataset without knowing the datasets, so that the
 * check keeps covering tables the job gains later. A dataset is a directory with a {@code _SUCCESS}
 * marker, or the directory above the {@code key=value} partition directories that hold Parquet
 * files: Spark writes no {@code _SUCCESS} under dynamic partition overwrite.
 */
final class OutputRoots {
  private OutputRoots() {}

  /** The datasets under {@code root}, relative to it. */
  static TreeSet<String> datasets(Path root) {
    // Datasets are marked (_SUCCESS) or hold data; their date partitions are marked too.
    TreeSet<String> dirs = relativeDirs(root, p -> p.getFileName().toString().equals("_SUCCESS"));
    dirs.addAll(dataDirs(root));
    TreeSet<String> out = new TreeSet<>();
    for (String dir : dirs) {
      Path d = Path.of(dir);
      while (d != null && d.getFileName().toString().contains("=")) {
        d = d.getParent();
      }
      out.add(d == null ? "" : d.toString());
    }
    return out;
  }

  /** A directory with its {@code run=} level left out: two runs' layouts compare equal. */
  private static Path withoutRun(Path relative) {
    Path out = Path.of("");
    for (Path part : relative) {
      if (!part.toString().startsWith("run=")) {
        out = out.resolve(part);
      }
    }
    return out;
  }

  /** Directories holding Parquet data files: the partition layout of every dataset. */
  static TreeSet<String> dataDirs(Path root) {
    return relativeDirs(
        root,
        p ->
            p.getFileName().toString().endsWith(".parquet")
                && !p.getFileName().toString().startsWith("."));
  }

  private static TreeSet<String> relativeDirs(
      Path root, java.util.function.Predicate<Path> marker) {
    try (Stream<Path> s = Files.walk(root)) {
      TreeSet<String> out = new TreeSet<>();
      s.filter(Files::isRegularFile)
          .filter(marker)
          .map(p -> withoutRun(root.relativize(p.getParent())))
          .filter(OutputRoots::visible)
          .forEach(d -> out.add(d.toString()));
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Not under a directory Spark's readers skip (staging leftovers such as .spark-staging-*). */
  private static boolean visible(Path relative) {
    for (Path name : relative) {
      String n = name.toString();
      if (n.startsWith(".") || (n.startsWith("_") && !n.contains("="))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Asserts that both roots hold the same datasets, partitioned the same way, with equal row
   * multisets; returns the datasets compared. Row order and file boundaries may differ (different
   * partitioning of the same work), nothing else.
   */
  static TreeSet<String> assertSame(SparkSession spark, Path expected, Path actual) {
    TreeSet<String> datasets = datasets(expected);
    assertFalse(datasets.isEmpty(), "no dataset under " + expected);
    assertTrue(
        datasets.contains("stacks"), "no stacks/ dataset under " + expected + ": " + datasets);
    assertEquals(datasets, datasets(actual), "datasets under " + actual + " vs " + expected);
    assertEquals(
        dataDirs(expected),
        dataDirs(actual),
        "partition directories under " + actual + " vs " + expected);
    long rows = 0;
    for (String d : datasets) {
      rows += assertSameRows(d, published(spark, expected, d), published(spark, actual, d));
    }
    assertTrue(rows > 0, "every dataset is empty: nothing was compared");
    return datasets;
  }

  /** A dataset as the job published it (one run per date, no {@code run} column). */
  private static Dataset<Row> published(SparkSession spark, Path root, String dataset) {
    try {
      return FleetOutput.read(spark, root.toString(), dataset);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Asserts two datasets hold the same multiset of rows; returns how many. Compares sorted 64-bit
   * row hashes (one scan per side, no shuffle) and only on a difference runs {@code exceptAll} both
   * ways to show the rows that differ.
   */
  static long assertSameRows(String what, Dataset<Row> expected, Dataset<Row> actual) {
    Dataset<Row> e = comparable(expected);
    Dataset<Row> a = comparable(actual);
    assertEquals(e.schema(), a.schema(), what + ": schema");
    long[] eh = hashes(e);
    long[] ah = hashes(a);
    if (!Arrays.equals(eh, ah)) {
      List<Row> missing = e.exceptAll(a).limit(5).collectAsList();
      List<Row> extra = a.exceptAll(e).limit(5).collectAsList();
      fail(
          what
              + ": "
              + eh.length
              + " rows expected, "
              + ah.length
              + " read; rows only expected: "
              + missing
              + "; rows only read: "
              + extra);
    }
    return eh.length;
  }

  /** Row hashes, sorted. Hashed as JSON: a plain hash skips nulls, so (null, x) = (x, null). */
  private static long[] hashes(Dataset<Row> df) {
    Column[] cols = Arrays.stream(df.columns()).map(c -> col("`" + c + "`")).toArray(Column[]::new);
    List<Long> list =
        df.select(xxhash64(to_json(struct(cols)))).as(Encoders.LONG()).collectAsList();
    long[] out = list.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(out);
    return out;
  }

  /**
   * The dataset with columns set operations can compare: maps (which Spark cannot group by) as
   * JSON, and top-level floating-point values to 12 significant digits, because sums of doubles
   * depend on the order a differently partitioned run adds them in.
   */
  static Dataset<Row> comparable(Dataset<Row> df) {
    List<Column> cols = new ArrayList<>();
    for (StructField f : df.schema().fields()) {
      Column c = col("`" + f.name() + "`");
      if (hasMap(f.dataType())) {
        c = to_json(c);
      } else if (f.dataType() instanceof DoubleType || f.dataType() instanceof FloatType) {
        c = format_string("%.12g", c);
      }
      cols.add(c.as(f.name()));
    }
    return df.select(cols.toArray(new Column[0]));
  }

  private static boolean hasMap(DataType t) {
    return t.catalogString().contains("map<");
  }
}
