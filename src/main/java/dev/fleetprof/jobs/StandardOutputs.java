package dev.fleetprof.jobs;

import dev.fleetprof.output.Frame;
import dev.fleetprof.output.StackWriter;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.output.flamegraph.FlameGraphWriter;
import dev.fleetprof.output.folded.FoldedWriter;
import dev.fleetprof.output.pprof.PprofWriter;
import dev.fleetprof.symbols.SourceLine;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an aggregate of stacks in the formats profiling tools open: a gzipped pprof {@code
 * profile.proto}, folded stacks, a flame graph page. The aggregate streams from the executors to
 * the writers ({@code toLocalIterator}), one partition at a time, so the driver holds the writers'
 * own state (distinct locations, the flame graph's capped tree), not the stacks; a small run's rows
 * can instead be computed beforehand, beside other work, and written from the driver's memory.
 */
final class StandardOutputs {
  private static final Logger LOG = LoggerFactory.getLogger(StandardOutputs.class);

  /** Where to write: any of the three may be null. */
  record Targets(String pprof, String folded, String flamegraph) {
    boolean any() {
      return pprof != null || folded != null || flamegraph != null;
    }
  }

  private StandardOutputs() {}

  /**
   * What the outputs say about themselves: {@code file} is what pprof shows as "File:" (null: the
   * heaviest program's name), {@code title} heads the flame graph and is the pprof profile's first
   * comment, {@code note} (may be null) a further comment and a line under the title.
   */
  record Labels(String file, String title, String note) {
    static Labels titled(String title) {
      return new Labels(null, title, null);
    }
  }

  /**
   * The fleet job's CPU time ({@code cpu} rows of {@code stacks}: CPU-time samples of every format,
   * the run's dates, all hosts), valued in nanoseconds so that profiles sampled at different rates
   * add up, to the files the command line asked for.
   */
  static void writeCpuTime(
      SparkSession spark, Dataset<Row> stacks, Dataset<Row> symbols, Targets targets, Labels labels)
      throws IOException {
    if (targets.any()) {
      write(spark, cpuTime(stacks), symbols, CPU_TIME, targets, labels);
    }
  }

  /**
   * The rows {@link #writeCpuTime} writes, for a caller that computes them alongside other work and
   * writes them later with {@link #writeCpuTimeRows}: a small run's, which fit the driver.
   */
  static Dataset<Row> cpuTimeRows(Dataset<Row> stacks, Dataset<Row> symbols) {
    return prepared(cpuTime(stacks), symbols);
  }

  /** Writes rows {@link #cpuTimeRows} gave, as {@link #writeCpuTime} does. */
  static void writeCpuTimeRows(SparkSession spark, List<Row> rows, Targets targets, Labels labels)
      throws IOException {
    if (targets.any()) {
      writeRows(conf(spark), rows.iterator(), false, CPU_TIME, targets, labels);
    }
  }

  private static final ValueMeaning CPU_TIME = ValueMeaning.counts(Measures.CPU, "nanoseconds");

  private static Dataset<Row> cpuTime(Dataset<Row> stacks) {
    return stacks
        .where("measure = '" + Measures.CPU + "' AND value IS NOT NULL")
        .selectExpr("format", "frames", "value AS count");
  }

  /**
   * The optional column of the stacks {@link #write} takes: ARRAY&lt;STRUCT&lt;key, value&gt;&gt;,
   * each sample's labels (pprof's string labels; the other outputs have no place for them).
   */
  static final String LABELS = "labels";

  /**
   * Writes {@code stacks} (columns {@code format}, {@code frames}, a DECIMAL {@code count} and
   * maybe {@link #LABELS}; rows with equal frames and labels are summed first) to every target,
   * each frame named by its inline chain from {@code symbols} (columns format, module, offset,
   * lines and name_source, whose {@code cfi} names the writers show as guesses; null: frames stay
   * unnamed).
   */
  static void write(
      SparkSession spark,
      Dataset<Row> stacks,
      Dataset<Row> symbols,
      ValueMeaning meaning,
      Targets targets,
      Labels labels)
      throws IOException {
    Dataset<Row> rows = prepared(stacks, symbols);
    // toLocalIterator runs one Spark job per partition: an eighth of the shuffle partitions
    // (at least two) keeps a small run's outputs to two jobs, and a large run's driver to an
    // eighth of a shuffle's rows at a time.
    int partitions =
        Math.max(2, Integer.parseInt(spark.conf().get("spark.sql.shuffle.partitions")) / 8);
    writeRows(
        conf(spark),
        rows.coalesce(partitions).toLocalIterator(),
        labelled(stacks),
        meaning,
        targets,
        labels);
  }

  private static boolean labelled(Dataset<Row> stacks) {
    return java.util.Arrays.asList(stacks.columns()).contains(LABELS);
  }

  /** {@code stacks} summed per frames (and labels), each frame with its lines from symbols. */
  private static Dataset<Row> prepared(Dataset<Row> stacks, Dataset<Row> symbols) {
    boolean labelled = labelled(stacks);
    Dataset<Row> rows =
        (labelled ? stacks.groupBy("format", "frames", LABELS) : stacks.groupBy("format", "frames"))
            .agg(org.apache.spark.sql.functions.sum("count").as("count"));
    return symbols != null
        ? Symbolization.withLines(rows, symbols)
        : labelled ? rows.select("frames", "count", LABELS) : rows.select("frames", "count");
  }

  private static void writeRows(
      Configuration conf,
      Iterator<Row> it,
      boolean labelled,
      ValueMeaning meaning,
      Targets targets,
      Labels labels)
      throws IOException {
    List<StackWriter> writers = new ArrayList<>();
    try {
      if (targets.pprof() != null) {
        PprofWriter pprof =
            new PprofWriter(open(conf, targets.pprof()), meaning)
                .comment(labels.title())
                .fileLabel(labels.file());
        if (labels.note() != null) {
          pprof.comment(labels.note());
        }
        writers.add(pprof);
      }
      if (targets.folded() != null) {
        writers.add(new FoldedWriter(open(conf, targets.folded())));
      }
      if (targets.flamegraph() != null) {
        writers.add(
            new FlameGraphWriter(
                open(conf, targets.flamegraph()),
                labels.note() == null ? labels.title() : labels.title() + ". " + labels.note(),
                meaning));
      }
      long n = 0;
      while (it.hasNext()) {
        Row r = it.next();
        List<Row> frames = r.getList(0);
        List<Frame> chain = new ArrayList<>(frames.size());
        for (Row f : frames) {
          List<SourceLine> lines =
              f.size() > 2 && !f.isNullAt(2) ? sourceLines(f.getList(2)) : List.of();
          chain.add(
              new Frame(
                  f.isNullAt(0) ? null : f.getString(0),
                  f.getLong(1),
                  lines,
                  f.size() > 3 && CFI.equals(f.getString(3)) && lines.size() == 1));
        }
        WeightedStack s = WeightedStack.of(chain, (BigDecimal) r.get(1));
        Map<String, String> sampleLabels = new LinkedHashMap<>();
        if (labelled && !r.isNullAt(2)) {
          for (Row l : r.<Row>getList(2)) {
            sampleLabels.put(l.getString(0), l.getString(1));
          }
        }
        for (StackWriter w : writers) {
          w.add(s.frames(), s.value(), sampleLabels);
        }
        n++;
      }
      for (StackWriter w : writers) {
        w.close();
      }
      writers.clear();
      LOG.info("wrote {} stacks to {}", n, targets);
    } finally {
      for (StackWriter w : writers) {
        try {
          w.close();
        } catch (IOException | RuntimeException e) {
          LOG.debug("closing after a failure", e);
        }
      }
    }
  }

  /** The {@code name_source} of a boundary-only name, which the writers show as a guess. */
  static final String CFI = dev.fleetprof.symbols.NameSource.CFI.label();

  /** A {@code lines} value (structs function, file, line, symbol) as the writers take it. */
  static List<SourceLine> sourceLines(List<Row> lines) {
    List<SourceLine> out = new ArrayList<>(lines.size());
    for (Row l : lines) {
      out.add(
          new SourceLine(
              l.getString(0),
              l.isNullAt(3) ? l.getString(0) : l.getString(3),
              l.isNullAt(1) ? null : l.getString(1),
              l.isNullAt(2) ? 0 : l.getLong(2)));
    }
    return out;
  }

  /**
   * An output file on any Hadoop FileSystem (a local path, hdfs://, s3a://). A file on a checksum
   * file system (Hadoop's local one for {@code file:} paths) is written through the raw file system
   * underneath, so that no hidden {@code .NAME.crc} appears next to a file users open with other
   * tools; a checksum file an earlier run left there is deleted, since it would no longer match.
   * Other file systems (HDFS, S3A) write as they always do.
   */
  static OutputStream open(SparkSession spark, String file) throws IOException {
    return open(conf(spark), file);
  }

  private static Configuration conf(SparkSession spark) {
    return spark.sparkContext().hadoopConfiguration();
  }

  static OutputStream open(Configuration conf, String file) throws IOException {
    Path p = new Path(file);
    FileSystem fs = p.getFileSystem(conf);
    if (fs instanceof ChecksumFileSystem checksummed) {
      Path qualified = checksummed.makeQualified(p);
      checksummed.getRawFileSystem().delete(checksummed.getChecksumFile(qualified), false);
      return checksummed.getRawFileSystem().create(qualified, true);
    }
    return fs.create(p, true);
  }
}
