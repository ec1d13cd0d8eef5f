package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;

import dev.fleetprof.format.FrameAddresses;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.ReadOptions;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet job's Spark stages, in the order a run takes them (see {@link FleetAggregate#run}):
 *
 * <ol>
 *   <li>{@link #read}: the one read of the inputs, the source's stack rows (each file's records
 *       merged per chain) aggregated into per-file stacks and the frames of each stack, kept; its
 *       query also gives the run's dates, each measure's totals and the number of per-file stack
 *       rows;
 *   <li>{@link #distinctStacks}: the run's dictionary of distinct stacks, from the frames the read
 *       kept, and whether any key collided (then the run reads again, grouped by frames);
 *   <li>{@link #datasets}: the stack levels (per host, per date), the locations and their names,
 *       functions, modules and files: the six datasets, as Datasets to write.
 * </ol>
 *
 * <p>Everything a stage keeps ({@link KeptDatasets}) is kept until {@link #close}.
 */
final class FleetStages implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FleetStages.class);

  private final SparkSession spark;
  private final FleetAggregate.Args args;
  private final FleetAggregate.Hooks hooks;
  private final KeptDatasets kept = new KeptDatasets();

  private Dimensions dimensions = Dimensions.NONE;

  /** The run's dimensions (see {@link Dimensions}), known once {@link #read} has planned. */
  Dimensions dimensions() {
    return dimensions;
  }

  FleetStages(SparkSession spark, FleetAggregate.Args args, FleetAggregate.Hooks hooks) {
    this.spark = spark;
    this.args = args;
    this.hooks = hooks;
  }

  /**
   * What the read gave: the per-file stacks keyed by {@code stack} ({@code stack_key}, or {@code
   * frames} after a collision), the frames each stack was read with ({@code stackFrames}: format,
   * kind, stack_id, program_module, frames, lines; a row per stack and date, or more when ids
   * collide), both kept, the run's dates and, per date, measure and unit, the sums of count and
   * value and the number of per-file stack rows.
   */
  record Read(
      Dataset<Row> fileStacks,
      Dataset<Row> stackFrames,
      String stack,
      List<Object> dates,
      List<Row> measureRows,
      long stackRows) {
    /** Whether the run's sums of counts and values may run over BIGINTs ({@link #sumsFitLong}). */
    boolean sumsOverLongs() {
      return sumsFitLong(measureRows);
    }
  }

  /**
   * Stage 1: reads the inputs once ({@code fromSource}: the source's stack rows; else its records
   * with frames on every row, grouped by frames) and runs the query that fills the cache: the
   * per-file stacks and the frames of each stack come out of one aggregate, so that the rows
   * themselves are never kept.
   */
  Read read(boolean fromSource) {
    spark.sparkContext().setJobDescription("fleet-aggregate: read and aggregate");
    String stack = fromSource ? "stack_key" : "frames";
    kept.checkpointFromHereOn(false);
    Dataset<Row> aggregated = kept(fileStacksAndFrames(stackRows(fromSource), stack));
    List<Row> measureRows =
        fileStacksOf(aggregated)
            .groupBy("date", "measure", "unit")
            .agg(
                sum("count").as("count"),
                sum("value").as("value"),
                count(lit(1)).as("rows"),
                min("value_per_count").as("least_value_per_count"))
            .collectAsList();
    List<Object> dates = new ArrayList<>();
    long stackRows = 0;
    for (Row r : measureRows) {
      if (!dates.contains(r.get(0))) {
        dates.add(r.get(0));
      }
      stackRows += r.getLong(5);
    }
    if (stackRows < hooks.checkpointBelowRows()) {
      // From here on, what the stages keep are leaves of the plans that read them.
      kept.checkpointFromHereOn(true);
      aggregated = kept(aggregated);
    }
    Dataset<Row> fileStacks = fileStacksOf(aggregated);
    Dataset<Row> stackFrames =
        aggregated
            .where(FRAMES_ROW)
            .selectExpr(
                "format",
                "kind",
                "stack_id",
                "program_module",
                "stack_frames AS frames",
                "stack_lines AS lines");
    return new Read(fileStacks, stackFrames, stack, dates, measureRows, stackRows);
  }

  /**
   * Stage 2: the run's distinct stacks (kept), or null when two different stacks share a key: the
   * dictionary holds every frames each key was read with, and the caller then reads again grouped
   * by the frames themselves (slower, never wrong).
   */
  Dataset<Row> distinctStacks(Read read) {
    spark.sparkContext().setJobDescription("fleet-aggregate: dictionary of distinct stacks");
    Dataset<Row> distinct = kept(distinctStacks(read.fileStacks(), read.stackFrames()));
    long collisions = distinct.where(COLLIDED).count();
    if (collisions == 0) {
      return distinct;
    }
    hooks.groupedByFrames().run();
    LOG.warn(
        "{} stack keys are shared by different frames: grouping by the frames instead", collisions);
    close(); // the read again replaces everything kept so far
    return null;
  }

  /**
   * The six datasets of a run, in {@link FleetAggregate#DATASETS}' order, and what they share: the
   * stacks, the names of the distinct locations ({@code symbols}) and the locations before their
   * names were joined ({@code rawLocations}), all kept.
   */
  /**
   * The run's datasets, in the order they are written, and what the rest of the run reads.
   *
   * @param broadcastNames the datasets that join every frame of every stack with the names:
   *     millions of rows against the run's distinct locations, which the {@code locations} write
   *     has cached by then, so Spark knows their size. Written with broadcast joins allowed up to
   *     Spark's default limit whatever the run's size (one small job instead of shuffling and
   *     sorting every frame).
   */
  record Datasets(
      Map<String, Dataset<Row>> tables,
      Set<String> broadcastNames,
      Dataset<Row> stacks,
      Dataset<Row> symbols,
      Dataset<Row> rawLocations,
      Dimensions dimensions) {}

  /** What {@link #datasets} hands its {@code ready} for the names of the run's locations. */
  static final String SYMBOLS = "symbols";

  /**
   * Stage 3: the datasets, from the per-file stacks and (when keyed) the distinct stacks: each
   * level feeds several outputs and is kept, as are the locations and their names. {@code ready}
   * gets the first ones ({@code files}, {@code stacks}, {@code host_stacks}) and the names ({@link
   * #SYMBOLS}) as soon as they are built, so that what uses them runs while the rest is planned
   * (the driver plans one query at a time; the executors would wait otherwise).
   */
  Datasets datasets(Read read, Dataset<Row> distinct, BiConsumer<String, Dataset<Row>> ready) {
    spark.sparkContext().setJobDescription("fleet-aggregate: datasets");
    boolean sumsOverLongs = read.sumsOverLongs();
    Dataset<Row> files = files(read.fileStacks(), read.stack(), dimensions, sumsOverLongs);
    boolean filesAreHosts = false;
    // Only a large run asks (a Spark job of its own): a small one aggregates in less time.
    if (read.stackRows() >= hooks.askFilesPerHostFrom()) {
      // Kept: the write reads it, and so does the question.
      files = kept(files);
      spark.sparkContext().setJobDescription("fleet-aggregate: files per host");
      filesAreHosts = oneFilePerHost(files);
      if (filesAreHosts) {
        hooks.oneFilePerHost().run();
      }
    }
    ready.accept("files", files);
    StackLevels levels =
        stackLevels(read.fileStacks(), read.stack(), distinct, filesAreHosts, sumsOverLongs);
    Dataset<Row> stacks = levels.stacks();
    ready.accept("stacks", stacks);
    ready.accept("host_stacks", levels.hostStacks());
    // Kept: the symbolizer's input and the written dataset both come from it.
    Dataset<Row> rawLocations = kept(locations(levels.keyedStacks(), sumsOverLongs));
    // Names: the run's distinct locations, symbolized once each, joined back. Locations a pprof
    // profile names itself keep the profile's names (no binary needed); the rest are looked up.
    Dataset<Row> profileSymbols = kept(profileSymbols(read.stackFrames()));
    Dataset<Row> toLookUp =
        Symbolization.notNamedBy(rawLocations, profileSymbols)
            .select("format", "module", "offset")
            .distinct();
    // Each location with the build IDs its module has in the files whose stacks hold it (a pprof
    // profile's Mapping.build_id): the symbolizer looks each up, so a binary is found (or fetched
    // from debuginfod) by the build that ran, never another build at the same path.
    Dataset<Row> builds = kept(locationBuildIds(read.fileStacks(), read.stack(), distinct));
    toLookUp = withBuildIds(toLookUp, builds);
    Dataset<Row> symbols =
        kept(
            Symbolization.symbolize(spark, toLookUp, args.symbolization())
                .unionByName(profileSymbols));
    ready.accept(SYMBOLS, symbols);
    List<String> moduleColumns = new ArrayList<>(List.of("date", "host"));
    moduleColumns.addAll(dimensions.columns());
    List<String> moduleKey = new ArrayList<>(moduleColumns);
    moduleKey.addAll(List.of("format", "kind", "measure", "unit", "module"));
    moduleColumns.addAll(
        List.of(
            "format",
            "kind",
            "measure",
            "unit",
            "count",
            "value",
            "leaf_module",
            "explode(modules) AS module"));
    Dataset<Row> modules =
        dimensions.collapsed(
            levels
                .hostModules()
                .selectExpr(moduleColumns.toArray(new String[0]))
                .groupBy(columns(moduleKey))
                .agg(
                    selfAndTotal("module <=> leaf_module", sumsOverLongs)[0],
                    rest(selfAndTotal("module <=> leaf_module", sumsOverLongs))));
    Map<String, Dataset<Row>> tables = new LinkedHashMap<>();
    tables.put("files", files);
    tables.put("stacks", stacks);
    tables.put("host_stacks", levels.hostStacks());
    tables.put("locations", withBuildIds(joinLines(rawLocations, symbols), builds));
    tables.put("modules", modules);
    tables.put("functions", functions(levels.keyedStacks(), symbols, sumsOverLongs));
    if (!List.copyOf(tables.keySet()).equals(FleetAggregate.DATASETS)) {
      throw new IllegalStateException(
          "datasets " + tables.keySet() + " are not " + FleetAggregate.DATASETS);
    }
    return new Datasets(tables, Set.of("functions"), stacks, symbols, rawLocations, dimensions);
  }

  /**
   * {@code files/}: per file, its records, counts, CPU time, stacks and problems, and its size as
   * listed ({@link #FILE_SIZE}, for the summary; not written).
   */
  static Dataset<Row> files(
      Dataset<Row> fileStacks, String stack, Dimensions all, boolean overLongs) {
    // A row per file: its directories' dimensions, not the labels of its samples.
    Dimensions dimensions = all.levels();
    // A file's stacks are its rows, unless labels split a stack into a row per value.
    List<String> stackKey = new ArrayList<>();
    for (String c : STACK_KEY) {
      stackKey.add(c.equals("frames") ? stack : c);
    }
    Column stacks =
        all.labels().isEmpty()
            ? count(expr("CASE WHEN kind <> 'error' THEN 1 END"))
            : expr(
                "count(DISTINCT CASE WHEN kind <> 'error' THEN struct("
                    + String.join(", ", stackKey)
                    + ") END)");
    List<String> key = new ArrayList<>(List.of("date", "host"));
    key.addAll(dimensions.columns());
    key.addAll(List.of("path", "format"));
    Dataset<Row> sums =
        fileStacks
            .groupBy(columns(key))
            .agg(
                sum(expr("CASE WHEN kind = 'error' THEN 0 ELSE records END")).as("records"),
                exactSum(col("count"), overLongs).as("count"),
                // null, not 0, for a file with no CPU samples: "none" and "unknown" differ
                exactSum(
                        expr("CASE WHEN measure = '" + Measures.CPU + "' THEN value END"),
                        overLongs)
                    .as("cpu_nanoseconds"),
                stacks.as("stacks"),
                count(col("error")).as("problems"),
                max(FILE_SIZE).as(FILE_SIZE));
    // A file's first problem, from the few rows that have one, joined back: min(error) among the
    // sums would make Spark sort every per-file stack row (a string is no hash aggregate buffer).
    List<Column> problemKey = new ArrayList<>();
    Column sameFile = lit(true);
    for (int i = 0; i < key.size(); i++) {
      problemKey.add(col(key.get(i)).as("_problem_key" + i));
      sameFile = sameFile.and(sums.col(key.get(i)).eqNullSafe(col("_problem_key" + i)));
    }
    problemKey.add(col("problem"));
    Dataset<Row> problems =
        fileStacks
            .where("error IS NOT NULL")
            .groupBy(columns(key))
            .agg(expr("min(error)").as("problem"))
            .select(problemKey.toArray(new Column[0]));
    List<Column> out = new ArrayList<>();
    for (String c : key) {
      out.add(sums.col(c));
    }
    for (String c : List.of("records", "count", "cpu_nanoseconds", "stacks", "problems")) {
      out.add(sums.col(c));
    }
    out.add(col("problem"));
    out.add(sums.col(FILE_SIZE));
    return dimensions.collapsed(
        sums.join(problems, sameFile, "left").select(out.toArray(new Column[0])));
  }

  /**
   * Whether each host has at most one file a date among {@code files} (a fleet that profiles each
   * host once a day): then the per-host stacks are the per-file stacks, one file each.
   */
  static boolean oneFilePerHost(Dataset<Row> files) {
    return files.groupBy("date", "host").count().where("count > 1").isEmpty();
  }

  /**
   * The key of a stack: {@code xxhash64} of the source's {@code stack_id} (a fingerprint of the
   * frames it decoded, see docs/schema.md) and the program a gprof stack's frames are completed
   * with (null for other formats), so that equal keys mean equal frames as the job builds them,
   * unless two collide, which {@link #distinctStacks} checks. Tests narrow it with a mask.
   */
  static Column stackKeyOf(String stackId, String program, long mask) {
    return expr("xxhash64(" + stackId + ", " + program + ")").bitwiseAND(lit(mask));
  }

  private static Dataset<Row> fileStacksOf(Dataset<Row> aggregated) {
    return aggregated.where("NOT " + FRAMES_ROW).drop(FRAMES_ROW, "stack_frames", "stack_lines");
  }

  private Dataset<Row> kept(Dataset<Row> d) {
    return kept.keep(d);
  }

  /** Lets go of everything the stages kept. */
  @Override
  public void close() {
    kept.close();
  }

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

  /**
   * What each small file costs when the read packs files into partitions: Spark's 4 MB default made
   * 313 partitions of 32 files each for 10,000 profiles of 36 KB, and every later pass over the
   * kept stack rows ran 313 tasks of a few milliseconds' work each. Still at least a partition per
   * core ({@code SplitPlanner}), and files larger than this are packed as before.
   */
  static final String READ_OPEN_COST = String.valueOf(256 * 1024);

  /**
   * The read's partitions: as few as keep every core busy ({@link #READ_PARTITIONS_PER_CORE} per
   * core of the default parallelism) and at most this many bytes each, open costs included. A task
   * gives each distinct stack's frames once, so the frames the read carries to the aggregate grow
   * with the number of tasks, not the number of files: at Spark's 128 MiB a fleet of small profiles
   * becomes hundreds of tasks, each carrying most of the fleet's distinct stacks again.
   */
  static final String READ_PARTITION_BYTES = String.valueOf(1L << 30);

  /** Partitions per core: two, so that a core that finishes early takes another. */
  static final int READ_PARTITIONS_PER_CORE = 2;

  /** The session's split size, which, when set, the read uses instead of the job's partitions. */
  private static final String SPLIT_SIZE_CONF = "spark.sql.files.maxPartitionBytes";

  /**
   * The rows of the run: the source's stack rows ({@code rows=stacks}: each file's records merged
   * per chain, frames once per distinct stack and task), or, when {@code fromSource} is false, its
   * records in the same columns with frames on every row (what the run groups by after a collision
   * of stack keys). Each row gets its date, host, measure and stack key.
   *
   * <p>Frames are as pprof shows them, so that every dataset and output names a frame the same way
   * and a symbolizer looks up the right instruction: a caller frame of a CPU sample is a return
   * address, so the source builds it at the return address minus one (the read options each format
   * gives for it, {@link ProfileFormat#callSiteFrameOptions()}: {@code
   * gperftools.callerAddress=call}), inside the call instruction, as pprof's {@code
   * legacy_profile.go} does; pprof profiles already hold caller addresses minus one. gmon.out
   * frames have no module: they get the program's name ({@code --gmon-binary}, else a {@code
   * program=NAME} directory), which the symbolizer looks up like any module (see {@link
   * #distinctStacks}); their addresses are link-time addresses already.
   */
  private Dataset<Row> stackRows(boolean fromSource) {
    DataFrameReader reader =
        spark
            .read()
            .format("profile")
            .option("format", args.format())
            .option("mode", args.mode())
            .option(ReadOptions.OPEN_COST_IN_BYTES.name(), READ_OPEN_COST);
    // A session that sets its split size keeps it, as any read of it would.
    if (!spark.conf().contains(SPLIT_SIZE_CONF)) {
      reader =
          reader
              .option(ReadOptions.MAX_PARTITION_BYTES.name(), READ_PARTITION_BYTES)
              .option(
                  ReadOptions.MIN_PARTITION_NUM.name(),
                  READ_PARTITIONS_PER_CORE * spark.sparkContext().defaultParallelism());
    }
    for (ProfileFormat f : ProfileFormats.ALL) {
      reader = reader.options(f.callSiteFrameOptions());
    }
    if (fromSource) {
      reader = reader.option(ReadOptions.ROWS.name(), "stacks");
      if (!args.labelDimensions().isEmpty()) {
        reader =
            reader.option(
                ReadOptions.STACK_LABELS.name(), String.join(",", args.labelDimensions()));
      }
    }
    if (args.glob() != null) {
      reader = reader.option("pathGlobFilter", args.glob());
    }
    Dataset<Row> raw = reader.load(args.inputs().toArray(new String[0]));
    Set<String> columns = Set.of(raw.columns());
    dimensions = Dimensions.of(raw.schema(), args.droppedDimensions(), args.labelDimensions());
    if (!fromSource) {
      raw = recordsAsStackRows(raw, args.labelDimensions());
    }
    if (args.date() != null && columns.contains("date")) {
      // Prunes the other days' directories at planning (the source evaluates partition filters).
      raw = raw.where(col("date").isNull().or(col("date").equalTo(lit(args.date()))));
    }
    Column program =
        args.gmonBinary() != null
            ? lit(args.gmonBinary())
            : columns.contains("program")
                ? expr("CAST(program AS STRING)")
                : expr("nullif(regexp_extract(path, '/program=([^/]+)/', 1), '')");
    Dataset<Row> base =
        Measures.withMeasure(
            dimensions
                .withValues(raw)
                .withColumn("date", dateOf(columns, args.date()))
                .withColumn("host", hostOf(columns))
                // What completes a gprof stack's frames, and is part of its key (see stackKeyOf).
                .withColumn(
                    "program_module",
                    org.apache.spark.sql.functions.when(
                        col("format").isin(programAddressFormats()), program)),
            args.effectivePeriods());
    if (args.date() != null) {
      base = base.where(col("date").equalTo(lit(args.date())));
    }
    if (!fromSource) {
      base = base.withColumn("frames", completedFrames());
    }
    return base.withColumn("stack_key", stackKeyOf("stack_id", "program_module", hooks.keyMask()));
  }

  /**
   * The formats whose frames are addresses in a program the file does not name (gmon.out), which
   * the job names for them: {@link FrameAddresses#PROGRAM_ADDRESSES}.
   */
  private static Object[] programAddressFormats() {
    List<Object> out = new ArrayList<>();
    for (ProfileFormat f : ProfileFormats.ALL) {
      if (f.frameAddresses() == FrameAddresses.PROGRAM_ADDRESSES) {
        out.add(f.name());
      }
    }
    return out.toArray();
  }

  /** The source's records in the columns of its stack rows, a row per record, frames on each. */
  private static Dataset<Row> recordsAsStackRows(Dataset<Row> records, List<String> labels) {
    Set<String> source = Set.of(dev.fleetprof.spark.ProfileSchema.SCHEMA.fieldNames());
    List<String> partitions = new ArrayList<>();
    for (String c : records.columns()) {
      if (!source.contains(c)) {
        partitions.add("`" + c + "`");
      }
    }
    String samplesAt = "array_position(transform(pprof.sample_types, t -> t.type), 'samples')";
    List<String> out =
        new ArrayList<>(List.of("path", "format", "kind", "period", "period_unit", "error"));
    out.addAll(partitions);
    out.addAll(
        List.of(
            "try_element_at(pprof.sample_types, pprof.count_index + 1) AS sample_type",
            "stack_id",
            "frames",
            "pprof.lines AS lines",
            UNSIGNED_COUNT + " AS count",
            "CASE WHEN "
                + samplesAt
                + " > 0 THEN "
                + unsigned("element_at(pprof.values, CAST(" + samplesAt + " AS INT))")
                + " END AS samples",
            "CAST(1 AS BIGINT) AS records",
            "_metadata.file_size AS file_size",
            // Records carry only their leaf's mapping: the file's modules that are some record's
            // leaf get their build IDs (locationBuildIds gathers them per file).
            "CASE WHEN mapping.build_id IS NOT NULL THEN map(mapping.path, mapping.build_id) END"
                + " AS build_ids"));
    if (!labels.isEmpty()) {
      // As the source's stackLabels gives them (see docs/reading.md, Stack rows).
      List<String> keys = new ArrayList<>();
      for (String l : labels) {
        keys.add(Dimensions.literal(l));
      }
      out.add(
          "CASE WHEN pprof IS NOT NULL THEN array_sort(transform(filter(pprof.labels, l -> l.key IN ("
              + String.join(", ", keys)
              + ") AND (l.str IS NOT NULL OR l.num IS NOT NULL)), l -> named_struct('key', l.key,"
              + " 'value', coalesce(l.str, CAST(l.num AS STRING))))) END AS "
              + dev.fleetprof.spark.ProfileSchema.STACK_LABELS);
    }
    return records.selectExpr(out.toArray(new String[0]));
  }

  /** A gprof stack's frames completed with its program (the modules its file leaves null). */
  private static Column completedFrames() {
    return expr(
        "CASE WHEN program_module IS NULL THEN frames ELSE transform(frames, f ->"
            + " named_struct('module', coalesce(f.module, program_module), 'offset', f.offset))"
            + " END");
  }

  /** Whether a row of {@link #distinctStacks} found its key shared or its frames missing. */
  private static final String COLLIDED = "collided";

  /**
   * The run's distinct stacks: each {@code stack_key} of the per-file stacks with its frames (a
   * gprof stack's completed with its program), from {@code stackFrames}, and whether the key {@code
   * collided}: read with two different frames, two stack ids or two programs, or with no frames at
   * all.
   */
  static Dataset<Row> distinctStacks(Dataset<Row> fileStacks, Dataset<Row> stackFrames) {
    Dataset<Row> keys =
        fileStacks
            .where("kind <> 'error'")
            .select("stack_key", "stack_id", "program_module")
            .distinct();
    // Error rows' frames too: a record with no frames and an error row share the empty chain's id.
    Dataset<Row> frames = stackFrames.select(col("stack_id").as("framed_id"), col("frames"));
    return keys.join(frames, col("stack_id").equalTo(col("framed_id")), "left")
        .select("stack_key", "stack_id", "program_module", "frames")
        .withColumn("frames", completedFrames())
        .groupBy("stack_key")
        .agg(
            expr("min(frames)").as("frames"),
            expr("max(frames) <> min(frames) OR count(frames) < count(1)"
                    + " OR max(stack_id) <> min(stack_id)"
                    + " OR max(coalesce(program_module, '')) <> min(coalesce(program_module,"
                    + " ''))")
                .as(COLLIDED));
  }

  /**
   * The locations pprof profiles name themselves (format, module, offset, lines, problem null,
   * name_source {@code profile}, remedy null): each pc's inline chain as the profile gives it,
   * taken once per location, from the stack rows that carry frames; a chain whose functions all
   * have empty names names nothing.
   */
  static Dataset<Row> profileSymbols(Dataset<Row> stackFrames) {
    // Only a profile that names its own locations (pprof) has lines.
    return stackFrames
        .where("frames IS NOT NULL AND lines IS NOT NULL")
        .selectExpr(
            "format",
            "explode(zip_with(frames, lines, (f, l) -> named_struct('module', f.module,"
                + " 'offset', f.offset, 'lines', l))) AS z")
        // Go's runtime/pprof gives code it cannot name (a cgo program's C code) a line whose
        // function has no name: no name at all, so the location is looked up like any other.
        .where("z.lines IS NOT NULL AND exists(z.lines, l -> l.function <> '')")
        .groupBy(col("format"), col("z.module").as("module"), col("z.offset").as("offset"))
        .agg(expr("first(z.lines)").as("lines"))
        // Cast to the type itself, not its SQL name: the name loses that no element is null, and
        // the query would have a type its optimized plan (which drops the cast) has not.
        .select(
            col("format"),
            col("module"),
            col("offset"),
            col("lines").cast(Symbolization.LINES_TYPE).as("lines"),
            lit(null).cast("string").as("problem"),
            lit(Symbolization.PROFILE).as("name_source"),
            lit(null).cast("string").as("remedy"));
  }

  /**
   * Per location (columns {@code b_format}, {@code b_module}, {@code b_offset}), the sorted
   * distinct build IDs ({@code build_ids}) its module has in the files whose stacks hold it, from
   * the per-file stacks' {@code build_ids} (pprof's {@code Mapping.build_id}, as sorted map
   * entries); locations of files that record none are not listed. Only rows with build IDs are read
   * again, so a run without them adds nothing but a scan of its kept rows.
   *
   * <p>Keyed by {@code stack_key} (frames from {@code distinct}), the work is per distinct stack
   * and set of build IDs, not per file: the files of one release share the set. After a collision
   * ({@code stack} is {@code frames}, on every row, each record with its leaf's mapping only), a
   * file's build IDs are gathered from all its rows first.
   */
  static Dataset<Row> locationBuildIds(
      Dataset<Row> fileStacks, String stack, Dataset<Row> distinct) {
    Dataset<Row> withIds = fileStacks.where("build_ids IS NOT NULL AND kind <> 'error'");
    Dataset<Row> located;
    if (distinct != null && stack.equals("stack_key")) {
      // Maps cannot be grouped: the set as sorted entries, a map again to look modules up.
      located =
          withIds
              .selectExpr("format", "build_ids AS ids", "stack_key")
              .distinct()
              .join(distinct.select("stack_key", "frames"), "stack_key")
              .selectExpr(
                  "format", "map_from_entries(ids) AS ids", "explode(array_distinct(frames)) AS f")
              .selectExpr("format", "f", "try_element_at(ids, f.module) AS build_id");
    } else {
      Dataset<Row> fileModules =
          withIds
              .selectExpr("path AS m_path", "inline(build_ids)")
              .withColumnRenamed("key", "m_module")
              .withColumnRenamed("value", "build_id")
              .distinct();
      located =
          withIds
              .select("path", "format", "frames")
              .distinct()
              .selectExpr("path", "format", "explode(array_distinct(frames)) AS f")
              .join(
                  fileModules,
                  col("path").equalTo(col("m_path")).and(col("f.module").equalTo(col("m_module"))))
              .select("format", "f", "build_id");
    }
    return located
        .where("build_id IS NOT NULL")
        .groupBy(
            col("format").as("b_format"),
            col("f.module").as("b_module"),
            col("f.offset").as("b_offset"))
        .agg(expr("array_sort(collect_set(build_id))").as("build_ids"));
  }

  /**
   * {@code locations} with the {@code build_ids} of each ({@link #locationBuildIds}; null where the
   * profiles record none), which {@code jobs/symbolize} looks up again.
   */
  static Dataset<Row> withBuildIds(Dataset<Row> locations, Dataset<Row> builds) {
    return locations
        .join(
            builds,
            col("format")
                .equalTo(col("b_format"))
                .and(col("module").equalTo(col("b_module")))
                .and(col("offset").equalTo(col("b_offset"))),
            "left")
        .drop("b_format", "b_module", "b_offset");
  }

  /**
   * {@code locations} with the inline chain of each location ({@code lines}, null if unknown) and
   * where its names came from ({@code name_source}, null without names).
   */
  static Dataset<Row> joinLines(Dataset<Row> locations, Dataset<Row> symbols) {
    return Symbolization.joinNames(locations, "module", "offset", symbols);
  }

  /**
   * A level's stacks by key and the frames of each key, so that what is computed from a stack's
   * frames is computed once per distinct stack, not once per row of the level: {@code weights}
   * holds the level's rows (date, format, kind, measure, unit, count, value, ...) with their {@code
   * stack_key}, {@code frames} each key's {@code stack_key} and {@code frames} once. After a
   * collision (or for rows that carry their frames) the key is the frames themselves.
   */
  record KeyedStacks(Dataset<Row> weights, Dataset<Row> frames) {
    /** Rows that carry their own {@code frames}, keyed by them. */
    static KeyedStacks byFrames(Dataset<Row> stacks) {
      return new KeyedStacks(
          stacks.withColumn("stack_key", col("frames")).drop("frames"),
          stacks.select(col("frames").as("stack_key"), col("frames")).distinct());
    }
  }

  /**
   * Per location of each date (the columns of {@code locations/} before its names): the weight of
   * the stacks it is the leaf of ({@code self_*}) and of the stacks it is on ({@code total_*}). A
   * location on the stack twice (recursion) counts once: each distinct stack's locations are
   * deduplicated once, then every row of the stack gets them.
   */
  static Dataset<Row> locations(KeyedStacks stacks, boolean overLongs) {
    // array_distinct over structs compares every pair of frames in interpreted code; distinct
    // offsets (most stacks) already mean distinct frames, and array_distinct over bigints is a
    // generated hash set.
    Dataset<Row> onStack =
        stacks
            .frames()
            .selectExpr(
                "stack_key AS l_stack_key",
                "try_element_at(frames, 1) AS leaf",
                "IF(size(array_distinct(frames.offset)) = size(frames), frames,"
                    + " array_distinct(frames)) AS locations");
    Column[] sums = selfAndTotal("frame = leaf", overLongs);
    return stacks
        .weights()
        .join(onStack, col("stack_key").equalTo(col("l_stack_key")))
        .selectExpr(
            "date",
            "format",
            "kind",
            "measure",
            "unit",
            "count",
            "value",
            "leaf",
            "explode(locations) AS frame")
        .groupBy("date", "format", "kind", "measure", "unit", "frame.module", "frame.offset")
        .agg(sums[0], rest(sums));
  }

  /**
   * {@link #functions(KeyedStacks, Dataset, boolean)} of rows that carry their own {@code frames}.
   */
  static Dataset<Row> functions(Dataset<Row> stacks, Dataset<Row> symbols) {
    return functions(KeyedStacks.byFrames(stacks), symbols, false);
  }

  /**
   * Per function, with {@code pprof -top}'s meaning: {@code self_count} is the weight of the stacks
   * whose leaf's innermost (inlined) function it is, {@code total_count} of the stacks it is
   * anywhere on, inlined frames included, once per stack however often it recurs. A location with
   * no name counts for the function null of its module (pprof shows it as {@code [module]}). A
   * function's {@code name_source} is the most trusted among its locations' (in the order of {@link
   * Symbolization#SOURCES_BY_TRUST}); null for the function null. The functions on a stack are
   * found once per distinct stack (and format: names are per format), then weighted by each of its
   * rows.
   */
  static Dataset<Row> functions(KeyedStacks stacks, Dataset<Row> symbols, boolean overLongs) {
    // The two joins by stack are shuffled, never broadcast: this query runs where broadcasts of
    // the names are allowed, and each broadcast would be a Spark job of its own.
    Dataset<Row> frames =
        stacks
            .weights()
            .select("format", "stack_key")
            .distinct()
            .hint("shuffle_hash")
            .join(stacks.frames(), "stack_key")
            .selectExpr("format", "stack_key", "posexplode(frames) AS (frame_pos, frame)");
    Dataset<Row> onStack =
        Symbolization.joinNames(frames, "frame.module", "frame.offset", symbols)
            .selectExpr(
                "format AS f_format",
                "stack_key AS f_stack_key",
                "frame_pos",
                "frame.module AS module",
                Symbolization.trustRank("name_source") + " AS name_rank",
                "posexplode(coalesce(lines.function, array(CAST(NULL AS STRING))))"
                    + " AS (line_pos, function)")
            .groupBy("f_format", "f_stack_key", "module", "function")
            .agg(
                expr("max(frame_pos = 0 AND line_pos = 0)").as("is_self"),
                expr("min(name_rank)").as("name_rank"));
    Column[] sums = selfAndTotal("is_self", overLongs);
    return stacks
        .weights()
        .join(
            onStack.hint("shuffle_hash"),
            col("format")
                .equalTo(col("f_format"))
                .and(col("stack_key").equalTo(col("f_stack_key"))))
        .groupBy("date", "format", "kind", "measure", "unit", "module", "function")
        .agg(sums[0], sums[1], sums[2], sums[3], expr("min(name_rank)").as("name_rank"))
        .withColumn("name_source", expr(Symbolization.sourceOfRank("name_rank")))
        .drop("name_rank");
  }

  /**
   * The per-host and fleet-wide stacks (the columns of {@code host_stacks/} and {@code stacks/}),
   * the per-host rows {@code modules/} is computed from ({@code leaf_module} and the distinct
   * {@code modules} of the stack instead of its frames), and the fleet-wide level by key, which
   * {@code locations/} and {@code functions/} are computed from.
   */
  record StackLevels(
      Dataset<Row> hostStacks,
      Dataset<Row> stacks,
      Dataset<Row> hostModules,
      KeyedStacks keyedStacks) {}

  /** Whether a row of {@link #fileStacksAndFrames} holds a stack's frames, not a file's sums. */
  private static final String FRAMES_ROW = "frames_row";

  /**
   * Each file's stacks and the frames of each stack, in one aggregate of the stack rows: per file
   * and stack, where {@code stack} is {@code stack_key} or, after a collision, {@code frames}, the
   * sums of its rows (the source gives a file's chain in more than one row when the file is split,
   * or its reader's table fills), with the stack's {@code stack_id}, {@code program_module} and the
   * file's {@code build_ids} (as sorted entries: maps cannot be grouped); and, marked {@link
   * #FRAMES_ROW}, per stack the {@code stack_frames} and {@code stack_lines} it was read with. A
   * row that carries frames (the source's first of each stack in a task) is split in two, its sums
   * and its frames; the frames rows of a stack merge in the aggregate, so the run keeps each
   * stack's frames once (per date and program) and never the source's rows. That is the only wide
   * shuffle of the rows: by stack and what gives its counts a meaning. The per-file, per-host and
   * fleet-wide aggregates all group by a superset of those columns, so Spark plans them in the
   * partitions this one exchange made. The measure, its unit and value_per_count follow from
   * format, kind, period and period_unit (and the run's options), the stack id and program from the
   * stack key: grouping by them too splits nothing further.
   */
  private Dataset<Row> fileStacksAndFrames(Dataset<Row> rows, String stack) {
    List<String> key = new ArrayList<>(List.of("date", "host"));
    key.addAll(dimensions.columns());
    key.add("path");
    for (String c : STACK_KEY) {
      key.add(c.equals("frames") ? stack : c);
    }
    key.addAll(
        List.of(
            "error",
            "stack_id",
            "program_module",
            "build_ids",
            FRAMES_ROW,
            "stack_frames",
            "stack_lines"));
    String ofFile = "IF(" + FRAMES_ROW + ", NULL, %s) AS %s";
    List<String> split = new ArrayList<>();
    for (String c : key) {
      if (dimensions.columns().contains(c)) {
        split.add(String.format(ofFile, c, c));
        continue;
      }
      switch (c) {
        case "host", "path", "error" -> split.add(String.format(ofFile, c, c));
        case "build_ids" ->
            split.add(String.format(ofFile, "array_sort(map_entries(build_ids))", c));
        case FRAMES_ROW -> split.add(c);
        case "stack_frames" -> split.add("IF(" + FRAMES_ROW + ", frames, NULL) AS stack_frames");
        case "stack_lines" -> split.add("IF(" + FRAMES_ROW + ", lines, NULL) AS stack_lines");
        default -> split.add(c);
      }
    }
    for (String c :
        List.of("count", "measured", "records", dev.fleetprof.spark.ProfileSchema.FILE_SIZE)) {
      split.add(String.format(ofFile, c, c));
    }
    return rows.withColumn(
            FRAMES_ROW,
            org.apache.spark.sql.functions.explode(
                expr("IF(frames IS NULL, array(false), array(false, true))")))
        .selectExpr(split.toArray(new String[0]))
        .repartition(
            col("date"), col("format"), col("kind"), col("period"), col("period_unit"), col(stack))
        .groupBy(columns(key))
        .agg(
            sum("count").cast("decimal(38,0)").as("count"),
            sum("measured").cast("decimal(38,0)").as("measured"),
            sum("records").as("records"),
            max(dev.fleetprof.spark.ProfileSchema.FILE_SIZE).as(FILE_SIZE))
        .withColumn("value", expr(Measures.value("measured")))
        .drop("measured");
  }

  /**
   * Aggregates per-file stacks per host and per date, by {@code stack} ({@code stack_key}, or
   * {@code frames} after a collision). Keyed levels get their frames joined back from {@code
   * distinct} (the run's distinct {@code stack_key} and {@code frames}; null when keyed by the
   * frames) where an output has them.
   */
  StackLevels stackLevels(
      Dataset<Row> fileStacks,
      String stack,
      Dataset<Row> distinct,
      boolean filesAreHosts,
      boolean overLongs) {
    boolean byKey = distinct != null;
    Dataset<Row> keyed = fileStacks.where("kind <> 'error'");
    List<String> hostKey = new ArrayList<>(List.of("date", "host"));
    hostKey.addAll(dimensions.columns());
    List<String> dateKey = new ArrayList<>(List.of("date"));
    for (String c : STACK_KEY) {
      hostKey.add(c.equals("frames") ? stack : c);
      dateKey.add(c.equals("frames") ? stack : c);
    }
    // Each level feeds several outputs: kept, so that no write recomputes it. When each host
    // has one file a date, a host's stacks are its file's: the kept per-file rows, as they are.
    Dataset<Row> host =
        filesAreHosts
            ? keyed.select(oneFileHostColumns(hostKey))
            : kept(
                keyed
                    .groupBy(columns(hostKey))
                    .agg(hostSums(overLongs)[0], rest(hostSums(overLongs))));
    Dataset<Row> dateStacks =
        kept(host.groupBy(columns(dateKey)).agg(dateSums(overLongs)[0], rest(dateSums(overLongs))));
    // Not kept: only its write reads it, and the profile outputs (the CPU rows of a small run).
    Dataset<Row> stacks =
        withFrames(
            dateStacks,
            byKey ? distinct : null,
            List.of("date"),
            List.of("count", "value", "records", "profiles", "hosts"));
    List<String> hostLeading = new ArrayList<>(List.of("date", "host"));
    hostLeading.addAll(dimensions.columns());
    Dataset<Row> hostStacks =
        dimensions.collapsed(
            withFrames(
                host,
                byKey ? distinct : null,
                hostLeading,
                List.of("count", "value", "records", "profiles")));
    String[] modules = {
      "try_element_at(frames, 1).module AS leaf_module", "array_distinct(frames.module) AS modules"
    };
    Dataset<Row> hostModules =
        byKey
            ? host.join(distinct.selectExpr("stack_key", modules[0], modules[1]), "stack_key")
            : host.selectExpr("*", modules[0], modules[1]);
    KeyedStacks keyedStacks =
        byKey
            ? new KeyedStacks(dateStacks, distinct.select("stack_key", "frames"))
            : KeyedStacks.byFrames(dateStacks);
    return new StackLevels(hostStacks, stacks, hostModules, keyedStacks);
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
  private static Column[] hostSums(boolean overLongs) {
    return new Column[] {
      exactSum(col("count"), overLongs).as("count"),
      exactSum(col("value"), overLongs).as("value"),
      sum("records").as("records"),
      count(lit(1)).as("profiles")
    };
  }

  /**
   * A host's rows of a stack when it has one file: the file's own sums (already {@link #hostSums}'
   * types), one profile.
   */
  private static Column[] oneFileHostColumns(List<String> hostKey) {
    List<Column> out = new ArrayList<>(List.of(columns(hostKey)));
    out.addAll(List.of(col("count"), col("value"), col("records"), lit(1L).as("profiles")));
    return out.toArray(new Column[0]);
  }

  /** A date's sums of its hosts' rows of a stack. */
  private Column[] dateSums(boolean overLongs) {
    return new Column[] {
      exactSum(col("count"), overLongs).as("count"),
      exactSum(col("value"), overLongs).as("value"),
      sum("records").as("records"),
      sum("profiles").as("profiles"),
      // Unknown (no host= directory anywhere) is null, not 0 hosts.
      dimensions.hosts()
    };
  }

  /** A file's size in bytes, as listed for the read, on each of the job's rows of the file. */
  static final String FILE_SIZE = "_file_size";

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
  static Column[] selfAndTotal(String isSelf, boolean overLongs) {
    return new Column[] {
      exactSum(expr("CASE WHEN " + isSelf + " THEN count ELSE 0 END"), overLongs).as("self_count"),
      exactSum(col("count"), overLongs).as("total_count"),
      exactSum(
              expr("CASE WHEN " + isSelf + " THEN value WHEN value IS NOT NULL THEN 0 END"),
              overLongs)
          .as("self_value"),
      exactSum(col("value"), overLongs).as("total_value")
    };
  }

  /**
   * {@code sum(c)} as DECIMAL(38,0), summed over BIGINTs when {@code overLongs}. Spark keeps a
   * DECIMAL(38,0) sum in its aggregation buffers as bytes it turns into a {@code BigInteger} for
   * every row it adds; a BIGINT sum is an add. Exact either way: {@code overLongs} only when no sum
   * of the run's counts or values can leave a BIGINT ({@link #sumsFitLong}).
   */
  static Column exactSum(Column c, boolean overLongs) {
    return (overLongs ? sum(c.cast("bigint")) : sum(c)).cast("decimal(38,0)");
  }

  /**
   * Whether every sum of any of the run's per-file counts or values fits a BIGINT: none is negative
   * (counts are unsigned; a value is a count times a value_per_count, none of which is negative)
   * and the totals of all of them do. {@code measureRows}: {@link Read#measureRows}.
   */
  static boolean sumsFitLong(List<Row> measureRows) {
    java.math.BigDecimal counts = java.math.BigDecimal.ZERO;
    java.math.BigDecimal values = java.math.BigDecimal.ZERO;
    for (Row r : measureRows) {
      if (!r.isNullAt(6) && r.getLong(6) < 0) {
        return false;
      }
      if (!r.isNullAt(3)) {
        counts = counts.add(r.getDecimal(3));
      }
      if (!r.isNullAt(4)) {
        values = values.add(r.getDecimal(4));
      }
    }
    java.math.BigDecimal limit = java.math.BigDecimal.valueOf(Long.MAX_VALUE);
    return counts.signum() >= 0
        && values.signum() >= 0
        && counts.compareTo(limit) <= 0
        && values.compareTo(limit) <= 0;
  }

  private static Column[] rest(Column[] columns) {
    return java.util.Arrays.copyOfRange(columns, 1, columns.length);
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
}
