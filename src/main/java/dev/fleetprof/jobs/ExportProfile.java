package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import dev.fleetprof.output.ValueMeaning;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Exports one aggregate of the fleet job's output (a date, a host on a date, or the difference of
 * two dates) as pprof {@code profile.proto}, folded stacks or a flame graph page, for the tools
 * people already use: {@code go tool pprof -http=: day.pb.gz}.
 */
public final class ExportProfile {
  private ExportProfile() {}

  /** The job's arguments. */
  record Args(
      String from,
      LocalDate date,
      String host,
      LocalDate base,
      String format,
      String measure,
      StandardOutputs.Targets targets,
      Map<String, String> dimensions,
      boolean labels) {
    /**
     * Whether the export reads the per-host rows ({@code host_stacks/}), whose samples then carry
     * their host and dimensions as labels.
     */
    boolean perHost() {
      return host != null || !dimensions.isEmpty() || labels;
    }

    /** A command line's arguments, or an IllegalArgumentException saying what is wrong with it. */
    static Args parse(String[] argv) {
      return CommandLines.parse(new Options(), argv);
    }
  }

  /** The command line (see {@code --help}). */
  @Command(
      name = "export-profile",
      sortOptions = false,
      customSynopsis = {
        "export-profile --from DIR --date YYYY-MM-DD [--host H] [--dimension KEY=VALUE ...]",
        "                      [--labels] [--base YYYY-MM-DD] [--measure M] [--format F]",
        "                      (--pprof FILE | --folded FILE | --flamegraph FILE)..."
      },
      description =
          "Reads the fleet job's output (--from, its --output) and writes one aggregate:"
              + " a date, a host on a date, or the difference of two dates, as pprof profile.proto,"
              + " folded stacks or a flame graph page (at least one of --pprof, --folded,"
              + " --flamegraph).",
      optionListHeading = "%nOptions:%n")
  static final class Options implements CommandLines.Options<Args> {
    @Option(
        names = "--from",
        paramLabel = "DIR",
        required = true,
        description = "the fleet job's output")
    private String from;

    @Option(names = "--date", paramLabel = "YYYY-MM-DD", required = true, description = "the day")
    private LocalDate date;

    @Option(
        names = "--host",
        paramLabel = "H",
        description = "only this host's stacks (from host_stacks/)")
    private String host;

    private final Map<String, String> dimensions = new java.util.TreeMap<>();

    @Option(
        names = "--dimension",
        paramLabel = "KEY=VALUE",
        converter = SqlCommand.Assignment.Parser.class,
        description =
            "only the stacks whose dimension KEY (a KEY=VALUE directory level of the"
                + " profiles, e.g. service=api) is VALUE (repeatable; from host_stacks/)")
    private void dimension(SqlCommand.Assignment a) {
      dimensions.put(a.name(), a.value());
    }

    @Option(
        names = "--labels",
        description =
            "read every host's stacks (host_stacks/) so that each pprof sample carries its host"
                + " and dimensions as labels (go tool pprof -tagfocus=service=api); exports of"
                + " --host or --dimension always do")
    private boolean labels;

    @Option(
        names = "--base",
        paramLabel = "YYYY-MM-DD",
        description =
            "the difference DATE - BASE, BASE scaled to DATE's total samples so that"
                + " only shifts in where time goes show (pprof only: folded stacks and flame graphs"
                + " cannot show negative weights)")
    private LocalDate base;

    @Option(
        names = "--measure",
        paramLabel = "M",
        defaultValue = Measures.CPU,
        description =
            "what to export (the measure column): cpu (default: CPU time of every format's"
                + " CPU samples, in nanoseconds), calls, executions, or a DCPI event such as"
                + " cycles")
    private String measure;

    @Option(
        names = "--format",
        paramLabel = "F",
        converter = CommandLines.FormatName.class,
        completionCandidates = CommandLines.FormatName.class,
        description = "only this format's rows: ${COMPLETION-CANDIDATES} (default: all)")
    private String format;

    @Option(
        names = "--pprof",
        paramLabel = "FILE",
        description = "write a gzipped pprof profile.proto (go tool pprof FILE)")
    private String pprof;

    @Option(
        names = "--folded",
        paramLabel = "FILE",
        description = "write folded stacks (FlameGraph, speedscope)")
    private String folded;

    @Option(
        names = "--flamegraph",
        paramLabel = "FILE",
        description = "write a flame graph page (HTML)")
    private String flamegraph;

