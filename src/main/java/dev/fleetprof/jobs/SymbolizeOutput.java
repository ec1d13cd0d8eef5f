package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Late binaries: (re)symbolizes the dates of an existing fleet-job output, for binaries that arrive
 * after the profiles (a release's debug files uploaded a day later, say). Reads the dates' {@code
 * locations/} and {@code stacks/}, symbolizes their distinct locations again (but for those a pprof
 * profile named itself, {@code name_source = 'profile'}, whose names stay) and rewrites {@code
 * locations/} (its {@code lines} and {@code name_source}) and {@code functions/} for exactly those
 * dates, with the fleet job's dynamic partition overwrite: idempotent per date, other dates
 * untouched.
 */
public final class SymbolizeOutput {
  private static final Logger LOG = LoggerFactory.getLogger(SymbolizeOutput.class);

  private SymbolizeOutput() {}

  /** The job's arguments. */
  record Args(
      String output,
      List<String> binaries,
      List<LocalDate> dates,
      boolean useModulePaths,
      List<String> debuginfod,
      String debuginfodCache) {
    /** A command line's arguments, or an IllegalArgumentException saying what is wrong with it. */
    static Args parse(String[] argv) {
      return CommandLines.parse(new Options(), argv);
    }

    /** Where to find binaries: the options, and the servers of {@code DEBUGINFOD_URLS}. */
    Symbolization.Options symbolization() {
      return Symbolization.Options.ofJob(binaries, useModulePaths, debuginfod, debuginfodCache);
    }
  }

  /** The command line (see {@code --help}). */
  @Command(
      name = "symbolize",
      sortOptions = false,
      description =
          "Names the frames of a fleet-aggregate output again, with binaries found since:"
              + " rewrites the lines and name_source of locations/ and the functions/ dataset"
              + " for the dates given (default: every date); names a pprof file gave its own"
              + " locations stay.",
      optionListHeading = "%nOptions:%n")
  static final class Options implements CommandLines.Options<Args> {
    @Option(
        names = "--output",
        paramLabel = "DIR",
        required = true,
        description = "the fleet job's output")
    private String output;

    @Option(
        names = "--binaries",
        paramLabel = "DIR",
        description =
            "where to find the profiled binaries (repeatable), searched as"
                + " fleet-aggregate's --binaries (see jobs/fleet-aggregate --help)")
    private List<String> binaries = new ArrayList<>();

    @Option(
        names = "--date",
        paramLabel = "YYYY-MM-DD",
        description = "a date to symbolize again (repeatable; default: every date)")
    private List<LocalDate> dates = new ArrayList<>();

    @Option(
        names = "--no-module-paths",
        description = "do not fall back to the modules' own paths on this machine")
    private boolean noModulePaths;

    @Mixin
    private Symbolization.DebuginfodOptions debuginfod = new Symbolization.DebuginfodOptions();

    @Override
    public Args args() {
      return new Args(
          output,
          List.copyOf(binaries),
          List.copyOf(dates),
          !noModulePaths,
          debuginfod.servers(),
          debuginfod.cache());
    }
  }

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(new Options(), argv, System.out, System.err, SymbolizeOutput::run));
  }

  static void run(SparkSession spark, Args args) throws IOException {
    long started = System.nanoTime();
    // The dates as published (one run each), whatever runs meanwhile.
    FleetOutput.Published published = FleetOutput.published(spark, args.output());
    Dataset<Row> locations = published.read("locations");
    Dataset<Row> stacks = published.read("stacks");
    if (!args.dates().isEmpty()) {
      Column in = lit(false);
      for (LocalDate d : args.dates()) {
        in = in.or(col("date").equalTo(lit(d)));
      }
      locations = locations.where(in);
      stacks = stacks.where(in);
    }
    List<Object> dates = new ArrayList<>();
    for (Row r : locations.select("date").distinct().collectAsList()) {
      dates.add(r.get(0));
    }
    if (dates.isEmpty()) {
      throw new IllegalArgumentException(
          "no dates to symbolize in "
              + args.output()
              + "/locations"
              + (args.dates().isEmpty() ? "" : " for " + args.dates()));
    }
    // The names pprof profiles gave their own locations stay (no binary is needed for them);
    // every other location is looked up again. An output written before name_source was recorded
    // cannot tell them apart: all its locations are looked up.
    Dataset<Row> looked = locations;
    Dataset<Row> kept = null;
    if (java.util.Arrays.asList(locations.columns()).contains("name_source")) {
      kept =
          locations
              .where(col("name_source").eqNullSafe(lit(Symbolization.PROFILE)))
              .dropDuplicates("format", "module", "offset")
              .selectExpr(
                  "format",
                  "module",
                  "offset",
                  "lines",
                  "CAST(NULL AS STRING) AS problem",
                  "name_source",
                  "CAST(NULL AS STRING) AS remedy");
      // As in the fleet job: a location a profile names is not looked up, on any date.
      looked = Symbolization.notNamedBy(locations, kept);
    }
    Dataset<Row> unnamed = locations.drop("lines", "name_source");
    Dataset<Row> found = Symbolization.symbolize(spark, looked, args.symbolization());
    Dataset<Row> symbols =
        (kept == null ? found : found.unionByName(kept)).persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> newLocations =
        FleetStages.joinLines(unnamed, symbols).persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> newFunctions =
        FleetStages.functions(stacks, symbols).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long l = newLocations.count();
      long f = newFunctions.count();
      String report = FleetSummary.symbolizationReport(symbols, unnamed);
      List<String> rewritten = List.of("locations", "functions");
      String run = FleetOutput.newRunId();
      Path out = new Path(args.output());
      try (DateLease lease = FleetOutput.beginDates(spark, args.output(), rewritten, dates)) {
        lease.check();
        FleetOutput.write(newLocations, out, "locations", run);
        lease.check();
        FleetOutput.write(newFunctions, out, "functions", run);
        lease.check();
        Map<String, StructType> written = new LinkedHashMap<>();
        written.put("locations", FleetOutput.writtenSchema(newLocations));
        written.put("functions", FleetOutput.writtenSchema(newFunctions));
        FleetOutput.commitDates(
            spark, args.output(), written, dates, run, FleetOutput.KEEP_REPLACED);
      }
      FleetOutput.sweepOtherDates(spark, args.output(), FleetOutput.KEEP_REPLACED);
      String line =
          String.format(
              "symbolize: dates %s: %d locations, %d functions rewritten under"
                  + " %s in %.1f s; %s",
              dates.stream().map(String::valueOf).sorted().toList(),
              l,
              f,
              args.output(),
              (System.nanoTime() - started) / 1e9,
              report);
      LOG.info(line);
      System.out.println(line);
    } finally {
      newFunctions.unpersist();
      newLocations.unpersist();
      symbols.unpersist();
    }
  }
}
