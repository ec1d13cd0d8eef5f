package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a fleet job run did, from what its stages computed: the files' totals and every dataset's
 * rows as observed while they were written ({@link #observe}), each measure's totals from the query
 * that read the inputs. Printed once on stdout ({@link #print}).
 */
record FleetSummary(
    long files,
    long records,
    BigDecimal totalCount,
    long filesWithProblems,
    long bytes,
    Map<String, Long> rowsWritten,
    List<String> dates,
    long millis,
    String output,
    Map<String, FleetSummary.MeasureTotal> measures) {
  private static final Logger LOG = LoggerFactory.getLogger(FleetSummary.class);

  /**
   * The datasets to write, each observed as it is written: its rows, and for {@code files} the
   * files' totals (its records, counts, files with problems or CPU samples, and bytes from the
   * files' listed sizes, a column that is then dropped).
   */
  static Map<String, Dataset<Row>> observeAll(
      Map<String, Dataset<Row>> tables, Map<String, Observation> observed) {
    Map<String, Dataset<Row>> out = new LinkedHashMap<>();
    tables.forEach(
        (name, table) ->
            out.put(
                name,
                name.equals("files")
                    ? observe(
                            table,
                            observed,
                            name,
                            sum("records").as("records"),
                            sum("count").as("count"),
                            sum(expr("CASE WHEN problems > 0 THEN 1 ELSE 0 END"))
                                .as("problem_files"),
                            // Files that gave CPU samples (cpu_nanoseconds is null without).
                            count(col("cpu_nanoseconds")).as("cpu_files"),
                            sum(FleetStages.FILE_SIZE).as("bytes"))
                        .drop(FleetStages.FILE_SIZE)
                    : observe(table, observed, name)));
    return out;
  }

  /**
   * {@code table} with its rows counted (and {@code more} aggregates computed) as it is written:
   * {@code observed.get(name)} has them once the write is done, without a job of their own.
   */
  static Dataset<Row> observe(
      Dataset<Row> table, Map<String, Observation> observed, String name, Column... more) {
    Observation o = new Observation("fleet-aggregate " + name);
    observed.put(name, o);
    return table.observe(o, count(lit(1)).as("rows"), more);
  }

  /**
   * What the run did: the files' totals and every dataset's rows as observed when written, each
   * measure's totals per date as read, summed over the dates.
   */
  static FleetSummary of(
      FleetAggregate.Args args,
      Map<String, Observation> observed,
      List<Row> measureRows,
      List<Object> dates,
      long started) {
    Map<String, Object> files = metrics(observed.get("files"));
    long cpuFiles = ((Number) files.get("cpu_files")).longValue();
    Map<String, Long> rows = new LinkedHashMap<>();
    for (Map.Entry<String, Observation> o : observed.entrySet()) {
      rows.put(o.getKey(), ((Number) metrics(o.getValue()).get("rows")).longValue());
    }
    Map<String, MeasureTotal> measures = new TreeMap<>();
    for (Row r : measureRows) {
      if (r.isNullAt(1)) {
        continue; // the rows of problems
      }
      BigDecimal count = r.isNullAt(3) ? BigDecimal.ZERO : r.getDecimal(3);
      BigDecimal value = r.isNullAt(4) ? null : r.getDecimal(4);
      MeasureTotal before = measures.get(r.getString(1));
      if (before != null) {
        count = count.add(before.count());
        value =
            value == null
                ? before.value()
                : before.value() == null ? value : value.add(before.value());
      }
      measures.put(
          r.getString(1),
          new MeasureTotal(
              r.getString(2), count, value, Measures.CPU.equals(r.getString(1)) ? cpuFiles : 0));
    }
    return new FleetSummary(
        rows.get("files"),
        files.get("records") == null ? 0 : ((Number) files.get("records")).longValue(),
        files.get("count") == null ? BigDecimal.ZERO : decimal(files.get("count")),
        files.get("problem_files") == null ? 0 : ((Number) files.get("problem_files")).longValue(),
        files.get("bytes") == null ? 0 : ((Number) files.get("bytes")).longValue(),
        rows,
        dates.stream().map(String::valueOf).sorted().toList(),
        (System.nanoTime() - started) / 1_000_000,
        args.output(),
        measures);
  }

  /** What an observation saw; its dataset has been written, so the metrics are there. */
  static Map<String, Object> metrics(Observation o) {
    try {
      return o.getAsJava();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the run's figures", e);
    }
  }

  static BigDecimal decimal(Object v) {
    return v instanceof BigDecimal b ? b : new BigDecimal(v.toString());
  }

  /** The summary, on stdout once and in the log. */
  void print(FleetAggregate.Args args, String symbolization) {
    FleetSummary s = this;
    StringBuilder line =
        new StringBuilder(
            String.format(
                "fleet-aggregate: %d files (%d with problems, see files/), %d records, %,d bytes,"
                    + " dates %s",
                s.files(), s.filesWithProblems(), s.records(), s.bytes(), s.dates()));
    for (Map.Entry<String, MeasureTotal> m : s.measures().entrySet()) {
      line.append(String.format("%n  %-10s %s", m.getKey(), m.getValue().describe()));
    }
    if (s.measures().containsKey(Measures.CPU)) {
      line.append(String.format("%n  (%s)", periodNote(args.effectivePeriods())));
    }
    line.append(
        String.format(
            "%n  rows written %s under %s in %.1f s",
            s.rowsWritten(), s.output(), s.millis() / 1000.0));
    // On stdout, once: the console shows the log's INFO lines too, and a summary printed twice
    // reads as two runs. The log file gets it at DEBUG.
    LOG.debug(line.toString());
    System.out.println(line);
    LOG.debug("fleet-aggregate: {}", symbolization);
    System.out.println("fleet-aggregate: " + symbolization);
  }

  /**
   * How much of the run has names: locations symbolized, and per module the locations left unnamed
   * with the reason, for the summary (a missing binary never fails the job).
   */
  static String symbolizationReport(Dataset<Row> symbols) {
    // One query: per module, its locations, how many got names and why the others did not.
    List<Row> modules =
        new ArrayList<>(
            symbols
                .where(col("format").notEqual("dcpi"))
                .groupBy("module")
                .agg(
                    count(lit(1)).as("n"),
                    count(col("lines")).as("named"),
                    expr("min(CASE WHEN lines IS NULL THEN problem END)").as("problem"))
                .collectAsList());
    long all = 0;
    long named = 0;
    for (Row m : modules) {
      all += m.getLong(1);
      named += m.getLong(2);
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                "symbolized %d of %d locations" + " (DCPI images are not symbolized)", named, all));
    modules.removeIf(m -> m.getLong(1) == m.getLong(2));
    modules.sort(
        java.util.Comparator.comparingLong((Row m) -> m.getLong(1) - m.getLong(2)).reversed());
    for (Row m : modules.subList(0, Math.min(20, modules.size()))) {
      sb.append(
          String.format(
              "%n  unnamed: %d locations in %s: %s",
              m.getLong(1) - m.getLong(2),
              m.isNullAt(0) ? "(no module)" : m.getString(0),
              m.getString(3)));
    }
    return sb.toString();
  }

  /** How CPU time was computed: the recorded periods, or the ones the user gave. */
  static String periodNote(Map<String, Long> effective) {
    if (effective.isEmpty()) {
      return "CPU time = samples x the period each profile records (nominal: a kernel that ticks"
          + " slower than the sampling rate makes each sample longer; see --effective-period)";
    }
    StringBuilder b = new StringBuilder("CPU time = samples x the effective period given:");
    effective.forEach(
        (format, nanos) -> b.append(' ').append(format).append('=').append(nanos).append("ns"));
    b.append(" (other formats: the period each profile records)");
    return b.toString();
  }

  /** A name for the fleet in labels: the input's last directory name (e.g. fleet). */
  static String fleetName(List<String> inputs) {
    String first = inputs.get(0).replaceAll("/+$", "");
    String name = first.substring(first.lastIndexOf('/') + 1);
    return (name.isEmpty() ? first : name) + (inputs.size() > 1 ? " +" + (inputs.size() - 1) : "");
  }

  /**
   * One measure's totals in a run: counts as profiles counted them, the value in {@code unit} (null
   * when no period is known), and how many files gave rows of it.
   */
  record MeasureTotal(String unit, BigDecimal count, BigDecimal value, long files) {
    String describe() {
      if ("nanoseconds".equals(unit)) {
        return String.format(
            "%s s%s%s",
            value == null
                ? "?"
                : value.movePointLeft(9).setScale(3, java.math.RoundingMode.HALF_UP),
            value != null && value.compareTo(count) != 0
                ? String.format(" (%,d samples)", count.toBigInteger())
                : "",
            files > 0 ? String.format(" from %d files", files) : "");
      }
      return String.format(
          "%s %s%s",
          value == null ? count.toPlainString() : String.format("%,d", value.toBigInteger()),
          unit,
          value != null && value.compareTo(count) != 0
              ? String.format(" (%,d samples)", count.toBigInteger())
              : "");
    }
  }
}