    @Override
    public Args args() {
      StandardOutputs.Targets targets = new StandardOutputs.Targets(pprof, folded, flamegraph);
      if (!targets.any()) {
        throw new IllegalArgumentException(
            "an output file is required: --pprof, --folded or" + " --flamegraph");
      }
      if (base != null && (folded != null || flamegraph != null)) {
        throw new IllegalArgumentException("a difference (--base) can only be written as --pprof");
      }
      return new Args(
          from, date, host, base, format, measure, targets, Map.copyOf(dimensions), labels);
    }
  }

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(new Options(), argv, System.out, System.err, ExportProfile::run));
  }

  static void run(SparkSession spark, Args args) throws IOException {
    // The stacks and their names from one look at the pointers: the same run of each date.
    FleetOutput.Published published = FleetOutput.published(spark, args.from());
    Dataset<Row> table =
        published
            .read(args.perHost() ? "host_stacks" : "stacks")
            .where(col("measure").equalTo(args.measure()));
    if (args.perHost()) {
      table = FleetViews.withDimensions("host_stacks", table);
    }
    if (!args.dimensions().isEmpty()) {
      FleetViews.checkDimensions(
          args.dimensions(),
          List.of(published.read("files"), published.read("modules")),
          (key, value) -> "--dimension " + key + "=" + value + ":");
      table =
          table.where(
              org.apache.spark.sql.functions.expr(
                  SqlVariables.dimensionPredicate(new java.util.TreeMap<>(args.dimensions()))));
    }
    if (args.format() != null) {
      table = table.where(col("format").equalTo(args.format()));
    }
    if (args.host() != null) {
      table = table.where(col("host").equalTo(args.host()));
    }
    Dataset<Row> day = table.where(col("date").equalTo(lit(args.date())));
    ValueMeaning meaning = meaningOf(day, args.measure());
    String title =
        "fleetprof: "
            + args.measure()
            + (args.format() != null ? " (" + args.format() + ")" : "")
            + " "
            + args.date()
            + (args.host() != null ? " host " + args.host() : "")
            + dimensionsTitle(args.dimensions());
    // The measure's value (CPU time in nanoseconds, calls, events): what adds up across profiles
    // sampled at different rates.
    // Per-host rows: each sample labelled with its host and dimensions.
    String labels =
        "filter(concat(array(named_struct('key', 'host', 'value', host)), CAST("
            + Dimensions.COLUMN
            + " AS "
            + Dimensions.TYPE
            + ")), l -> l.value IS NOT NULL) AS "
            + StandardOutputs.LABELS;
    List<String> columns = new java.util.ArrayList<>(List.of("format", "frames"));
    if (args.perHost()) {
      columns.add(labels);
    }
    Dataset<Row> aggregate =
        day.selectExpr(concat(columns, "value AS count").toArray(new String[0]));
    if (args.base() != null) {
      Dataset<Row> base = table.where(col("date").equalTo(lit(args.base())));
      BigDecimal dayTotal = total(day);
      BigDecimal baseTotal = total(base);
      if (baseTotal.signum() == 0) {
        throw new IllegalArgumentException("the base date " + args.base() + " has no such stacks");
      }
      // Base counts scaled to the day's total, negated: the sum per stack is the day's count minus
      // what the base would have given it on a fleet of the day's size.
      String scale = dayTotal.toPlainString() + "BD / " + baseTotal.toPlainString() + "BD";
      aggregate =
          aggregate.union(
              base.selectExpr(
                  concat(columns, "CAST(round(-value * " + scale + ") AS DECIMAL(38,0)) AS count")
                      .toArray(new String[0])));
      title += " minus " + args.base() + " (scaled by " + scale.replace("BD", "") + ")";
    }
    StandardOutputs.write(
        spark,
        aggregate,
        symbols(published, args),
        meaning,
        args.targets(),
        new StandardOutputs.Labels(
            // pprof's "File:" line: the output exported and the day, not one program of many
            FleetSummary.fleetName(List.of(args.from()))
                + " "
                + args.date()
                + (args.host() != null ? " host " + args.host() : "")
                + dimensionsTitle(args.dimensions()),
            title,
            null));
  }

  /**
   * The names the fleet job gave the locations of the dates written ({@code locations/}'s {@code
   * lines} and {@code name_source}, null in an output written before it was recorded), or null for
   * an output written before it symbolized.
   */
  private static Dataset<Row> symbols(FleetOutput.Published published, Args args)
      throws IOException {
    Dataset<Row> locations = published.read("locations");
    if (!java.util.Arrays.asList(locations.columns()).contains("lines")) {
      return null;
    }
    Column dates = col("date").equalTo(lit(args.date()));
    if (args.base() != null) {
      dates = dates.or(col("date").equalTo(lit(args.base())));
    }
    return locations
        .where(args.format() == null ? dates : dates.and(col("format").equalTo(args.format())))
        .select(
            col("format"),
            col("module"),
            col("offset"),
            col("lines"),
            java.util.Arrays.asList(locations.columns()).contains("name_source")
                ? col("name_source")
                : lit(null).cast("string").as("name_source"))
        .dropDuplicates("format", "module", "offset");
  }

  /**
   * A measure's one unit in the rows (a measure has one unit; rows of none: nanoseconds for cpu,
   * else count), as the outputs label their values.
   */
  private static ValueMeaning meaningOf(Dataset<Row> rows, String measure) {
    List<Row> units = rows.select("unit").distinct().collectAsList();
    if (units.size() > 1) {
      throw new IllegalStateException(
          "measure " + measure + " has several units in the output: " + units);
    }
    String unit =
        units.isEmpty()
            ? (Measures.CPU.equals(measure) ? "nanoseconds" : "count")
            : units.get(0).getString(0);
    return ValueMeaning.counts(measure, unit);
  }

  /** {@code " service=api version=4.12.1"}: the filters, for titles. */
  private static String dimensionsTitle(Map<String, String> dimensions) {
    StringBuilder out = new StringBuilder();
    new java.util.TreeMap<>(dimensions).forEach((k, v) -> out.append(' ').append(k + "=" + v));
    return out.toString();
  }

  private static List<String> concat(List<String> columns, String last) {
    List<String> out = new java.util.ArrayList<>(columns);
    out.add(last);
    return out;
  }

  private static BigDecimal total(Dataset<Row> stacks) {
    Row r = stacks.selectExpr("sum(value)").first();
    return r.isNullAt(0) ? BigDecimal.ZERO : r.getDecimal(0);
  }
}
