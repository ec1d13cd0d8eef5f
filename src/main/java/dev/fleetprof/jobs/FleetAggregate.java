package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;

import java.io.IOException;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduled fleet aggregation job: a day of profiles from many hosts in, Parquet datasets that
 * say where the fleet's CPU went out (docs/fleet-job.md). Reads profile directories laid out like
 * {@code .../date=2026-11-20/host=web042/cpu.prof} and writes, under {@code --output}, the datasets
 * of {@link #DATASETS}, each date of a run published for readers all at once ({@link FleetOutput}).
 *
 * <p>A run, as {@link #aggregate} takes it:
 *
 * <ol>
 *   <li>the command line ({@link FleetCommandLine}) gives its {@link Args};
 *   <li>the dates it replaces are leased ({@link FleetOutput#beginDates}), at once with {@code
 *       --date}, else once the read has found them;
 *   <li>the Spark stages ({@link FleetStages}): one read of the inputs, the dictionary of distinct
 *       stacks, the datasets;
 *   <li>each dataset is written into the run's own directories, its rows observed as they go (two
 *       at a time in small runs, each started as soon as its dataset is planned, {@link Writes}),
 *       and the symbolization report computed;
 *   <li>the run is published ({@link FleetOutput#commitDates}) and older runs swept;
 *   <li>the summary ({@link FleetSummary}) and the CPU time as pprof, folded stacks and a flame
 *       graph ({@link StandardOutputs}).
 * </ol>
 *
 * <p>Run locally with {@code jobs/fleet-aggregate}, or on a cluster with {@code spark-submit
 * --class dev.fleetprof.jobs.FleetAggregate target/fleetprof-*.jar}.
 */
public final class FleetAggregate {
  private static final Logger LOG = LoggerFactory.getLogger(FleetAggregate.class);

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
      String debuginfodCache,
      List<String> droppedDimensions,
      List<String> labelDimensions) {
    /** A command line's arguments, or an IllegalArgumentException saying what is wrong with it. */
    static Args parse(String[] argv) {
      return CommandLines.parse(new FleetCommandLine(), argv);
    }

    /** Where to find binaries: the options, and the servers of {@code DEBUGINFOD_URLS}. */
    Symbolization.Options symbolization() {
      return Symbolization.Options.ofJob(binaries, useModulePaths, debuginfod, debuginfodCache);
    }
  }

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(
            new FleetCommandLine(), argv, System.out, System.err, FleetAggregate::run));
  }

  /** The datasets a run writes, in the order it writes them. */
  static final List<String> DATASETS =
      List.of("files", "stacks", "host_stacks", "locations", "modules", "functions");

  /**
   * What tests change in a run: a mask on the stack keys (so that distinct stacks can be made to
   * collide), what to do when a run falls back to grouping by frames, from how many per-file stack
   * rows a run asks whether each host has one file a date, and what to do when it has, below how
   * many it keeps its profile outputs' rows on the driver, and below how many its stages keep local
   * checkpoints rather than persisted datasets.
   */
  record Hooks(
      long keyMask,
      Runnable groupedByFrames,
      long askFilesPerHostFrom,
      Runnable oneFilePerHost,
      long outputsOnTheDriverBelowRows,
      long checkpointBelowRows) {
    static final Hooks NONE = new Hooks(-1L, () -> {});

    Hooks(
        long keyMask,
        Runnable groupedByFrames,
        long askFilesPerHostFrom,
        Runnable oneFilePerHost,
        long outputsOnTheDriverBelowRows) {
      this(
          keyMask,
          groupedByFrames,
          askFilesPerHostFrom,
          oneFilePerHost,
          outputsOnTheDriverBelowRows,
          CHECKPOINT_BELOW_ROWS);
    }

    /** These hooks, with stages that checkpoint below {@code rows} per-file stack rows. */
    Hooks checkpointingBelow(long rows) {
      return new Hooks(
          keyMask,
          groupedByFrames,
          askFilesPerHostFrom,
          oneFilePerHost,
          outputsOnTheDriverBelowRows,
          rows);
    }

    Hooks(long keyMask, Runnable groupedByFrames) {
      this(keyMask, groupedByFrames, BROADCAST_FROM_ROWS, () -> {});
    }

    Hooks(
        long keyMask, Runnable groupedByFrames, long askFilesPerHostFrom, Runnable oneFilePerHost) {
      this(
          keyMask,
          groupedByFrames,
          askFilesPerHostFrom,
          oneFilePerHost,
          OUTPUTS_ON_THE_DRIVER_BELOW_ROWS);
    }
  }

  static FleetSummary run(SparkSession spark, Args args) throws IOException {
    return run(spark, args, Hooks.NONE);
  }

  static FleetSummary run(SparkSession spark, Args args, Hooks hooks) throws IOException {
    // The caller's session gets its settings back afterwards.
    SessionSettings settings = new SessionSettings(spark);
    settings.set(COALESCE_CACHED, "true");
    settings.setUnlessSet(READ_SHUFFLE_PARTITION_BYTES, READ_SHUFFLE_PARTITION_SIZE);
    // Plan strings (the names of cached plans, the UI's SQL tab) list every column of the run's
    // widest aggregates, which dimensions widen past Spark's 25 fields: truncated, with a WARN.
    settings.setUnlessSet("spark.sql.debug.maxToStringFields", "100");
    // A run for a given date holds it from the start: no other run replaces files this one reads
    // back, and its markers go at once. Without --date the dates come from the data, and are taken
    // once known.
    DateLease early =
        args.date() != null
            ? FleetOutput.beginDates(spark, args.output(), DATASETS, List.of(args.date()))
            : null;
    try (FleetStages stages = new FleetStages(spark, args, hooks)) {
      return aggregate(spark, args, early, settings, stages, hooks);
    } finally {
      if (early != null) {
        early.close();
      }
      // The run names its jobs for the Spark UI; later jobs of this thread are not.
      spark.sparkContext().setJobDescription(null);
      settings.restore();
    }
  }

  /**
   * Lets adaptive execution coalesce the shuffle under the persisted aggregates to what the data
   * needs, as it does for any other shuffle. Otherwise they keep all {@code
   * spark.sql.shuffle.partitions} partitions, every write from them makes that many files in each
   * date partition, and every later stage runs that many tasks.
   */
  private static final String COALESCE_CACHED =
      "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning";

  /**
   * How large the partitions adaptive execution makes of the read's shuffle (the only one it plans,
   * see {@link #planTheRest}): small enough that each task's aggregate of per-file stacks fits its
   * memory: at Spark's 64 MB a large run's aggregates spill and fall back to sorting. A session
   * that sets it keeps its own.
   */
  private static final String READ_SHUFFLE_PARTITION_BYTES =
      "spark.sql.adaptive.advisoryPartitionSizeInBytes";

  private static final String READ_SHUFFLE_PARTITION_SIZE = "16m";

  /**
   * How many of the run's per-file stack rows a shuffle partition gets once their number is known
   * (a few MB of rows: small runs take a few tasks per stage, a 100,000-profile run ~100).
   */
  static final long ROWS_PER_PARTITION = 100_000;

  /**
   * Runs of fewer per-file stack rows than this plan one shuffle partition: each of a stage's tasks
   * deserializes the stage's plan before it reads a row, which costs a small run's task more than
   * its rows do, and every write makes a file per partition in each date.
   */
  static final long ONE_PARTITION_BELOW_ROWS = 10_000;

  /**
   * Runs of fewer per-file stack rows than this keep what their stages share as local checkpoints,
   * which later queries read as leaves of their plans (see {@link KeptDatasets}): the driver's
   * analysis of each later DataFrame step no longer walks the read's plan. Larger runs persist them
   * as compressed column batches, which a 2 GiB heap needs at 100,000 profiles.
   */
  static final long CHECKPOINT_BELOW_ROWS = 10_000;

  private static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";

  /**
   * A write partitioned by date keeps a file open per date its task meets instead of sorting its
   * rows by date first: Spark sorts every row of a dataset before a partitioned write otherwise,
   * and the per-host stacks with their frames are the largest rows a run has. A session that sets
   * it keeps its own.
   */
  private static final String CONCURRENT_WRITERS = "spark.sql.maxConcurrentOutputFileWriters";

  /**
   * The most files a write task keeps open at once (each buffers its pages in memory); past this
   * many dates, Spark sorts the rest.
   */
  private static final int MOST_WRITERS = 16;

  private static final String BROADCAST_THRESHOLD = "spark.sql.autoBroadcastJoinThreshold";
  private static final String SPARK_DEFAULT_BROADCAST_THRESHOLD = "10m";

  /**
   * From how many per-file stack rows on a run lets Spark broadcast the small side of its joins. A
   * broadcast runs a Spark job of its own to collect that side, a fixed cost that dominates small
   * runs; on large runs it saves shuffling and sorting the large side (10,000 bench profiles, 1.6
   * million rows: the modules/ and locations/ writes took twice as long as sort-merge joins).
   */
  static final long BROADCAST_FROM_ROWS = 500_000;

  /**
   * Once the first query has read the inputs and counted the per-file stack rows, every later query
   * of the run has the partitions those rows need, planned up front: adaptive execution would
   * otherwise run each query's every shuffle stage as a Spark job of its own and re-plan between
   * them, a fixed cost per stage that dominates small runs. The first query, which reads inputs of
   * unknown size, keeps adaptive execution to coalesce its shuffle. Returns the run's broadcast
   * limit (Spark's own, or none for small runs).
   */
  private static String planTheRest(SparkSession spark, SessionSettings settings, long rows) {
    int cores = spark.sparkContext().defaultParallelism();
    int most = Math.max(2 * cores, Integer.parseInt(spark.conf().get(SHUFFLE_PARTITIONS)));
    long wanted = (rows + ROWS_PER_PARTITION - 1) / ROWS_PER_PARTITION;
    int partitions =
        rows < ONE_PARTITION_BELOW_ROWS ? 1 : (int) Math.max(2L * cores, Math.min(most, wanted));
    settings.set("spark.sql.adaptive.enabled", "false");
    String broadcast = rows >= BROADCAST_FROM_ROWS ? SPARK_DEFAULT_BROADCAST_THRESHOLD : "-1";
    settings.set(BROADCAST_THRESHOLD, broadcast);
    settings.set(SHUFFLE_PARTITIONS, String.valueOf(partitions));
    LOG.info(
        "fleet-aggregate: {} stack rows: {} shuffle partitions from here, {}",
        rows,
        partitions,
        broadcast.equals("-1") ? "no broadcast joins" : "broadcast joins up to " + broadcast);
    return broadcast;
  }

  /**
   * How many datasets a run of fewer than {@link #BROADCAST_FROM_ROWS} per-file stack rows writes
   * at once. A write is a query planned on the driver, then tasks on the executors; one at a time,
   * the executors wait while the driver plans, and a small run's write (a few tasks a stage) leaves
   * cores idle: two at a time keep them busy. A large run's writes keep every core busy with their
   * own tasks, and two at a time cost it more than they save (docs/benchmark.md): it writes one at
   * a time.
   */
  static final int SMALL_RUN_WRITES = 2;

  /**
   * Below how many per-file stack rows a run computes its profile outputs beside the writes and
   * keeps their rows on the driver until the commit: at most as many distinct CPU stacks, each a
   * few KB with its frames' lines (deep stacks about 15 KB), so at most about 150 MB.
   */
  static final long OUTPUTS_ON_THE_DRIVER_BELOW_ROWS = 10_000;

  /**
   * The run's writes into the run's directories, {@code threads} at a time; each starts as soon as
   * its dataset is added, while the driver goes on planning the others. Those of the {@code
   * broadcastNames}, and the symbolization report, read the names the {@code locations} write keeps
   * (their size then known), so they start after all the others, with Spark's broadcast limit (a
   * session setting every thread shares: no other query is planned meanwhile). A small run's
   * profile outputs are computed among the first ones, once the names are planned, and kept for
   * after the commit. The lease is checked before each write; the first failure stops the rest and
   * is thrown.
   */
  private static final class Writes {
    private final Args args;
    private final DateLease lease;
    private final String run;
    private final BiFunction<String, Dataset<Row>, Dataset<Row>> observe;
    private final ConcurrentJobs first;
    private final ConcurrentJobs then;

    /** The datasets started, and the schema each is written with (its Delta table's). */
    private final Map<String, StructType> added = new HashMap<>();

    private final StandardOutputs.Targets outputs;
    private final List<Object> dates;
    private Dataset<Row> stacks;
    private Future<List<Row>> outputRows;

    Writes(
        SparkSession spark,
        Args args,
        DateLease lease,
        String run,
        int threads,
        BiFunction<String, Dataset<Row>, Dataset<Row>> observe,
        List<Object> dates,
        boolean outputsOnTheDriver) {
      this.args = args;
      this.lease = lease;
      this.run = run;
      this.observe = observe;
      this.dates = dates;
      StandardOutputs.Targets targets = targets(args);
      // A small run's profile outputs fit the driver: computed while the datasets are written,
      // written once they are published. A larger run's stream to the files afterwards.
      this.outputs = outputsOnTheDriver && targets.any() ? targets : null;
      this.first = new ConcurrentJobs(spark, "fleet-aggregate-" + run, threads);
      this.then = new ConcurrentJobs(spark, "fleet-aggregate-" + run, threads);
      first.start();
    }

    /**
     * Starts writing {@code table} as dataset {@code name} (its rows observed); given the names
     * ({@link FleetStages#SYMBOLS}), starts computing a small run's profile outputs.
     */
    void start(String name, Dataset<Row> table) {
      if (name.equals(FleetStages.SYMBOLS)) {
        if (outputs != null && stacks != null) {
          Dataset<Row> rows =
              StandardOutputs.cpuTimeRows(stacks.where(col("date").isin(dates.toArray())), table);
          outputRows = first.add("fleet-aggregate: profile outputs", rows::collectAsList);
        }
        return;
      }
      if (name.equals("stacks")) {
        stacks = table;
      }
      add(first, name, table);
    }

    /** Each dataset written, in {@link #DATASETS}' order, with the schema it was written with. */
    Map<String, StructType> written() {
      Map<String, StructType> inOrder = new LinkedHashMap<>();
      for (String name : DATASETS) {
        StructType schema = added.get(name);
        if (schema == null) {
          throw new IllegalStateException("dataset " + name + " was not written");
        }
        inOrder.put(name, schema);
      }
      return inOrder;
    }

    /** The profile outputs' rows computed alongside the writes, or null: none were. */
    List<Row> outputRows() {
      return outputRows == null ? null : ConcurrentJobs.result(outputRows);
    }

    /**
     * Writes the datasets not started yet, computes the report meanwhile and waits for every write;
     * returns the report.
     */
    String finish(FleetStages.Datasets datasets, SessionSettings settings, String broadcast)
        throws IOException {
      for (Map.Entry<String, Dataset<Row>> t : datasets.tables().entrySet()) {
        if (!added.containsKey(t.getKey())) {
          add(
              datasets.broadcastNames().contains(t.getKey()) ? then : first,
              t.getKey(),
              t.getValue());
        }
      }
      Future<String> report =
          then.add(
              "fleet-aggregate: summary",
              () -> FleetSummary.symbolizationReport(datasets.symbols(), datasets.rawLocations()));
      first.run();
      settings.set(BROADCAST_THRESHOLD, SPARK_DEFAULT_BROADCAST_THRESHOLD);
      then.run();
      settings.set(BROADCAST_THRESHOLD, broadcast);
      return ConcurrentJobs.result(report);
    }

    /** Stops the writes after a failure of the caller's; none runs once this returns. */
    void cancel() {
      first.cancel();
      then.cancel();
    }

    private void add(ConcurrentJobs jobs, String name, Dataset<Row> table) {
      Dataset<Row> observed = observe.apply(name, table);
      added.put(name, FleetOutput.writtenSchema(observed));
      jobs.add(
          "fleet-aggregate: writing " + name,
          () -> {
            lease.check();
            FleetOutput.write(observed, new Path(args.output()), name, run);
            return null;
          });
    }
  }

  private static StandardOutputs.Targets targets(Args args) {
    return new StandardOutputs.Targets(args.pprof(), args.folded(), args.flamegraph());
  }

  private static FleetSummary aggregate(
      SparkSession spark,
      Args args,
      DateLease early,
      SessionSettings settings,
      FleetStages stages,
      Hooks hooks)
      throws IOException {
    long started = System.nanoTime();
    LOG.info("fleet-aggregate: reading {} -> {}", args.inputs(), args.output());
    FleetStages.Read read = stages.read(true);
    String broadcast = planTheRest(spark, settings, read.stackRows());
    Dataset<Row> distinct = stages.distinctStacks(read);
    if (distinct == null) {
      read = stages.read(false);
    }
    List<Object> dates = read.dates();
    settings.setUnlessSet(CONCURRENT_WRITERS, String.valueOf(Math.min(dates.size(), MOST_WRITERS)));
    String run = FleetOutput.newRunId();
    // Each dataset's rows (and the files' totals) are observed as it is written: the summary needs
    // no job of its own.
    Map<String, Observation> observed = new LinkedHashMap<>();
    FleetStages.Datasets datasets;
    String report;
    List<Row> outputRows;
    Map<String, StructType> written;
    try (DateLease lease =
        early != null ? early : FleetOutput.beginDates(spark, args.output(), DATASETS, dates)) {
      int threads = read.stackRows() < BROADCAST_FROM_ROWS ? SMALL_RUN_WRITES : 1;
      Writes writes =
          new Writes(
              spark,
              args,
              lease,
              run,
              threads,
              FleetSummary.observer(observed, stages.dimensions()),
              dates,
              read.stackRows() < hooks.outputsOnTheDriverBelowRows());
      try {
        datasets = stages.datasets(read, distinct, writes::start);
        report = writes.finish(datasets, settings, broadcast);
        outputRows = writes.outputRows();
        written = writes.written();
      } catch (IOException | RuntimeException | Error e) {
        writes.cancel();
        throw e;
      }
      spark.sparkContext().setJobDescription("fleet-aggregate: publishing");
      lease.check();
      FleetOutput.commitDates(spark, args.output(), written, dates, run, args.keepReplaced());
    }
    FleetOutput.sweepOtherDates(spark, args.output(), args.keepReplaced());

    spark.sparkContext().setJobDescription("fleet-aggregate: summary and profile outputs");
    FleetSummary summary =
        FleetSummary.of(args, observed, read.measureRows(), dates, datasets.dimensions(), started)
            .withSymbolization(report);
    FleetSummary.MeasureTotal cpu = summary.measures().get(Measures.CPU);
    StandardOutputs.Labels labels =
        new StandardOutputs.Labels(
            "fleet "
                + FleetSummary.fleetName(args.inputs())
                + " "
                + String.join(",", summary.dates()),
            String.format(
                "fleetprof: CPU time of %s on %s: %d of %d files gave CPU samples",
                String.join(", ", args.inputs()),
                String.join(", ", summary.dates()),
                cpu == null ? 0 : cpu.files(),
                summary.files()),
            FleetSummary.periodNote(args.effectivePeriods()));
    if (outputRows != null) {
      StandardOutputs.writeCpuTimeRows(spark, outputRows, targets(args), labels);
    } else {
      StandardOutputs.writeCpuTime(
          spark,
          datasets.stacks().where(col("date").isin(dates.toArray())),
          datasets.symbols(),
          targets(args),
          labels);
    }
    summary.print(args);
    return summary;
  }
}
