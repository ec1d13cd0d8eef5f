package dev.fleetprof.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet job's output directory, where a date changes for readers all at once or not at all.
 *
 * <p>Each run writes its rows of a date into a directory of its own, {@code
 * OUTPUT/DATASET/date=D/run=R/}, that no other run writes or replaces. One small file per date,
 * {@code OUTPUT/_current/date=D}, says which run's directory is the date's, per dataset; a run
 * publishes its dates by replacing that file atomically (a rename over it on local disks and HDFS,
 * one PUT on object stores) once every dataset is written. A reader that takes the pointer first
 * and then reads exactly the directories it names sees one run of each date, before or after a
 * re-run, whatever happens meanwhile: {@link #read} does, and so do the views {@code jobs/sql}
 * registers.
 *
 * <p>Each dataset's directory is also a Delta table ({@link DeltaTables}): before the pointers, one
 * commit per table replaces the run's dates with its files, so an engine reading the table sees one
 * run of each date. Delta commits one table at a time; the pointers are what keeps these readers on
 * one run across datasets.
 *
 * <p>The directories a re-run replaces stay for {@code keepReplaced} (a query that planned on them
 * finishes), then a later run deletes them. Until then a reader of the bare Parquet directories
 * sees both runs of that date, told apart by the {@code run} column: such readers keep the rows
 * whose {@code run} is the one {@code _current/date=D} names for the dataset.
 *
 * <p>Markers for schedulers are separate from the pointer: {@code _SUCCESS} in each dataset and
 * date directory, and the run record {@code _runs/date=D}, are removed when a run starts replacing
 * a date and written after it published, so they never stand beside a date being replaced.
 */
public final class FleetOutput {
  private static final Logger LOG = LoggerFactory.getLogger(FleetOutput.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The partition column naming the run that wrote a directory. */
  static final String RUN = "run";

  /**
   * Object stores' schemes: one PUT replaces an object atomically, and a rename is a copy (Delta
   * Kernel picks its own log stores for them).
   */
  static final Set<String> OBJECT_STORES =
      Set.of("s3a", "s3", "gs", "abfs", "abfss", "wasb", "wasbs", "oss");

  /** How long a replaced run's directories stay readable, unless a job is told otherwise. */
  static final Duration KEEP_REPLACED = Duration.ofHours(1);

  private FleetOutput() {}

  /**
   * What a date's pointer says: the run whose directory holds each dataset's rows, and the
   * directories replaced but kept for readers still on them.
   */
  record Pointer(
      String date,
      String run,
      String committed,
      Map<String, String> datasets,
      List<Replaced> kept) {
    Pointer {
      datasets = Map.copyOf(datasets);
      kept = List.copyOf(kept);
    }
  }

  /** A dataset's directory that a run replaced at {@code at}, kept for readers until swept. */
  record Replaced(String dataset, String run, String at) {
    /** Whether it was replaced no later than {@code cutoff}: kept long enough. */
    boolean expiredBy(Instant cutoff) {
      return !Instant.parse(at).isAfter(cutoff);
    }
  }

  /** A new run's id: when it started (sorts by time) and a random part (unique per run). */
  static String newRunId() {
    return DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now())
        + "-"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The pointer file of a date. */
  static Path pointerPath(Path output, Object date) {
    return new Path(new Path(output, "_current"), "date=" + date);
  }

  /** The directory a run's rows of one date go to. */
  static Path runDirectory(Path output, String dataset, Object date, String run) {
    return new Path(new Path(output, dataset), "date=" + date + "/" + RUN + "=" + run);
  }

  /** A date's pointer, or null when no run published the date. */
  static Pointer pointer(FileSystem fs, Path output, Object date) throws IOException {
    Path p = pointerPath(output, date);
    try (var in = fs.open(p)) {
      return parse(p, in.readAllBytes());
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /** Every published date's pointer, by date. */
  static Map<String, Pointer> pointers(FileSystem fs, Path output) throws IOException {
    Path dir = new Path(output, "_current");
    Map<String, Pointer> all = new TreeMap<>();
    FileStatus[] listed;
    try {
      listed = fs.listStatus(dir, p -> p.getName().startsWith("date="));
    } catch (FileNotFoundException e) {
      return all;
    }
    for (FileStatus st : listed) {
      try (var in = fs.open(st.getPath())) {
        Pointer p = parse(st.getPath(), in.readAllBytes());
        all.put(p.date(), p);
      } catch (FileNotFoundException e) {
        // removed since listed: not published any more
      }
    }
    return all;
  }

  /** Whether the output was written with run directories and pointers. */
  static boolean hasPointers(FileSystem fs, Path output) throws IOException {
    return fs.exists(new Path(output, "_current"));
  }

  private static Pointer parse(Path file, byte[] bytes) throws IOException {
    JsonNode n;
    try {
      n = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IOException(file + ": not a run pointer: " + e.getMessage(), e);
    }
    if (n == null || !n.hasNonNull("date") || !n.path("datasets").isObject()) {
      throw new IOException(file + ": not a run pointer (no date or datasets)");
    }
    Map<String, String> datasets = new LinkedHashMap<>();
    n.get("datasets")
        .fields()
        .forEachRemaining(e -> datasets.put(e.getKey(), e.getValue().asText()));
    List<Replaced> kept = new ArrayList<>();
    for (JsonNode r : n.path("kept")) {
      kept.add(
          new Replaced(r.path("dataset").asText(), r.path("run").asText(), r.path("at").asText()));
    }
    return new Pointer(
        n.get("date").asText(),
        n.path("run").asText(),
        n.path("committed").asText(),
        datasets,
        kept);
  }

  private static byte[] render(Pointer p) throws IOException {
    ObjectNode n = JSON.createObjectNode();
    n.put("date", p.date());
    n.put("run", p.run());
    n.put("committed", p.committed());
    ObjectNode datasets = n.putObject("datasets");
    p.datasets().forEach(datasets::put);
    var kept = n.putArray("kept");
    for (Replaced r : p.kept()) {
      kept.addObject().put("dataset", r.dataset()).put("run", r.run()).put("at", r.at());
    }
    return (JSON.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Replaces a date's pointer in one step, so that a reader finds the old pointer or the new one,
   * never none or half of one. Local disks: a rename over the old file ({@code rename(2)}). Object
   * stores: one PUT, which replaces an object atomically. Other file systems (HDFS): a rename with
   * overwrite, atomic there.
   */
  static void publish(FileSystem fs, Path output, Pointer p) throws IOException {
    Path target = pointerPath(output, p.date());
    byte[] bytes = render(p);
    FileSystem raw = fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    String scheme =
        target.toUri().getScheme() == null ? raw.getUri().getScheme() : target.toUri().getScheme();
    if (raw instanceof RawLocalFileSystem local) {
      java.nio.file.Path file = local.pathToFile(target).toPath();
      java.nio.file.Files.createDirectories(file.getParent());
      java.nio.file.Path tmp = file.resolveSibling("." + file.getFileName() + "." + p.run());
      java.nio.file.Files.write(tmp, bytes);
      java.nio.file.Files.move(
          tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } else if (OBJECT_STORES.contains(scheme)) {
      try (OutputStream o = raw.create(target, true)) {
        o.write(bytes);
      }
    } else {
      Path tmp = new Path(target.getParent(), "." + target.getName() + "." + p.run());
      try (OutputStream o = raw.create(tmp, true)) {
        o.write(bytes);
      }
      FileContext.getFileContext(raw.getUri(), raw.getConf())
          .rename(tmp, target, Options.Rename.OVERWRITE);
    }
  }

  /**
   * Writes one run's rows of a dataset, partitioned by date, each date into the run's own
   * directory. Spark's dynamic partition overwrite stages the files in a directory of the write's
   * own and moves each partition directory into place whole (one rename on local disks and HDFS),
   * so runs of other dates may write the same dataset meanwhile.
   */
  static void write(Dataset<Row> table, Path output, String dataset, String run)
      throws IOException {
    Path path = new Path(output, dataset);
    LOG.info("writing {} (run {})", path, run);
    try {
      withRun(table, run)
          .write()
          .mode(SaveMode.Overwrite)
          .option("partitionOverwriteMode", "dynamic")
          .partitionBy("date", RUN)
          .parquet(path.toString());
    } catch (FSError e) {
      // A task's failed write reaches here wrapped in Spark's exceptions; one on the driver, in
      // the commit (an empty _SUCCESS still writes its checksum file), as Hadoop's Error, bare.
      throw new IOException("could not write " + path + ": " + e.getMessage(), e);
    }
  }

  private static Dataset<Row> withRun(Dataset<Row> table, String run) {
    return table.withColumn(RUN, org.apache.spark.sql.functions.lit(run));
  }

  /**
   * The schema {@link #write} writes a dataset's rows with, {@code run} included: its Delta table's
   * schema. Planning only, no Spark job.
   */
  static StructType writtenSchema(Dataset<Row> table) {
    return withRun(table, "").schema();
  }

  /**
   * A dataset as published: for each date, the directory its pointer names, read after the pointer,
   * so one run per date whatever runs meanwhile. Outputs written before run directories (no {@code
   * _current/}) are read as they are. The {@code run} column is dropped: the rows are the dataset's
   * documented columns and {@code date}. To read several datasets of the same runs, read them from
   * one {@link #published} instead.
   */
  public static Dataset<Row> read(SparkSession spark, String output, String dataset)
      throws IOException {
    return published(spark, output).read(dataset);
  }

  /**
   * The output's pointers, read once: every dataset read from them shows the same run of each date,
   * even while a re-run publishes (reading the pointers again per dataset could see the switch
   * between two datasets).
   */
  public static Published published(SparkSession spark, String output) throws IOException {
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(spark.sparkContext().hadoopConfiguration());
    return new Published(spark, out, hasPointers(fs, out) ? pointers(fs, out) : null);
  }

  /** The runs an output's pointers named when read; {@code pointers} null for an older layout. */
  public static final class Published {
    private final SparkSession spark;
    private final Path output;
    private final Map<String, Pointer> pointers;

    private Published(SparkSession spark, Path output, Map<String, Pointer> pointers) {
      this.spark = spark;
      this.output = output;
      this.pointers = pointers;
    }

    /** A dataset's rows of the runs these pointers name (see {@link FleetOutput#read}). */
    public Dataset<Row> read(String dataset) throws IOException {
      if (pointers == null) {
        return spark.read().parquet(new Path(output, dataset).toString());
      }
      Map<Object, String> runs = new LinkedHashMap<>();
      for (Pointer p : pointers.values()) {
        String run = p.datasets().get(dataset);
        if (run != null) {
          runs.put(p.date(), run);
        }
      }
      return readRuns(spark, output, dataset, runs, null);
    }
  }

  /**
   * The given runs' directories of a dataset ({@code date -> run}), those that exist (a run with no
   * rows for a date writes none); {@code whenEmpty}'s rows when there are none, or an error naming
   * the dataset when {@code whenEmpty} is null.
   */
  static Dataset<Row> readRuns(
      SparkSession spark,
      Path output,
      String dataset,
      Map<Object, String> runs,
      StructType whenEmpty)
      throws IOException {
    FileSystem fs = output.getFileSystem(spark.sparkContext().hadoopConfiguration());
    List<String> paths = new ArrayList<>();
    for (Map.Entry<Object, String> e : runs.entrySet()) {
      Path dir = runDirectory(output, dataset, e.getKey(), e.getValue());
      if (fs.exists(dir)) {
        paths.add(dir.toString());
      }
    }
    if (paths.isEmpty()) {
      if (whenEmpty != null) {
        return spark.createDataFrame(List.of(), whenEmpty);
      }
      throw new IllegalArgumentException(
          "no published rows in " + new Path(output, dataset) + " (see " + output + "/_current)");
    }
    return spark
        .read()
        .option("basePath", new Path(output, dataset).toString())
        .parquet(paths.toArray(new String[0]))
        .drop(RUN);
  }

  /**
   * Publishes {@code run} as the date's run for {@code datasets} (other datasets keep the run the
   * pointer names), then deletes what no pointer needs any more: directories replaced longer than
   * {@code keepReplaced} ago, and directories of runs that never published (killed, failed). The
   * caller holds the date's lease.
   */
  static Pointer publishRun(
      FileSystem fs,
      Path output,
      Object date,
      String run,
      Iterable<String> datasets,
      Duration keepReplaced)
      throws IOException {
    Pointer before = pointer(fs, output, date);
    Map<String, String> now = new LinkedHashMap<>(before == null ? Map.of() : before.datasets());
    List<Replaced> kept = new ArrayList<>(before == null ? List.of() : before.kept());
    String at = Instant.now().toString();
    for (String d : datasets) {
      String old = now.put(d, run);
      if (old != null && !old.equals(run)) {
        kept.add(new Replaced(d, old, at));
      }
    }
    Pointer published = new Pointer(String.valueOf(date), run, at, now, kept);
    publish(fs, output, published);
    return sweep(fs, output, published, keepReplaced);
  }

  /**
   * Deletes a date's directories that its pointer neither names nor keeps (runs that never
   * published), and those kept longer than {@code keepReplaced}; republishes the pointer without
   * the latter. The caller holds the date's lease, so no run is writing the date meanwhile.
   */
  static Pointer sweep(FileSystem fs, Path output, Pointer p, Duration keepReplaced)
      throws IOException {
    Instant cutoff = Instant.now().minus(keepReplaced);
    List<Replaced> stay = new ArrayList<>();
    List<Replaced> expired = new ArrayList<>();
    for (Replaced r : p.kept()) {
      (r.expiredBy(cutoff) ? expired : stay).add(r);
    }
    Pointer after = p;
    if (!expired.isEmpty()) {
      after = new Pointer(p.date(), p.run(), p.committed(), p.datasets(), stay);
      publish(fs, output, after); // first: a pointer never keeps a deleted directory
    }
    for (Replaced r : expired) {
      Path dir = runDirectory(output, r.dataset(), p.date(), r.run());
      LOG.info("deleting {}, replaced at {}", dir, r.at());
      fs.delete(dir, true);
    }
    // Runs that never published: every run directory of the date the pointer does not account for.
    Set<String> accounted = new java.util.HashSet<>();
    after.datasets().forEach((d, run) -> accounted.add(d + "/" + run));
    after.kept().forEach(r -> accounted.add(r.dataset() + "/" + r.run()));
    for (String dataset : datasetsUnder(fs, output)) {
      Path dateDir = new Path(new Path(output, dataset), "date=" + p.date());
      FileStatus[] runs;
      try {
        runs = fs.listStatus(dateDir, x -> x.getName().startsWith(RUN + "="));
      } catch (FileNotFoundException e) {
        continue;
      }
      for (FileStatus st : runs) {
        String run = st.getPath().getName().substring(RUN.length() + 1);
        if (!accounted.contains(dataset + "/" + run)) {
          if (DeltaTables.holds(fs.getConf(), new Path(output, dataset), p.date(), run)) {
            continue; // committed to its table, then died: read there until a run replaces it
          }
          LOG.info("deleting {}, written by a run that did not publish", st.getPath());
          fs.delete(st.getPath(), true);
        }
      }
    }
    return after;
  }

  /** The dataset directories under an output (not its {@code _current}, {@code _runs}, ...). */
  private static List<String> datasetsUnder(FileSystem fs, Path output) throws IOException {
    List<String> names = new ArrayList<>();
    for (FileStatus st : fs.listStatus(output)) {
      String n = st.getPath().getName();
      if (st.isDirectory() && !n.startsWith("_") && !n.startsWith(".")) {
        names.add(n);
      }
    }
    return names;
  }

  /**
   * Deletes, across every published date, the directories replaced longer than {@code keepReplaced}
   * ago: a date is swept only while this run can take its lease (a date another run holds is left
   * for later).
   */
  static void sweepAll(FileSystem fs, Path output, Duration keepReplaced) throws IOException {
    Instant cutoff = Instant.now().minus(keepReplaced);
    for (Pointer p : pointers(fs, output).values()) {
      if (p.kept().stream().noneMatch(r -> r.expiredBy(cutoff))) {
        continue;
      }
      DateLease lease;
      try {
        lease = DateLease.acquire(fs, output, List.of(p.date()), newRunId());
      } catch (IllegalStateException held) {
        LOG.info("not sweeping date {}: {}", p.date(), held.getMessage());
        continue;
      }
      try (lease) {
        Pointer fresh = pointer(fs, output, p.date());
        if (fresh != null) {
          sweep(fs, output, fresh, keepReplaced);
        }
      }
    }
  }

  // ------------------------------------------------------------------ a run's commit protocol

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
    warmUpCommits(spark.sparkContext().hadoopConfiguration(), out, datasets, dates);
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

  /** Prepares a first table's commit on a daemon thread: see {@link DeltaTables#warmUp}. */
  private static void warmUpCommits(
      org.apache.hadoop.conf.Configuration conf,
      Path out,
      Iterable<String> datasets,
      List<Object> dates) {
    Iterator<String> first = datasets.iterator();
    if (first.hasNext()) {
      Path table = new Path(out, first.next());
      Thread t =
          new Thread(() -> DeltaTables.warmUp(conf, table, dates), "fleetprof-delta-warm-up");
      t.setDaemon(true);
      t.start();
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
      Map<String, StructType> datasets,
      List<Object> dates,
      String run,
      java.time.Duration keepReplaced)
      throws IOException {
    Path out = new Path(output);
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    FileSystem fs = out.getFileSystem(conf);
    Map<String, Long> versions = commitTables(conf, fs, out, datasets, dates, run);
    for (Object d : dates) {
      publishRun(fs, out, d, run, datasets.keySet(), keepReplaced);
    }
    try {
      writeMarkers(fs, out, datasets.keySet(), dates, run, versions);
    } catch (IOException | RuntimeException e) {
      // Some markers but not all (a full disk takes empty files, not the run record): none.
      try {
        removeMarkers(fs, out, datasets.keySet(), dates);
      } catch (IOException | RuntimeException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }

  /**
   * Commits the run's files of {@code dates} to each dataset's Delta table (see {@link
   * DeltaTables}), before any pointer names the run: a table never lacks what a published run
   * wrote. A table made here from an output written before the tables also gets every other date's
   * published run. Returns each table's version that holds the run.
   */
  private static Map<String, Long> commitTables(
      org.apache.hadoop.conf.Configuration conf,
      FileSystem fs,
      Path out,
      Map<String, StructType> datasets,
      List<Object> dates,
      String run)
      throws IOException {
    Map<String, Long> versions = new LinkedHashMap<>();
    Map<String, Pointer> published = null;
    for (Map.Entry<String, StructType> e : datasets.entrySet()) {
      Path table = new Path(out, e.getKey());
      Map<String, String> before = new LinkedHashMap<>();
      if (!DeltaTables.exists(fs, table)) {
        published = published != null ? published : pointers(fs, out);
        for (Pointer p : published.values()) {
          String r = p.datasets().get(e.getKey());
          if (r != null) {
            before.put(p.date(), r);
          }
        }
      }
      versions.put(
          e.getKey(), DeltaTables.commitRun(conf, table, e.getValue().json(), dates, run, before));
    }
    LOG.info("run {} committed to the tables under {}: versions {}", run, out, versions);
    return versions;
  }

  /**
   * Deletes the files of replaced runs of any date that have been kept long enough; a failure here
   * is logged, never the run's: its dates are published.
   */
  static void sweepOtherDates(SparkSession spark, String output, java.time.Duration keepReplaced) {
    Path out = new Path(output);
    try {
      sweepAll(out.getFileSystem(spark.sparkContext().hadoopConfiguration()), out, keepReplaced);
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
      FileSystem fs,
      Path out,
      Iterable<String> datasets,
      List<Object> dates,
      String run,
      Map<String, Long> versions)
      throws IOException {
    for (String dataset : datasets) {
      for (Object d : dates) {
        Path partition = new Path(out, dataset + "/date=" + d);
        if (fs.exists(partition)) {
          createFile(fs, new Path(partition, "_SUCCESS"), new byte[0]);
        }
      }
      createFile(fs, new Path(new Path(out, dataset), "_SUCCESS"), new byte[0]);
    }
    String committed = java.time.Instant.now().toString();
    for (Object d : dates) {
      createFile(
          fs,
          runRecord(out, d),
          ("{\"date\": \""
                  + d
                  + "\", \"run\": \""
                  + run
                  + "\", \"committed\": \""
                  + committed
                  + "\", \"datasets\": "
                  + jsonNames(datasets)
                  + ", \"versions\": "
                  + JSON.writeValueAsString(versions)
                  + "}\n")
              .getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * Creates (or replaces) a small file. Hadoop's local file system throws a failed write (a full
   * disk; even an empty file's checksum file is written on close) as {@link FSError}, an Error:
   * reported as the IOException it carries, which the callers' cleanup handles.
   */
  private static void createFile(FileSystem fs, Path file, byte[] content) throws IOException {
    try (OutputStream o = fs.create(file, true)) {
      o.write(content);
    } catch (FSError e) {
      throw new IOException("could not write " + file + ": " + e.getMessage(), e);
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
}
