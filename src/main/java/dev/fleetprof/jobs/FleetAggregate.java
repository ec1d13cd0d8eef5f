package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;

import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.spark.ReadOptions;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The scheduled fleet aggregation job: a day of profiles from many hosts in, Parquet tables that
 * say where the fleet's CPU went out. Reads profile directories laid out like {@code
 * .../date=2026-11-20/host=web042/cpu.prof} (key=value directories become columns; plain
 * directories work too) and writes, under {@code --output}, datasets partitioned by {@code date}:
 * {@code stacks/}, {@code host_stacks/}, {@code locations/}, {@code modules/} and {@code files/}
 * (see {@code --help} and the README for their columns).
 *
 * <p>Idempotent by day: each dataset is written with dynamic partition overwrite, so re-running a
 * date replaces exactly that date's partitions and leaves the other dates alone; Spark stages the
 * new files and only swaps a partition in when the write commits, so a run that dies leaves the
 * previous output of its date in place.
 *
 * <p>Run locally with {@code jobs/fleet-aggregate}, or on a cluster with {@code spark-submit
 * --class dev.fleetprof.jobs.FleetAggregate target/fleetprof-*.jar}.
 */
public final class FleetAggregate {
  private static final Logger LOG = LoggerFactory.getLogger(FleetAggregate.class);

  /**
   * Counts are unsigned 64-bit values in a bigint; summed as DECIMAL(38,0) they can neither
   * overflow (ANSI mode would fail the job) nor turn negative.
   */
  static final String UNSIGNED_COUNT = unsigned("count");

  /** A bigint column read as an unsigned 64-bit value, as DECIMAL(38,0). */
  static String unsigned(String column) {
    return "CASE WHEN "
        + column
        + " >= 0 THEN CAST("
        + column
        + " AS DECIMAL(38,0)) ELSE CAST("
        + column
        + " AS DECIMAL(38,0)) + 18446744073709551616 END";
  }

  /** The job's arguments. */
  record Args(
      List<String> inputs,
      String output,
      LocalDate date,
      String pprof,
      String folded,
      String flamegraph,
      String format,
      String glob,
      String mode,
      List<String> binaries,
      String gmonBinary,
      boolean useModulePaths,
      Map<String, Long> effectivePeriods,
      java.time.Duration keepReplaced,
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
      name = "fleet-aggregate",
      sortOptions = false,
      customSynopsis = {
        "fleet-aggregate --input DIR [--input DIR ...] --output DIR [--date YYYY-MM-DD]",
        "                       [--pprof FILE] [--folded FILE] [--flamegraph FILE] [options]"
      },
      description = {
        "Reads every profile under the inputs (gperftools, gprof, DCPI, pprof; on any Hadoop"
            + " FileSystem: file:, hdfs://, s3a://). Directories named key=value"
            + " (date=2026-11-20/host=web042/) become columns. Writes Parquet datasets under"
            + " --output, each partitioned by date (re-running a date replaces exactly that"
            + " date's partitions):",
        "  stacks/       format, kind, measure, unit, period, period_unit, value_per_count,"
            + " frames -> count, value, records, profiles, hosts",
        "  host_stacks/  the same per host",
        "  locations/    format, kind, measure, unit, module, offset"
            + " -> self_count/self_value (leaf), total_count/total_value (on stack),",
        "                lines (the inline chain: function, file, line, symbol; innermost first)",
        "  functions/    format, kind, measure, unit, module, function"
            + " -> self_count, total_count, self_value, total_value (as pprof -top)",
        "  modules/      host, format, kind, measure, unit, module -> the same",
        "  files/        host, path, format -> records, count, cpu_nanoseconds, stacks, problems,"
            + " problem",
        "A count is what a profile counted (samples, calls, events); measure and unit say what it"
            + " stands for and value is the measure: cpu (nanoseconds: samples x period, for"
            + " gperftools samples and gprof histograms alike; a Go CPU profile's cpu value), calls,"
            + " executions, a DCPI event (e.g. cycles), or a pprof sample type (inuse_space,"
            + " contentions, ...). Counts and values are DECIMAL(38,0). Frames are (module, offset in"
            + " the module's file), leaf first; as in pprof, caller frames of CPU samples hold the"
            + " return address minus one (the call instruction)."
      },
      optionListHeading = "%nOptions:%n",
      footerHeading = "%n",
      footer = {
        "Local runs: jobs/fleet-aggregate, which reads sample-data and writes"
            + " target/fleet-output when --input or --output is not given; Spark settings in"
            + " conf/spark-defaults.conf. On a cluster: spark-submit --class"
            + " dev.fleetprof.jobs.FleetAggregate target/fleetprof-*.jar with the same options"
            + " (--input and --output required)."
      })
  static final class Options implements CommandLines.Options<Args> {
    @Option(
        names = "--input",
        paramLabel = "DIR",
        required = true,
        description = "a directory, file or glob of profiles (repeatable)")
    private List<String> inputs;

    @Option(
        names = "--output",
        paramLabel = "DIR",
        required = true,
        description = "where the datasets go")
    private String output;

    @Option(
        names = "--date",
        paramLabel = "YYYY-MM-DD",
        description =
            "the day to aggregate: with date= directories, only that day's are read;"
                + " without, every profile counts for that day. Default: the date= directories'"
                + " dates, or today when there are none")
    private LocalDate date;

    @Option(
        names = "--pprof",
        paramLabel = "FILE",
        description =
            "also write this run's CPU time (the CPU samples of every format, in nanoseconds)"
                + " as a gzipped pprof profile.proto (go tool pprof FILE)")
    private String pprof;

    @Option(
        names = "--folded",
        paramLabel = "FILE",
        description = "... as folded stacks (FlameGraph, speedscope)")
    private String folded;

    @Option(
        names = "--flamegraph",
        paramLabel = "FILE",
        description = "... as a flame graph page (HTML)")
    private String flamegraph;

