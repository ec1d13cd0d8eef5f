package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;

import dev.fleetprof.format.FrameAddresses;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a fleet job run did, from what its stages computed: the files' totals and every dataset's
 * rows as observed while they were written ({@link #observe}), each measure's totals from the query
 * that read the inputs, and how the locations were named ({@code symbolization}: {@link
 * #symbolizationReport}, null until {@link #withSymbolization}). Printed once on stdout ({@link
 * #print}).
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
    Map<String, FleetSummary.MeasureTotal> measures,
    Map<String, Long> dimensionValues,
    String symbolization) {
  private static final Logger LOG = LoggerFactory.getLogger(FleetSummary.class);

  /**
   * What turns a dataset to write (its name, its rows) into the same rows observed as they are
   * written: its rows, and for {@code files} the files' totals (its records, counts, files with
   * problems or CPU samples, and bytes from the files' listed sizes, a column that is then dropped,
   * and how many values each dimension has); {@code observed} gets each observation.
   */
  static BiFunction<String, Dataset<Row>, Dataset<Row>> observer(
      Map<String, Observation> observed, Dimensions dimensions) {
    List<Column> fileFigures =
        new ArrayList<>(
            List.of(
                sum("records").as("records"),
                sum("count").as("count"),
                sum(expr("CASE WHEN problems > 0 THEN 1 ELSE 0 END")).as("problem_files"),
                // Files that gave CPU samples (cpu_nanoseconds is null without).
                count(col("cpu_nanoseconds")).as("cpu_files"),
                sum(FleetStages.FILE_SIZE).as("bytes")));
    List<Column> labelFigures = new ArrayList<>();
    for (int i = 0; i < dimensions.names().size(); i++) {
      // Exact, unlike approx_count_distinct (which told 3 values from 2 in a test); files/ has a
      // row per file, so the set holds at most a value per file. A label is counted where it is
      // a dimension: host_stacks/.
      Column values = expr(Dimensions.valueOf(dimensions.names().get(i)));
      (dimensions.isLabel(i) ? labelFigures : fileFigures)
          .add(size(collect_set(values)).as(DIMENSION_VALUES + i));
    }
    return (name, table) ->
        name.equals("files")
            ? observe(table, observed, name, fileFigures.toArray(new Column[0]))
                .drop(FleetStages.FILE_SIZE)
            : name.equals(LABELS_COUNTED_IN)
                ? observe(table, observed, name, labelFigures.toArray(new Column[0]))
                : observe(table, observed, name);
  }

  /**
   * {@code table} with its rows counted (and {@code more} aggregates computed) as it is written:
   * {@code observed.get(name)} has them once the write is done, without a job of their own.
   */
  /** The prefix of the files' figure that counts a dimension's values. */
  private static final String DIMENSION_VALUES = "dimension_values_";

  /** The dataset whose write counts the label dimensions' values. */
  private static final String LABELS_COUNTED_IN = "host_stacks";

  /**
   * From how many values of a dimension the summary warns: its per-host rows are then nearly per
   * file.
   */
  static final long MANY_DIMENSION_VALUES = 1000;

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
      Dimensions dimensions,
      long started) {
    Map<String, Object> files = metrics(observed.get("files"));
    Map<String, Long> dimensionValues = new LinkedHashMap<>();
    Map<String, Object> labelled =
        dimensions.labels().isEmpty() ? Map.of() : metrics(observed.get(LABELS_COUNTED_IN));
    for (int i = 0; i < dimensions.names().size(); i++) {
      Object n = (dimensions.isLabel(i) ? labelled : files).get(DIMENSION_VALUES + i);
      dimensionValues.put(dimensions.names().get(i), n == null ? 0 : ((Number) n).longValue());
    }
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
        measures,
        dimensionValues,
        null);
  }

  /** This summary with the symbolization report. */
  FleetSummary withSymbolization(String report) {
    return new FleetSummary(
        files,
        records,
        totalCount,
        filesWithProblems,
        bytes,
        rowsWritten,
        dates,
        millis,
        output,
        measures,
        dimensionValues,
        report);
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
  void print(FleetAggregate.Args args) {
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
    if (!s.dimensionValues().isEmpty()) {
      line.append(String.format("%n  dimensions %s", describeDimensions(s.dimensionValues())));
    }
    line.append(
        String.format(
            "%n  rows written %s under %s in %.1f s",
            s.rowsWritten(), s.output(), s.millis() / 1000.0));
    // On stdout, once: the console shows the log's INFO lines too, and a summary printed twice
    // reads as two runs. The log file gets it at DEBUG.
    LOG.debug(line.toString());
    System.out.println(line);
    if (symbolization != null) {
      LOG.debug("fleet-aggregate: {}", symbolization);
      System.out.println("fleet-aggregate: " + symbolization);
    }
  }

  /**
   * The dimensions and their numbers of values ({@code service: 3 values}), and a warning for each
   * with {@link #MANY_DIMENSION_VALUES} or more: the per-host datasets have a row per value.
   */
  static String describeDimensions(Map<String, Long> values) {
    StringBuilder out = new StringBuilder();
    List<String> many = new ArrayList<>();
    for (Map.Entry<String, Long> d : values.entrySet()) {
      out.append(out.length() == 0 ? "" : ", ")
          .append(
              String.format(
                  "%s: %,d value%s", d.getKey(), d.getValue(), d.getValue() == 1 ? "" : "s"));
      if (d.getValue() >= MANY_DIMENSION_VALUES) {
        many.add(d.getKey());
      }
    }
    for (String d : many) {
      out.append(
          String.format(
              "%n  warning: dimension %s has %,d values or more: host_stacks/, modules/ and files/"
                  + " have a row per host, value and stack, nearly one per file; if it is not a"
                  + " dimension to slice by, --drop-dimension %s sums over it",
              d, MANY_DIMENSION_VALUES, d));
    }
    return out.toString();
  }

  /** How the summary names a share of no name at all ({@code name_source} null). */
  static final String UNNAMED = "none";

  /** At most this many modules are listed in each part of the report. */
  private static final int MODULES_LISTED = 20;

  /** The rows of formats whose frames are looked up in binaries at all. */
  private static Column symbolizedFormats() {
    Column keep = col("format").isNotNull();
    for (ProfileFormat f : ProfileFormats.ALL) {
      if (f.frameAddresses() == FrameAddresses.NOT_SYMBOLIZED) {
        keep = keep.and(col("format").notEqual(f.name()));
      }
    }
    return keep;
  }

  /** Why some formats' frames are never named ({@code " (DCPI images are not symbolized)"}). */
  private static String notSymbolizedNote() {
    List<String> why = new ArrayList<>();
    for (ProfileFormat f : ProfileFormats.ALL) {
      if (f.frameAddresses() == FrameAddresses.NOT_SYMBOLIZED) {
        why.add(f.whyNotSymbolized());
      }
    }
    return why.isEmpty() ? "" : " (" + String.join("; ", why) + ")";
  }

  /**
   * How much of the run has names: locations symbolized; per module the locations left unnamed with
   * the reason; and per module, the share of its CPU time (the time of which its locations are the
   * leaf) named from each source, and what would name the rest better (a debug file, a build ID, a
   * debuginfod server, the binary itself). A missing binary never fails the job.
   *
   * @param symbols the run's distinct locations with their names ({@link Symbolization#SYMBOLIZED})
   * @param locations the run's locations with their measures (columns format, module, offset,
   *     measure, self_value), whose CPU time weighs the names
   */
  static String symbolizationReport(Dataset<Row> symbols, Dataset<Row> locations) {
    // One query: per module and name source, its locations, how many got names, why the others did
    // not, what would name them better, and the CPU time they are the leaf of. Both sides of its
    // join have a row per location: shuffled, not broadcast (a broadcast is a Spark job of its
    // own).
    Dataset<Row> cpu =
        locations
            .where(col("measure").equalTo(lit(Measures.CPU)).and(col("self_value").isNotNull()))
            .groupBy(
                col("format").as("c_format"),
                col("module").as("c_module"),
                col("offset").as("c_offset"))
            .agg(sum("self_value").as("cpu"))
            .hint("shuffle_hash");
    List<Row> groups =
        symbols
            .where(symbolizedFormats())
            .join(
                cpu,
                col("format")
                    .equalTo(col("c_format"))
                    .and(col("module").eqNullSafe(col("c_module")))
                    .and(col("offset").equalTo(col("c_offset"))),
                "left")
            .groupBy("module", "name_source")
            .agg(
                count(lit(1)).as("n"),
                count(col("lines")).as("named"),
                sum("cpu").as("cpu"),
                expr("min(CASE WHEN lines IS NULL THEN problem END)").as("problem"),
                expr("min(remedy)").as("remedy"))
            .collectAsList();
    Map<String, ModuleNames> byModule = new java.util.HashMap<>();
    long all = 0;
    long named = 0;
    for (Row g : groups) {
      String module = g.isNullAt(0) ? null : g.getString(0);
      ModuleNames m = byModule.computeIfAbsent(module, ModuleNames::new);
      m.add(
          g.isNullAt(1) ? UNNAMED : g.getString(1),
          g.getLong(2),
          g.getLong(3),
          g.isNullAt(4) ? BigDecimal.ZERO : g.getDecimal(4),
          g.isNullAt(5) ? null : g.getString(5),
          g.isNullAt(6) ? null : g.getString(6));
      all += g.getLong(2);
      named += g.getLong(3);
    }
    StringBuilder sb =
        new StringBuilder(
            String.format("symbolized %d of %d locations%s", named, all, notSymbolizedNote()));
    List<ModuleNames> unnamed = new ArrayList<>(byModule.values());
    unnamed.removeIf(m -> m.locations == m.named);
    unnamed.sort(
        java.util.Comparator.comparingLong((ModuleNames m) -> m.locations - m.named).reversed());
    for (ModuleNames m : unnamed.subList(0, Math.min(MODULES_LISTED, unnamed.size()))) {
      sb.append(
          String.format(
              "%n  unnamed: %d locations in %s: %s", m.locations - m.named, m.label(), m.problem));
    }
    sb.append(namesOfCpuTime(new ArrayList<>(byModule.values())));
    return sb.toString();
  }

  /**
   * The report's part on CPU time: per module with any (heaviest first), its CPU time, its share of
   * the run's, and the share of it each name source named; where some of it has no DWARF names,
   * what would give them.
   */
  private static String namesOfCpuTime(List<ModuleNames> modules) {
    modules.removeIf(m -> m.cpu().signum() == 0);
    if (modules.isEmpty()) {
      return "";
    }
    modules.sort(
        java.util.Comparator.comparing(ModuleNames::cpu)
            .reversed()
            .thenComparing(ModuleNames::label));
    BigDecimal total = BigDecimal.ZERO;
    for (ModuleNames m : modules) {
      total = total.add(m.cpu());
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                "%n  names of the CPU time, per module (the time its code is the leaf of), by"
                    + " source: %s, %s (unnamed)",
                String.join(" > ", Symbolization.SOURCES_BY_TRUST), UNNAMED));
    for (ModuleNames m : modules.subList(0, Math.min(MODULES_LISTED, modules.size()))) {
      sb.append(
          String.format(
              "%n    %s %s s (%s): %s",
              m.label(),
              m.cpu().movePointLeft(9).setScale(3, java.math.RoundingMode.HALF_UP).toPlainString(),
              percent(m.cpu(), total),
              m.shares()));
      String better = m.better();
      if (better != null) {
        sb.append("; ").append(better);
      }
    }
    if (modules.size() > MODULES_LISTED) {
      BigDecimal rest = BigDecimal.ZERO;
      for (ModuleNames m : modules.subList(MODULES_LISTED, modules.size())) {
        rest = rest.add(m.cpu());
      }
      sb.append(
          String.format(
              "%n    ... %d more modules (%s)",
              modules.size() - MODULES_LISTED, percent(rest, total)));
    }
    return sb.toString();
  }

  /** {@code part} as a percentage of {@code whole}, one decimal ({@code <0.1%} when not 0). */
  static String percent(BigDecimal part, BigDecimal whole) {
    if (whole.signum() == 0) {
      return "?%";
    }
    BigDecimal p = part.movePointRight(2).divide(whole, 1, java.math.RoundingMode.HALF_UP);
    return p.signum() == 0 && part.signum() != 0 ? "<0.1%" : p.toPlainString() + "%";
  }

  /** What the report gathers of one module. */
  private static final class ModuleNames {
    final String module;
    long locations;
    long named;
    String problem;
    String remedy;
    final Map<String, BigDecimal> cpuBySource = new TreeMap<>();

    ModuleNames(String module) {
      this.module = module;
    }

    void add(String source, long n, long named, BigDecimal cpu, String problem, String remedy) {
      locations += n;
      this.named += named;
      cpuBySource.merge(source, cpu, BigDecimal::add);
      if (problem != null && (this.problem == null || problem.compareTo(this.problem) < 0)) {
        this.problem = problem;
      }
      if (remedy != null && (this.remedy == null || remedy.compareTo(this.remedy) < 0)) {
        this.remedy = remedy;
      }
    }

    String label() {
      return module == null
          ? "(no module)"
          : module.isEmpty() ? dev.fleetprof.output.Frame.ANONYMOUS : module;
    }

    BigDecimal cpu() {
      BigDecimal t = BigDecimal.ZERO;
      for (BigDecimal v : cpuBySource.values()) {
        t = t.add(v);
      }
      return t;
    }

    /** e.g. {@code dynsym 62.5%, cfi 25.0%, none 12.5%}: the sources in order of trust. */
    String shares() {
      BigDecimal all = cpu();
      List<String> out = new ArrayList<>();
      List<String> order = new ArrayList<>(Symbolization.SOURCES_BY_TRUST);
      order.add(UNNAMED);
      for (String source : cpuBySource.keySet()) {
        if (!order.contains(source)) {
          order.add(source);
        }
      }
      for (String source : order) {
        BigDecimal v = cpuBySource.get(source);
        if (v != null && v.signum() != 0) {
          out.add(source + " " + percent(v, all));
        }
      }
      return String.join(", ", out);
    }

    /**
     * What would name the part of the module's CPU time that has no DWARF-grade names (names from a
     * symbol table or a boundary, or none), when some has: the remedy the symbolizer gave, else why
     * locations stayed unnamed; null when all of it is named by DWARF or the profile.
     */
    String better() {
      boolean weak = false;
      for (Map.Entry<String, BigDecimal> e : cpuBySource.entrySet()) {
        if (e.getValue().signum() != 0
            && !e.getKey().equals("dwarf")
            && !e.getKey().equals(Symbolization.PROFILE)) {
          weak = true;
        }
      }
      if (!weak) {
        return null;
      }
      if (remedy != null) {
        return remedy;
      }
      BigDecimal none = cpuBySource.get(UNNAMED);
      return none != null && none.signum() != 0 ? problem : null;
    }
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