    @Option(
        names = "--binaries",
        paramLabel = "DIR",
        description =
            "where to find the profiled binaries for names (repeatable; any Hadoop"
                + " FileSystem), searched like pprof's PPROF_BINARY_PATH: DIR/<build-id>/...,"
                + " DIR/<module's full path>, DIR/<module's file name>; then the module's own path on"
                + " this machine. Separate debug files are found by build ID"
                + " (DIR/.build-id/xx/rest.debug) or by their debug link (.gnu_debuglink). Missing"
                + " binaries leave frames unnamed and are listed in the summary; they never fail the"
                + " job")
    private List<String> binaries = new ArrayList<>();

    @Option(
        names = "--gmon-binary",
        paramLabel = "PATH",
        description =
            "the program every gmon.out of this run profiled (gmon.out names none;"
                + " without it, a program=NAME directory above the file names it)")
    private String gmonBinary;

    @Option(
        names = "--no-module-paths",
        description = "do not fall back to the modules' own paths on this machine")
    private boolean noModulePaths;

    @Mixin
    private Symbolization.DebuginfodOptions debuginfod = new Symbolization.DebuginfodOptions();

    @Option(
        names = "--effective-period",
        paramLabel = "FORMAT=DURATION",
        description =
            "what one CPU sample of a format really stands for, when it is not the period the"
                + " profile records (repeatable): a gperftools profile asks for 1000 samples per"
                + " second, but the kernel ticks at CONFIG_HZ, so on a 250 Hz kernel each sample"
                + " is 4 ms of CPU: gperftools=4ms. Default: the recorded (nominal) period")
    private List<String> effectivePeriods = new ArrayList<>();

    @Option(
        names = "--keep-replaced",
        paramLabel = "DURATION",
        defaultValue = "1h",
        converter = CommandLines.DurationValue.class,
        description =
            "how long the files of a date's previous run stay once a re-run replaced them, so"
                + " that queries started before finish (default ${DEFAULT-VALUE}; 0 deletes them"
                + " at once). Later runs delete them")
    private java.time.Duration keepReplaced;

    @Option(
        names = "--format",
        paramLabel = "NAME",
        defaultValue = ProfileFormats.AUTO,
        converter = CommandLines.FormatToRead.class,
        completionCandidates = CommandLines.FormatToRead.class,
        description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    private String format;

    @Option(
        names = "--glob",
        paramLabel = "PATTERN",
        description = "only read files whose names match (Spark's pathGlobFilter)")
    private String glob;

    @Option(
        names = "--mode",
        paramLabel = "MODE",
        defaultValue = "PERMISSIVE",
        description =
            "PERMISSIVE (default: bad files are listed in files/ with their problem),"
                + " DROPMALFORMED or FAILFAST")
    private ReadOptions.Mode mode;

    @Override
    public Args args() {
      for (String input : inputs) {
        if (within(output, input)) {
          throw new IllegalArgumentException(
              "--output "
                  + output
                  + " is inside --input "
                  + input
                  + ": every later run would read this run's output as profiles; write it"
                  + " elsewhere");
        }
      }
      return new Args(
          List.copyOf(inputs),
          output,
          date,
          pprof,
          folded,
          flamegraph,
          format,
          glob,
          mode.name(),
          List.copyOf(binaries),
          gmonBinary,
          !noModulePaths,
          Measures.effectivePeriods(effectivePeriods),
          keepReplaced,
          debuginfod.servers(),
          debuginfod.cache());
    }
  }

  /**
   * Whether {@code path} is {@code dir} or below it, compared as normalized absolute paths (local
   * paths made absolute; other file systems by their URI). A glob stands for the directory its
   * literal prefix ends in.
   */
  static boolean within(String path, String dir) {
    String literal = dir.split("[*?\\[{]", 2)[0];
    if (literal.length() < dir.length()) { // a glob: the directory its matches lie in
      literal = literal.substring(0, literal.lastIndexOf('/') + 1);
    }
    return absolute(path).startsWith(absolute(literal.isEmpty() ? "." : literal));
  }

  private static java.nio.file.Path absolute(String path) {
    java.net.URI uri = new org.apache.hadoop.fs.Path(path).toUri();
    if (uri.getScheme() == null || uri.getScheme().equals("file")) {
      return java.nio.file.Path.of(uri.getPath()).toAbsolutePath().normalize();
    }
    // Another file system: its authority and path, as a path under a root of their own.
    return java.nio.file.Path.of(
            "/", uri.getScheme(), String.valueOf(uri.getAuthority()), uri.getPath())
        .normalize();
  }

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(new Options(), argv, System.out, System.err, FleetAggregate::run));
  }

  /**
   * Lets adaptive execution coalesce the shuffle under the persisted aggregates to what the data
   * needs, as it does for any other shuffle. Otherwise they keep all {@code
   * spark.sql.shuffle.partitions} partitions, every write from them makes that many files in each
   * date partition, and every later stage runs that many tasks.
   */
  private static final String COALESCE_CACHED =
      "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning";

  static Summary run(SparkSession spark, Args args) throws IOException {
    // Read when a Dataset is persisted; the caller's session gets its own setting back afterwards.
    String before =
        spark.conf().contains(COALESCE_CACHED) ? spark.conf().get(COALESCE_CACHED) : null;
    spark.conf().set(COALESCE_CACHED, true);
    try {
      return aggregate(spark, args);
    } finally {
      // The run names its jobs for the Spark UI (see aggregate); later jobs of this thread are not.
      spark.sparkContext().setJobDescription(null);
      if (before == null) {
        spark.conf().unset(COALESCE_CACHED);
      } else {
        spark.conf().set(COALESCE_CACHED, before);
      }
    }
  }

  /** The datasets a run writes, in the order it writes them. */
  static final List<String> DATASETS =
      List.of("files", "stacks", "host_stacks", "locations", "modules", "functions");

  private static Summary aggregate(SparkSession spark, Args args) throws IOException {
    // A run for a given date holds it from the start: no other run replaces files this one reads
    // back, and its markers go at once. Without --date the dates come from the data, and are taken
    // once known.
    DateLease early =
        args.date() != null
            ? beginDates(spark, args.output(), DATASETS, List.of(args.date()))
            : null;
    try {
      return aggregate(spark, args, early);
    } finally {
      if (early != null) {
        early.close();
      }
    }
  }

  private static Summary aggregate(SparkSession spark, Args args, DateLease early)
      throws IOException {
    long started = System.nanoTime();
    LOG.info("fleet-aggregate: reading {} -> {}", args.inputs(), args.output());
    DataFrameReader reader =
        spark
            .read()
            .format("profile")
            .option("format", args.format())
            .option("mode", args.mode())
            // Callers at their return address minus one, as pprof names them (see pprofFrames):
            // built by the source with the frames, instead of rebuilding every frame in Spark.
            .option(GperftoolsFormat.CALLER_ADDRESS, "call");
    if (args.glob() != null) {
      reader = reader.option("pathGlobFilter", args.glob());
    }
    Dataset<Row> raw = reader.load(args.inputs().toArray(new String[0]));
    Set<String> columns = Set.of(raw.columns());
    // Each file's size as listed for the read, for the summary's byte count: asking the file
    // system for every file's status afterwards, one call after another on the driver, would be
    // 100,000 requests to an object store at the scale the job is for.
    raw = raw.withColumn(FILE_SIZE, col("_metadata.file_size"));
    if (args.date() != null && columns.contains("date")) {
      // Prunes the other days' directories at planning (the source evaluates partition filters).
      raw = raw.where(col("date").isNull().or(col("date").equalTo(lit(args.date()))));
    }
    Dataset<Row> base =
        Measures.withMeasure(
            pprofFrames(
                raw.withColumn("date", dateOf(columns, args.date()))
                    .withColumn("host", hostOf(columns)),
                columns,
                args.gmonBinary()),
            args.effectivePeriods());
    if (args.date() != null) {
      base = base.where(col("date").equalTo(lit(args.date())));
    }

    // Stacks are keyed by one bigint, stack_key: the source's stack_id (a fingerprint of the frames
    // it decoded) with the program a gprof file's frames are completed with. The frames themselves
    // (about twenty module paths per stack, 250 in deep recursion) are read once more, into the
    // run's dictionary of distinct stacks, and joined back only where an output has them. Before,
    // every record's frames were shuffled, hashed per file and cached with each per-file row: at
    // 100,000 profiles that cache was 16 GB.
    Dataset<Row> keyedBase = base.withColumn("stack_key", stackKeyOf("stack_id", "program_module"));
    Dataset<Row> dictionary =
        persist(
            keyedBase
                .where("kind <> 'error'")
                .select(
                    col("stack_key"),
                    col("format"),
                    col("frames"),
                    // A pprof profile names its own locations: each location's names are taken
                    // once, from the distinct stacks (see profileSymbols).
                    expr("CASE WHEN format = 'pprof' THEN pprof.lines END").as("profile_lines"))
                .distinct());
    Dataset<Row> distinct = persist(dictionary.select("stack_key", "frames").distinct());
    // The Spark UI names the run's jobs by what they compute (else "count at FleetAggregate...").
    spark.sparkContext().setJobDescription("fleet-aggregate: distinct stacks (first pass)");
    // Two different frames under one key would merge two stacks: the keys of the distinct stacks
    // are checked first, and on a collision every level groups by the frames themselves (slower,
    // never wrong).
    long collisions = distinct.groupBy("stack_key").count().where("count > 1").count();
    boolean byKey = collisions == 0;
    if (!byKey) {
      groupByFramesInstead(distinct, collisions, "stack keys are shared by different frames");
    }
    BETWEEN_PASSES.run();
    spark.sparkContext().setJobDescription("fleet-aggregate: stacks per file (second pass)");
    Dataset<Row> fileStacks = persist(fileStacks(keyedBase, byKey ? "stack_key" : "frames"));
    if (byKey) {
      // The two passes read the files twice: a file rewritten in between could give the per-file
      // pass stacks the dictionary lacks, whose rows the joins would drop. The per-file pass
      // alone then decides, grouped by its own frames, as after a collision.
      long missing =
          fileStacks
              .where("kind <> 'error'")
              .select(col("stack_key").as("key"))
              .distinct()
              .join(distinct, col("key").equalTo(distinct.col("stack_key")), "left_anti")
              .count();
      if (missing > 0) {
        groupByFramesInstead(
            distinct,
            missing,
            "stacks of the per-file pass are not among the distinct stacks read before it (input"
                + " files changed during the run)");
        fileStacks.unpersist();
        byKey = false;
        fileStacks = persist(fileStacks(keyedBase, "frames"));
      }
    }
    String stack = byKey ? "stack_key" : "frames";
    spark.sparkContext().setJobDescription("fleet-aggregate: datasets");
    StackLevels levels = stackLevels(fileStacks, stack, byKey ? distinct : null);
    Dataset<Row> hostStacks = levels.hostStacks();
    Dataset<Row> stacks = levels.stacks();
    Dataset<Row> symbols = null;
    Dataset<Row> rawLocations = null;
    try {
      // A location on the stack twice (recursion) counts once. array_distinct over structs
      // compares every pair of frames in interpreted code; distinct offsets (almost every stack)
      // already mean distinct frames, and array_distinct over bigints is a generated hash set.
      // Persisted: the symbolizer's input and the written dataset both come from it, and each
      // would otherwise explode every stack again (on the deep bench fleet, 3 s of task time).
      rawLocations =
          persist(
              stacks
                  .selectExpr(
                      "date",
                      "format",
                      "kind",
                      "measure",
                      "unit",
                      "count",
                      "value",
                      "try_element_at(frames, 1) AS leaf",
                      "explode(IF(size(array_distinct(frames.offset)) = size(frames), frames,"
                          + " array_distinct(frames))) AS frame")
                  .groupBy(
                      "date", "format", "kind", "measure", "unit", "frame.module", "frame.offset")
                  .agg(selfAndTotal("frame = leaf")[0], rest(selfAndTotal("frame = leaf"))));
      // Names: the run's distinct locations, symbolized once each, joined back. Locations a pprof
      // profile names itself keep the profile's names (no binary needed); the rest are looked up.
      Dataset<Row> profileSymbols = profileSymbols(dictionary);
      Dataset<Row> toLookUp =
          rawLocations
              .alias("l")
              .join(
                  profileSymbols.alias("p"),
                  col("l.format")
                      .equalTo(col("p.format"))
                      .and(col("l.module").eqNullSafe(col("p.module")))
                      .and(col("l.offset").equalTo(col("p.offset"))),
                  "left_anti");
      symbols =
          persist(
              Symbolization.symbolize(spark, toLookUp, args.symbolization())
                  .unionByName(profileSymbols));
      Dataset<Row> locations = joinLines(rawLocations, symbols);
      Dataset<Row> functions = functions(stacks, symbols);
      Dataset<Row> modules =
          levels
              .hostModules()
              .selectExpr(
                  "date",
                  "host",
                  "format",
                  "kind",
                  "measure",
                  "unit",
                  "count",
                  "value",
                  "leaf_module",
                  "explode(modules) AS module")
              .groupBy("date", "host", "format", "kind", "measure", "unit", "module")
              .agg(
                  selfAndTotal("module <=> leaf_module")[0],
                  rest(selfAndTotal("module <=> leaf_module")));
      Dataset<Row> files =
          fileStacks
              .groupBy("date", "host", "path", "format")
              .agg(
                  sum(expr("CASE WHEN kind = 'error' THEN 0 ELSE records END")).as("records"),
                  sum("count").cast("decimal(38,0)").as("count"),
                  // null, not 0, for a file with no CPU samples: "none" and "unknown" differ
                  sum(expr("CASE WHEN measure = '" + Measures.CPU + "' THEN value END"))
                      .cast("decimal(38,0)")
                      .as("cpu_nanoseconds"),
                  count(expr("CASE WHEN kind <> 'error' THEN 1 END")).as("stacks"),
                  count(col("error")).as("problems"),
                  expr("min(error)").as("problem"));

      List<Object> dates = new ArrayList<>();
      for (Row r : fileStacks.select("date").distinct().collectAsList()) {
        dates.add(r.get(0));
      }
      Map<String, Dataset<Row>> tables = new LinkedHashMap<>();
      tables.put("files", files);
      tables.put("stacks", stacks);
      tables.put("host_stacks", hostStacks);
      tables.put("locations", locations);
      tables.put("modules", modules);
      tables.put("functions", functions);
      if (!tables.keySet().equals(new java.util.LinkedHashSet<>(DATASETS))) {
        throw new IllegalStateException("datasets " + tables.keySet() + " are not " + DATASETS);
      }
      Summary summary;
      String run = FleetOutput.newRunId();
      try (DateLease lease =
          early != null ? early : beginDates(spark, args.output(), DATASETS, dates)) {
        for (Map.Entry<String, Dataset<Row>> t : tables.entrySet()) {
          lease.check();
          spark.sparkContext().setJobDescription("fleet-aggregate: writing " + t.getKey());
          FleetOutput.write(t.getValue(), new Path(args.output()), t.getKey(), run);
        }
        spark.sparkContext().setJobDescription("fleet-aggregate: summary and profile outputs");
        lease.check();
        commitDates(spark, args.output(), tables.keySet(), dates, run, args.keepReplaced());
        Row read =
            fileStacks
                .groupBy("path")
                .agg(max(FILE_SIZE).as(FILE_SIZE))
                .agg(sum(FILE_SIZE))
                .first();
        long bytes = read.isNullAt(0) ? 0 : read.getLong(0); // null: no files
        summary =
            summarise(
                spark,
                args,
                tables.keySet(),
                dates,
                run,
                started,
                bytes,
                symbolizationReport(symbols));
      }
      sweepOtherDates(spark, args.output(), args.keepReplaced());
      MeasureTotal cpu = summary.measures().get(Measures.CPU);
      StandardOutputs.writeCpuTime(
          spark,
          stacks.where(col("date").isin(dates.toArray())),
          symbols,
          new StandardOutputs.Targets(args.pprof(), args.folded(), args.flamegraph()),
          new StandardOutputs.Labels(
              "fleet " + fleetName(args.inputs()) + " " + String.join(",", summary.dates()),
              String.format(
                  "fleetprof: CPU time of %s on %s: %d of %d files gave CPU samples",
                  String.join(", ", args.inputs()),
                  String.join(", ", summary.dates()),
                  cpu == null ? 0 : cpu.files(),
                  summary.files()),
              periodNote(args.effectivePeriods())));
      return summary;
    } finally {
      if (symbols != null) {
        symbols.unpersist();
      }
      if (rawLocations != null) {
        rawLocations.unpersist();
      }
      for (Dataset<Row> d : levels.persisted()) {
        d.unpersist();
      }
      fileStacks.unpersist();
      distinct.unpersist();
      dictionary.unpersist();
    }
  }

  /**
   * Frames as pprof shows them, so that every dataset and output names a frame the same way and a
   * symbolizer looks up the right instruction: a caller frame of a CPU sample is a return address,
   * so it becomes the return address minus one, inside the call instruction (pprof does the same in
   * {@code legacy_profile.go}); the leaf stays as sampled. The source builds those frames so (read
   * option {@code gperftools.callerAddress=call}): a {@code transform} here rebuilt every frame of
   * every record in interpreted code, a fifth of the first stage's time on the bench fleet (JFR).
   * pprof profiles already hold caller addresses minus one (Go's runtime writes them so), and stay
   * as they are. gmon.out frames have no module: they get the program's name ({@code
   * --gmon-binary}, else a {@code program=NAME} directory), which the symbolizer looks up like any
   * module; their addresses are link-time addresses already.
   */
  private static Dataset<Row> pprofFrames(
      Dataset<Row> rows, Set<String> columns, String gmonBinary) {
    Column program =
        gmonBinary != null
            ? lit(gmonBinary)
            : columns.contains("program")
                ? expr("CAST(program AS STRING)")
                : expr("nullif(regexp_extract(path, '/program=([^/]+)/', 1), '')");
    return rows.withColumn("program_module", program)
        .withColumn(
            "frames",
            expr(
                "CASE"
                    + " WHEN format = 'gprof' THEN transform(frames, f ->"
                    + "   named_struct('module', coalesce(f.module, program_module), 'offset', f.offset))"
                    + " ELSE frames END"))
        // What completed a gprof stack's frames is part of its key (see stackKeyOf).
        .withColumn("program_module", expr("CASE WHEN format = 'gprof' THEN program_module END"));
  }

  /**
   * The locations pprof profiles name themselves (format, module, offset, lines, problem null):
   * each pc's inline chain as the profile gives it, taken once per location.
   */
  static Dataset<Row> profileSymbols(Dataset<Row> fileStacks) {
    return fileStacks
        .where("profile_lines IS NOT NULL")
        .selectExpr(
            "format",
            "explode(zip_with(frames, profile_lines, (f, l) -> named_struct('module', f.module,"
                + " 'offset', f.offset, 'lines', l))) AS z")
        .where("z.lines IS NOT NULL")
        .groupBy(col("format"), col("z.module").as("module"), col("z.offset").as("offset"))
        .agg(expr("first(z.lines)").as("lines"))
        .selectExpr(
            "format",
            "module",
            "offset",
            "CAST(lines AS " + Symbolization.LINES_TYPE.sql() + ") AS lines",
            "CAST(NULL AS STRING) AS problem");
  }

  /** {@code locations} with the inline chain of each location ({@code lines}, null if unknown). */
  static Dataset<Row> joinLines(Dataset<Row> locations, Dataset<Row> symbols) {
    return Symbolization.joinNames(locations, "module", "offset", symbols);
  }

  /**
   * Per function, with {@code pprof -top}'s meaning: {@code self_count} is the weight of the stacks
   * whose leaf's innermost (inlined) function it is, {@code total_count} of the stacks it is
   * anywhere on, inlined frames included, once per stack however often it recurs. A location with
   * no name counts for the function null of its module (pprof shows it as {@code [module]}).
   */
  static Dataset<Row> functions(Dataset<Row> stacks, Dataset<Row> symbols) {
    Dataset<Row> frames =
        stacks
            .withColumn("stack_id", org.apache.spark.sql.functions.monotonically_increasing_id())
            .selectExpr(
                "stack_id",
                "date",
                "format",
                "kind",
                "measure",
                "unit",
                "count",
                "value",
                "posexplode(frames) AS (frame_pos, frame)");
    Column[] sums = selfAndTotal("is_self");
    return Symbolization.joinNames(frames, "frame.module", "frame.offset", symbols)
        .selectExpr(
            "stack_id",
            "date",
            "format",
            "kind",
            "measure",
            "unit",
            "count",
            "value",
            "frame_pos",
            "frame.module AS module",
            "posexplode(coalesce(lines.function, array(CAST(NULL AS STRING))))"
                + " AS (line_pos, function)")
        .groupBy("stack_id", "date", "format", "kind", "measure", "unit", "module", "function")
        .agg(
            expr("max(frame_pos = 0 AND line_pos = 0)").as("is_self"),
            expr("first(count)").as("count"),
            expr("first(value)").as("value"))
        .groupBy("date", "format", "kind", "measure", "unit", "module", "function")
        .agg(sums[0], rest(sums));
  }

  /**
   * How much of the run has names: locations symbolized, and per module the locations left unnamed
   * with the reason, for the summary (a missing binary never fails the job).
   */
  static String symbolizationReport(Dataset<Row> symbols) {
    Dataset<Row> candidates = symbols.where(col("format").notEqual("dcpi"));
    Row all = candidates.agg(count(lit(1)), count(col("lines"))).first();
    StringBuilder sb =
        new StringBuilder(
            String.format(
                "symbolized %d of %d locations" + " (DCPI images are not symbolized)",
                all.getLong(1), all.getLong(0)));
    List<Row> missing =
        candidates
            .where("lines IS NULL")
            .groupBy("module")
            .agg(count(lit(1)).as("n"), expr("min(problem)").as("problem"))
            .orderBy(col("n").desc())
            .limit(20)
            .collectAsList();
    for (Row m : missing) {
      sb.append(
          String.format(
              "%n  unnamed: %d locations in %s: %s",
              m.getLong(1), m.isNullAt(0) ? "(no module)" : m.getString(0), m.getString(2)));
    }
    return sb.toString();
  }

  /** Tests only: masks the stack keys, so that distinct stacks can be made to collide. */
  static volatile long stackKeyMask = -1L;

  /** Tests only: runs between the pass that reads the distinct stacks and the per-file pass. */
  static volatile Runnable BETWEEN_PASSES = () -> {};

  /**
   * Tests only: how many runs grouped by the frames (colliding stack keys, or input files that
   * changed between the passes).
   */
  static final java.util.concurrent.atomic.AtomicInteger GROUPED_BY_FRAMES =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * The per-host and fleet-wide stacks (the columns of {@code host_stacks/} and {@code stacks/}),
   * the per-host rows {@code modules/} is computed from ({@code leaf_module} and the distinct
   * {@code modules} of the stack instead of its frames), and what was persisted for them.
   */
  record StackLevels(
      Dataset<Row> hostStacks,
      Dataset<Row> stacks,
      Dataset<Row> hostModules,
      List<Dataset<Row>> persisted) {}

  /**
   * The stack keys cannot be relied on ({@code n} {@code why}): the levels group by the frames, and
   * the keyed distinct stacks are dropped.
   */
  private static void groupByFramesInstead(Dataset<Row> distinct, long n, String why) {
    GROUPED_BY_FRAMES.incrementAndGet();
    distinct.unpersist();
    LOG.warn("{} {}: grouping by the frames instead", n, why);
  }

  /**
   * The key of a stack: {@code xxhash64} of the source's {@code stack_id} (a fingerprint of the
   * frames it decoded, see the README) and the program a gprof stack's frames are completed with
   * (null for other formats), so that equal keys mean equal frames as the job builds them, unless
   * two collide, which the job checks. {@link #stackKeyMask} narrows it in tests.
   */
  static Column stackKeyOf(String stackId, String program) {
    return expr("xxhash64(" + stackId + ", " + program + ")").bitwiseAND(lit(stackKeyMask));
  }

  /**
   * Each file's stacks: the records' sums per file and stack, where {@code stack} is {@code
   * stack_key} or, after a collision, {@code frames}. The only wide shuffle of the records: by
   * stack and what gives its counts a meaning. The per-file, per-host and fleet-wide aggregates all
   * group by a superset of those columns, so Spark plans them in the partitions this one exchange
   * made. The measure, its unit and value_per_count follow from format, kind, period and
   * period_unit (and the run's options): grouping by them too splits nothing further.
   */
  private static Dataset<Row> fileStacks(Dataset<Row> base, String stack) {
    List<String> key = new ArrayList<>(List.of("date", "host", "path"));
    for (String c : STACK_KEY) {
      key.add(c.equals("frames") ? stack : c);
    }
    key.add("error");
    List<String> read = new ArrayList<>(key);
    read.addAll(List.of("count", "measured", FILE_SIZE));
    return base.select(columns(read))
        .repartition(
            col("date"), col("format"), col("kind"), col("period"), col("period_unit"), col(stack))
        .groupBy(columns(key))
        .agg(
            sum(expr(UNSIGNED_COUNT)).cast("decimal(38,0)").as("count"),
            sum(expr(unsigned("measured"))).cast("decimal(38,0)").as("measured"),
            count(lit(1)).as("records"),
            max(FILE_SIZE).as(FILE_SIZE))
        .withColumn("value", expr(Measures.value("measured")))
        .drop("measured");
  }

  /**
   * Aggregates per-file stacks per host and per date, by {@code stack} ({@code stack_key}, or
   * {@code frames} after a collision). Keyed levels get their frames joined back from {@code
   * distinct} (the run's distinct {@code stack_key} and {@code frames}; null when keyed by the
   * frames) where an output has them.
   */
  static StackLevels stackLevels(Dataset<Row> fileStacks, String stack, Dataset<Row> distinct) {
    boolean byKey = distinct != null;
    Dataset<Row> keyed = fileStacks.where("kind <> 'error'");
    List<String> hostKey = new ArrayList<>(List.of("date", "host"));
    List<String> dateKey = new ArrayList<>(List.of("date"));
    for (String c : STACK_KEY) {
      hostKey.add(c.equals("frames") ? stack : c);
      dateKey.add(c.equals("frames") ? stack : c);
    }
    // Each level feeds several outputs: persisted, so that no write recomputes it.
    Dataset<Row> host =
        persist(keyed.groupBy(columns(hostKey)).agg(hostSums()[0], rest(hostSums())));
    Dataset<Row> stacks =
        persist(
            withFrames(
                host.groupBy(columns(dateKey)).agg(dateSums()[0], rest(dateSums())),
                byKey ? distinct : null,
                List.of("date"),
                List.of("count", "value", "records", "profiles", "hosts")));
    Dataset<Row> hostStacks =
        withFrames(
            host,
            byKey ? distinct : null,
            List.of("date", "host"),
            List.of("count", "value", "records", "profiles"));
    String[] modules = {
      "try_element_at(frames, 1).module AS leaf_module", "array_distinct(frames.module) AS modules"
    };
    Dataset<Row> hostModules =
        byKey
            ? host.join(distinct.selectExpr("stack_key", modules[0], modules[1]), "stack_key")
            : host.selectExpr("*", modules[0], modules[1]);
    return new StackLevels(hostStacks, stacks, hostModules, List.of(host, stacks));
  }

  /**
   * A level's rows in the dataset's order, with their frames joined back from {@code distinct} when
   * the level is keyed by {@code stack_key} (null: it is keyed by the frames themselves).
   */
  private static Dataset<Row> withFrames(
      Dataset<Row> level, Dataset<Row> distinct, List<String> leading, List<String> trailing) {
    List<String> out = new ArrayList<>(leading);
    out.addAll(STACK_KEY);
    out.addAll(trailing);
    return (distinct == null ? level : level.join(distinct, "stack_key")).select(columns(out));
  }

  private static Column[] columns(List<String> names) {
    return names.stream().map(org.apache.spark.sql.functions::col).toArray(Column[]::new);
  }

  /** A host's sums of its files' rows of a stack. */
  private static Column[] hostSums() {
    return new Column[] {
      sum("count").cast("decimal(38,0)").as("count"),
      sum("value").cast("decimal(38,0)").as("value"),
      sum("records").as("records"),
      count(lit(1)).as("profiles")
    };
  }

  /** A date's sums of its hosts' rows of a stack. */
  private static Column[] dateSums() {
    return new Column[] {
      sum("count").cast("decimal(38,0)").as("count"),
      sum("value").cast("decimal(38,0)").as("value"),
      sum("records").as("records"),
      sum("profiles").as("profiles"),
      // Unknown (no host= directory anywhere) is null, not 0 hosts.
      expr("nullif(count(host), 0)").as("hosts")
    };
  }

  /** A file's size in bytes, as listed for the read, on each of the job's rows of the file. */
  private static final String FILE_SIZE = "_file_size";

  /**
   * A stack and what gives its counts a meaning: the per-file, per-host and fleet-wide aggregates
   * group by these, after their own leading columns and before any trailing ones.
   */
  private static final List<String> STACK_KEY =
      List.of(
          "format",
          "kind",
          "measure",
          "unit",
          "period",
          "period_unit",
          "value_per_count",
          "frames");

  /**
   * {@code self_count}, {@code total_count}, {@code self_value}, {@code total_value} of exploded
   * stack rows ({@code count}, {@code value}), where {@code isSelf} says the row's frame or module
   * is the stack's leaf. A value unknown for every row stays null, never 0.
   */
  static Column[] selfAndTotal(String isSelf) {
    String decimal = "decimal(38,0)";
    return new Column[] {
      sum(expr("CASE WHEN " + isSelf + " THEN count ELSE 0 END")).cast(decimal).as("self_count"),
      sum("count").cast(decimal).as("total_count"),
      sum(expr("CASE WHEN " + isSelf + " THEN value WHEN value IS NOT NULL THEN 0 END"))
          .cast(decimal)
          .as("self_value"),
      sum("value").cast(decimal).as("total_value")
    };
  }

  private static Column[] rest(Column[] columns) {
    return java.util.Arrays.copyOfRange(columns, 1, columns.length);
  }

  private static Dataset<Row> persist(Dataset<Row> d) {
    return d.persist(StorageLevel.MEMORY_AND_DISK());
  }

  /**
   * Starts replacing {@code dates}: takes their leases (one writer per date; see {@link
   * DateLease}), then removes what says they are complete (each dataset's {@code _SUCCESS}, the
   * dates' {@code _SUCCESS} in every dataset, the dates' run records), so that a scheduler waiting
   * on a marker never goes ahead on a date this run is still replacing, or failed to. Staging
   * directories a killed run left (older than a lease lives) are deleted.
   */
  static DateLease beginDates(
      SparkSession spark, String output, Iterable<String> datasets, List<Object> dates)
      throws IOException {
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
    DateLease lease = DateLease.acquire(fs, out, dates, java.util.UUID.randomUUID().toString());
    try {
      removeMarkers(fs, out, datasets, dates);
      long stale = System.currentTimeMillis() - DateLease.TIMEOUT.toMillis();
      for (String dataset : datasets) {
        Path dir = new Path(out, dataset);
        if (fs.exists(dir)) {
          for (FileStatus st : fs.listStatus(dir, p -> p.getName().startsWith(".spark-staging-"))) {
            if (st.getModificationTime() < stale) {
              LOG.info("deleting {}, left by a run that died", st.getPath());
              fs.delete(st.getPath(), true);
            }
          }
        }
      }
      return lease;
    } catch (IOException | RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  /**
   * Publishes {@code run} as the run of {@code dates} for {@code datasets} (each date's pointer
   * replaced in one step: readers switch to the new run at once; see {@link FleetOutput}), then
   * marks the dates complete: {@code _SUCCESS} in each dataset and in each of its date partitions,
   * then one run record per date ({@code OUTPUT/_runs/date=D}), the marker that says all datasets
   * of the date are one completed run's.
   */
  static void commitDates(
      SparkSession spark,
      String output,
      Iterable<String> datasets,
      List<Object> dates,
      String run,
      java.time.Duration keepReplaced)
      throws IOException {
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
    for (Object d : dates) {
      FleetOutput.publishRun(fs, out, d, run, datasets, keepReplaced);
    }
    try {
      writeMarkers(fs, out, datasets, dates, run);
    } catch (IOException | RuntimeException e) {
      // Some markers but not all (a full disk takes empty files, not the run record): none.
      try {
        removeMarkers(fs, out, datasets, dates);
      } catch (IOException | RuntimeException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }

  /**
   * Deletes the files of replaced runs of any date that have been kept long enough; a failure here
   * is logged, never the run's: its dates are published.
   */
  static void sweepOtherDates(SparkSession spark, String output, java.time.Duration keepReplaced) {
    Path out = new Path(output);
    try {
      FleetOutput.sweepAll(
          out.getFileSystem(spark.sparkContext().hadoopConfiguration()), out, keepReplaced);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not delete replaced runs under {}: {}", output, e.toString());
    }
  }

  /** Removes what says {@code dates} are complete: their run records, every dataset's markers. */
  private static void removeMarkers(
      FileSystem fs, Path out, Iterable<String> datasets, List<Object> dates) throws IOException {
    for (Object d : dates) {
      fs.delete(runRecord(out, d), false);
    }
    for (String dataset : datasets) {
      Path dir = new Path(out, dataset);
      fs.delete(new Path(dir, "_SUCCESS"), false);
      for (Object d : dates) {
        fs.delete(new Path(dir, "date=" + d + "/_SUCCESS"), false);
      }
    }
  }

  private static void writeMarkers(
      FileSystem fs, Path out, Iterable<String> datasets, List<Object> dates, String run)
      throws IOException {
    for (String dataset : datasets) {
      for (Object d : dates) {
        Path partition = new Path(out, dataset + "/date=" + d);
        if (fs.exists(partition)) {
          fs.create(new Path(partition, "_SUCCESS"), true).close();
        }
      }
      fs.create(new Path(new Path(out, dataset), "_SUCCESS"), true).close();
    }
    String committed = java.time.Instant.now().toString();
    for (Object d : dates) {
      try (java.io.OutputStream o = fs.create(runRecord(out, d), true)) {
        o.write(
            ("{\"date\": \""
                    + d
                    + "\", \"run\": \""
                    + run
                    + "\", \"committed\": \""
                    + committed
                    + "\", \"datasets\": "
                    + jsonNames(datasets)
                    + "}\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
  }

  private static String jsonNames(Iterable<String> names) {
    List<String> quoted = new ArrayList<>();
    names.forEach(n -> quoted.add("\"" + n + "\""));
    return "[" + String.join(", ", quoted) + "]";
  }

  /** The file that says every dataset of a date was written by one run that completed. */
  static Path runRecord(Path output, Object date) {
    return new Path(new Path(output, "_runs"), "date=" + date);
  }

  /**
   * This run's directories of {@code dates} in a dataset, and only those: the summary reads back
   * what this run wrote, so a corrupt or half-written file of another date or run can never fail a
   * run after it published. The date column stays.
   */
  private static Dataset<Row> readDates(
      SparkSession spark,
      String output,
      String dataset,
      List<Object> dates,
      String run,
      StructType whenEmpty)
      throws IOException {
    Map<Object, String> runs = new LinkedHashMap<>();
    for (Object d : dates) {
      runs.put(d, run);
    }
    return FleetOutput.readRuns(spark, new Path(output), dataset, runs, whenEmpty);
  }

  /** The day of each row: the date= directory, else --date, else today. */
  private static Column dateOf(Set<String> columns, LocalDate date) {
    Column fromPath =
        columns.contains("date")
            ? expr("try_cast(date AS DATE)")
            : expr(
                "try_cast(nullif(regexp_extract(path, '/date=([0-9]{4}-[0-9]{2}-[0-9]{2})/', 1),"
                    + " '') AS DATE)");
    return org.apache.spark.sql.functions.coalesce(
        fromPath, date != null ? lit(date) : expr("current_date()"));
  }

  /** The host of each row: the host= directory (below or above the input path), else null. */
  private static Column hostOf(Set<String> columns) {
    return columns.contains("host")
        ? expr("CAST(host AS STRING)")
        : expr("nullif(regexp_extract(path, '/host=([^/]+)/', 1), '')");
  }

  /** Reads back what this run wrote, for the log and the caller. */
  private static Summary summarise(
      SparkSession spark,
      Args args,
      Set<String> writtenDatasets,
      List<Object> dates,
      String run,
      long started,
      long bytes,
      String symbolization)
      throws IOException {
    StructType noFiles =
        new StructType()
            .add("date", DataTypes.DateType)
            .add("path", DataTypes.StringType)
            .add("records", DataTypes.LongType)
            .add("count", DataTypes.createDecimalType(38, 0))
            .add("problems", DataTypes.LongType);
    Dataset<Row> files = readDates(spark, args.output(), "files", dates, run, noFiles);
    Row totals =
        files
            .agg(
                count(lit(1)),
                sum("records"),
                sum("count"),
                sum(expr("CASE WHEN problems > 0 THEN 1 ELSE 0 END")),
                // Files that gave CPU samples (cpu_nanoseconds is null for a file without).
                Set.of(files.columns()).contains("cpu_nanoseconds")
                    ? count(col("cpu_nanoseconds"))
                    : lit(0L))
            .first();
    long cpuFiles = totals.getLong(4);
    // Every dataset's rows counted in one query (one Spark job, not one per dataset: each job is
    // planned, compiled and scheduled on its own, a second or two of a short run).
    Map<String, Long> rows = new LinkedHashMap<>();
    Dataset<Row> written = null;
    for (String t : writtenDatasets) {
      rows.put(t, 0L);
      Dataset<Row> d =
          readDates(
                  spark,
                  args.output(),
                  t,
                  dates,
                  run,
                  new StructType().add("date", DataTypes.DateType))
              .select(lit(t).as("dataset"));
      written = written == null ? d : written.unionAll(d);
    }
    if (written != null) {
      for (Row r : written.groupBy("dataset").count().collectAsList()) {
        rows.put(r.getString(0), r.getLong(1));
      }
    }
    Map<String, MeasureTotal> measures = new TreeMap<>();
    Dataset<Row> stacks =
        readDates(
            spark,
            args.output(),
            "stacks",
            dates,
            run,
            new StructType()
                .add("date", DataTypes.DateType)
                .add("measure", DataTypes.StringType)
                .add("unit", DataTypes.StringType)
                .add("count", DataTypes.createDecimalType(38, 0))
                .add("value", DataTypes.createDecimalType(38, 0)));
    for (Row r :
        stacks.groupBy("measure", "unit").agg(sum("count"), sum("value")).collectAsList()) {
      measures.put(
          r.getString(0),
          new MeasureTotal(
              r.getString(1),
              r.isNullAt(2) ? BigDecimal.ZERO : r.getDecimal(2),
              r.isNullAt(3) ? null : r.getDecimal(3),
              Measures.CPU.equals(r.getString(0)) ? cpuFiles : 0));
    }
    Summary s =
        new Summary(
            totals.getLong(0),
            totals.isNullAt(1) ? 0 : totals.getLong(1),
            totals.isNullAt(2) ? BigDecimal.ZERO : totals.getDecimal(2),
            totals.isNullAt(3) ? 0 : totals.getLong(3),
            bytes,
            rows,
            dates.stream().map(String::valueOf).sorted().toList(),
            (System.nanoTime() - started) / 1_000_000,
            args.output(),
            measures);
    StringBuilder line =
        new StringBuilder(
            String.format(
                "fleet-aggregate: %d files (%d with problems, see files/), %d records, %,d bytes,"
                    + " dates %s",
                s.files(), s.filesWithProblems(), s.records(), s.bytes(), s.dates()));
    for (Map.Entry<String, MeasureTotal> m : measures.entrySet()) {
      line.append(String.format("%n  %-10s %s", m.getKey(), m.getValue().describe()));
    }
    if (measures.containsKey(Measures.CPU)) {
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
    return s;
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

  /** What a run did. */
  record Summary(
      long files,
      long records,
      BigDecimal totalCount,
      long filesWithProblems,
      long bytes,
      Map<String, Long> rowsWritten,
      List<String> dates,
      long millis,
      String output,
      Map<String, MeasureTotal> measures) {}
}
