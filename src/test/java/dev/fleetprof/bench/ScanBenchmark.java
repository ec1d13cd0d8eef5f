package dev.fleetprof.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import com.sun.management.OperatingSystemMXBean;
import dev.fleetprof.bench.Inputs.Binaries;
import dev.fleetprof.bench.Inputs.Input;
import dev.fleetprof.bench.Processes.Outcome;
import dev.fleetprof.bench.ReferenceDecode.Totals;
import dev.fleetprof.bench.Report.Row;
import dev.fleetprof.spark.ProfileDataSource;
import dev.fleetprof.testing.PprofRaw;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The scan benchmark, run by {@code bench/run}: generates its inputs (a large gperftools profile, a
 * fleet of small ones, a large gmon.out and DCPI file), then measures in one run the plain
 * single-threaded Java reference and every way of reading them (the {@code profile} source with
 * several queries and core counts, the naive {@code binaryFile} + UDF, the fleet job, {@code go
 * tool pprof}, and the heap needed for 1 and 4 GiB profiles), and prints one Markdown table with
 * each row's ratio to the reference. Every row's result is checked against what its input holds, so
 * a fast wrong answer cannot pass as a measurement.
 */
public final class ScanBenchmark {
  private final BenchOptions opt;
  private final Inputs inputs;
  private static final OperatingSystemMXBean CPU =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final Report report = new Report();
  private final HotMethods hot;
  private SparkSession spark;

  private ScanBenchmark(BenchOptions opt) throws Exception {
    this.opt = opt;
    this.inputs = new Inputs(opt.dir());
    if (opt.jfr() != null) {
      Files.createDirectories(opt.jfr());
      hot = new HotMethods(opt.jfr());
    } else {
      hot = null;
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(BenchOptions.USAGE);
      return;
    }
    BenchOptions opt;
    try {
      opt = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage() + "\n\n" + BenchOptions.USAGE);
      System.exit(2);
      return;
    }
    new ScanBenchmark(opt).run();
  }

  interface Action {
    void run() throws Exception;
  }

  private void run() throws Exception {
    long started = System.nanoTime();
    System.out.println(Report.machine());
    if (!opt.runs("large")
        && !opt.runs("fleet")
        && !opt.runs("formats")
        && !opt.runs("quickstart")
        && !opt.runs("job")
        && !opt.runs("deep")
        && !opt.runs("scale")
        && !opt.runs("symbols")) {
      memory();
      finish(started);
      return;
    }
    Input large = inputs.cpuProfile(opt.largeBytes());
    Input warm = inputs.cpuProfile(Math.min(32L << 20, opt.largeBytes()));

    System.out.println("reference decodes ...");
    references(large);
    Row oneCore = null;
    Row[] twoCoreRows = null;
    if (opt.runs("large")) {
      oneCore = largeFileRows(large, warm, 1)[0];
      twoCoreRows = largeFileRows(large, warm, 2);
    }
    Binaries binaries =
        opt.runs("fleet") || opt.runs("job") || opt.runs("symbols") || opt.runs("scale")
            ? inputs.binaries(opt.binaryScale())
            : null;
    Input fleet =
        opt.runs("fleet") || opt.runs("job") ? inputs.fleet(opt.smallFiles(), binaries) : null;
    Row[] small = null;
    if (opt.runs("fleet")) {
      if (spark == null) {
        session(2);
      }
      small = fleetRows(fleet, large);
    }
    if (opt.runs("formats")) {
      Input gmon = inputs.gmon(opt.gmonBytes());
      Input dcpi = inputs.dcpi(opt.dcpiBytes());
      // A quarter of the DCPI size: go tool pprof holds a whole profile as Go objects.
      Input pprofFile = inputs.pprof(opt.dcpiBytes() / 4);
      session(2);
      otherFormats(gmon, dcpi, pprofFile);
      goPprofRaw(pprofFile);
    }
    if (spark != null) {
      spark.stop();
      spark = null;
    }
    Report.Lookups[] lookups = null;
    if (opt.runs("symbols")) {
      lookups = symbolizerRows(binaries);
    }
    if (opt.runs("quickstart")) {
      quickStart();
    }
    Row job = null;
    Row jobNamed = null;
    Row jobWarm = null;
    Row pprof = null;
    Row jobFloor = null;
    if (opt.runs("job")) {
      Row[] jobs = fleetJobs(fleet, binaries);
      job = jobs[0];
      jobNamed = jobs[1];
      jobWarm =
          warmJobRow(
              "fleet job, run " + WARM_RUNS + " of " + WARM_RUNS + " in one JVM (warm)",
              fleet,
              "fleet-warm",
              true);
      pprof = goPprof(fleet);
      jobFloor =
          readFloorRow(fleet.path().toString(), fleet.label(), "fleet-floor", fleet.records());
    }
    Row deepJob = null;
    Row deepPprof = null;
    Row deepWarm = null;
    Row deepFloor = null;
    if (opt.runs("deep")) {
      Input deep = inputs.deepFleet(opt.deepFiles());
      deepJob =
          jobRow(
              "fleet job end to end, real profiles with deep chains",
              deep,
              null,
              runJob(deep, null, "4g", "deep"),
              false);
      deepWarm =
          warmJobRow(
              "fleet job, run "
                  + WARM_RUNS
                  + " of "
                  + WARM_RUNS
                  + " in one JVM (warm), deep chains",
              deep,
              "deep-warm",
              false);
      deepPprof = goPprof(deep);
      deepFloor =
          readFloorRow(
              deep.path().toString(),
              deep.label(),
              "deep-floor",
              deep.records(),
              Path.of(jobOutput("deep-warm") + "-" + WARM_RUNS));
    }
    Row scaleJob = null;
    Row scalePprof = null;
    Row scaleFloor = null;
    if (opt.runs("scale")) {
      Input big = inputs.fleet(opt.scaleFiles(), binaries);
      scaleJob =
          jobRow(
              "fleet job end to end, a 2 GiB heap",
              big,
              null,
              runJob(big, null, SCALE_HEAP, "scale"));
      scalePprof = goPprof(big);
      scaleFloor = readFloorRow(big.path().toString(), big.label(), "scale-floor", big.records());
    }

    if (twoCoreRows != null) {
      // Issue 14's targets.
      target("all columns → noop ≥ 0.5x reference", twoCoreRows[0], 0.5);
      target("`sum(count)` ≥ 1.5x reference", twoCoreRows[1], 1.5);
      target("group by `frames`, sum(count) ≥ 1.0x reference", twoCoreRows[2], 1.0);
      double scaling = oneCore.seconds() / twoCoreRows[0].seconds();
      report.target(
          "2 cores ≥ 1.8x 1 core (all columns, large file)", fmt("%.2fx", scaling), scaling >= 1.8);
    }
    if (small != null) {
      report.target(
          String.format("%,d small profiles: planning < 10 s", fleet.files()),
          fmt("%.2f s", small[0].seconds()),
          small[0].seconds() < 10);
      if (twoCoreRows != null) {
        double smallVsLarge = small[1].mbPerSecond() / twoCoreRows[0].mbPerSecond();
        report.target(
            "small profiles ≥ 0.5x the large-file rate (all columns → noop)",
            fmt(
                "%.2fx (%,.0f vs %,.0f MB/s)",
                smallVsLarge, small[1].mbPerSecond(), twoCoreRows[0].mbPerSecond()),
            smallVsLarge >= 0.5);
      }
    }
    // Issue 28's targets.
    if (job != null) {
      pprofTarget(
          "fleet job ≥ 2x faster than `go tool pprof -proto` merging (cold)",
          job,
          jobWarm,
          pprof,
          2,
          false,
          jobFloor);
    }
    if (deepJob != null) {
      pprofTarget(
          "fleet job ≥ 0.3x `go tool pprof -proto`, real profiles with deep chains (cold)",
          deepJob,
          deepWarm,
          deepPprof,
          0.3,
          false,
          deepFloor);
      pprofTarget(
          "fleet job ≥ 1x `go tool pprof -proto`, real profiles with deep chains (warm JVM)",
          deepJob,
          deepWarm,
          deepPprof,
          1,
          true,
          deepFloor);
    }
    if (scaleJob != null) {
      pprofTarget(
          String.format(
              "fleet job ≥ 4x faster than `go tool pprof -proto` on %,d profiles, %s heap",
              opt.scaleFiles(), SCALE_HEAP.replace("g", " GiB")),
          scaleJob,
          null,
          scalePprof,
          4,
          false,
          scaleFloor);
    }
    if (scaleJob != null) {
      String what =
          String.format(
              "fleet job on %,d profiles completes in a %s heap, its time per profile ≤ the %,d"
                  + " profiles' job's",
              opt.scaleFiles(), SCALE_HEAP.replace("g", " GiB"), opt.smallFiles());
      if (Double.isNaN(scaleJob.seconds())) {
        report.target(what, "failed", false);
      } else if (job == null || Double.isNaN(job.seconds())) {
        report.target(
            what, fmt("completed in %.1f s; not compared (no job row)", scaleJob.seconds()), null);
      } else {
        double perProfile = scaleJob.seconds() / opt.scaleFiles();
        double x = perProfile / (job.seconds() / opt.smallFiles());
        report.target(
            what,
            fmt(
                "%.2fx (%.1f s for %,d, %.1f s for %,d)",
                x, scaleJob.seconds(), opt.scaleFiles(), job.seconds(), opt.smallFiles()),
            x <= 1);
      }
    }
    if (job != null && jobNamed != null) {
      String what = "fleet job with `--binaries` ≤ 1.25x the time without";
      if (Double.isNaN(job.seconds()) || Double.isNaN(jobNamed.seconds())) {
        report.target(what, "not measured", null);
      } else {
        double x = jobNamed.seconds() / job.seconds();
        report.target(
            what,
            fmt(
                "%.2fx (%.1f s vs %.1f s; the job alone, JVM start excluded," + " %.2fx)",
                x, jobNamed.seconds(), job.seconds(), jobAlone.get(jobNamed) / jobAlone.get(job)),
            x <= 1.25);
      }
    }
    if (lookups != null) {
      String what =
          "`BinarySymbols` faster than `llvm-symbolizer` (addresses/s, tables built"
              + " included, fresh JVM)";
      if (Double.isNaN(lookups[0].seconds()) || Double.isNaN(lookups[1].seconds())) {
        report.target(what, "not measured", null);
      } else {
        double x = lookups[0].perSecond() / lookups[1].perSecond();
        report.target(
            what,
            fmt(
                "%.2fx (%,.0f vs %,.0f addresses/s; JIT warm %.2fx)",
                x,
                lookups[0].perSecond(),
                lookups[1].perSecond(),
                lookups[2].perSecond() / lookups[1].perSecond()),
            x > 1);
      }
    }
    if (opt.runs("memory")) {
      memory();
    }
    finish(started);
  }

  /**
   * pprof's time over the job's, at least {@code goal}: judged on the cold run, as a user runs the
   * job (the warm run's ratio shown beside it), or on the warm run when {@code onWarm}.
   */
  private void pprofTarget(
      String what, Row job, Row warm, Row pprof, double goal, boolean onWarm, Row floor) {
    Row judged = onWarm ? warm : job;
    if (pprof != null
        && judged != null
        && !Double.isNaN(pprof.seconds())
        && !Double.isNaN(judged.seconds())) {
      double x = pprof.seconds() / judged.seconds();
      String warmText =
          onWarm || warm == null || Double.isNaN(warm.seconds())
              ? ""
              : fmt("; warm JVM %.2fx (%.1f s)", pprof.seconds() / warm.seconds(), warm.seconds());
      Double floorSeconds =
          floor == null || Double.isNaN(floor.seconds())
              ? null
              : onWarm ? warmReads.get(floor) : Double.valueOf(floor.seconds());
      String floorText =
          floorSeconds == null
              ? ""
              : fmt(
                  "; floor, the job's read alone%s: %.1f s, %.2fx",
                  onWarm ? " (warm)" : " in a fresh JVM",
                  floorSeconds,
                  pprof.seconds() / floorSeconds);
      Double writes = floorSeconds == null ? null : (onWarm ? warmWrites : coldWrites).get(floor);
      if (writes != null) {
        floorText +=
            fmt(
                "; with the writes of its rows from memory (%s): %.1f s, %.2fx",
                onWarm ? "warm" : "the first, in a fresh session",
                floorSeconds + writes,
                pprof.seconds() / (floorSeconds + writes));
      }
      report.target(
          what,
          fmt(
              "%.2fx (%.1f s vs %.1f s%s%s)",
              x, judged.seconds(), pprof.seconds(), warmText, floorText),
          x >= goal);
    } else {
      report.target(what, "not measured", null);
    }
  }

  /** {@link dev.fleetprof.jobs.BareSparkSession} in a child JVM, on the class archive. */
  private Outcome bareSession(List<String> args, String name) throws Exception {
    return bareSession(args, name, true);
  }

  /** As above, on the class archive only if {@code classArchive}. */
  private Outcome bareSession(List<String> args, String name, boolean classArchive)
      throws Exception {
    return testCodeJob("dev.fleetprof.jobs.BareSparkSession", args, name, classArchive);
  }

  /** A main class of the test code in a child JVM with a 4 GiB heap, as {@link #childJob}. */
  private Outcome testCodeJob(String main, List<String> args, String name, boolean classArchive)
      throws Exception {
    return childJob(
        Processes.jobClasspath()
            + java.io.File.pathSeparator
            + Path.of("target", "test-classes").toAbsolutePath(),
        main,
        args,
        "4g",
        name,
        classArchive,
        List.of());
  }

  /** As {@link #testCodeJob(String, List, String, boolean)}, on the class archive. */
  private Outcome testCodeJob(String main, List<String> args, String name) throws Exception {
    return testCodeJob(main, args, name, true);
  }

  /** Each read-floor row's last (warm) read, in seconds. */
  private final Map<Row, Double> warmReads = new java.util.IdentityHashMap<>();

  /** A read-floor row's last (warm) write of its job's output rows, in seconds, where measured. */
  private final Map<Row, Double> warmWrites = new java.util.IdentityHashMap<>();

  /**
   * A read-floor row's first write of its job's output rows (the JVM and session started, nothing
   * written yet), in seconds, where measured: with the read's fresh JVM, the cold floor of a job
   * that reads and writes.
   */
  private final Map<Row, Double> coldWrites = new java.util.IdentityHashMap<>();

  private static final Pattern FLOOR_REWRITE =
      Pattern.compile("rewrite (\\d+) of (\\d+): ([0-9.]+) s \\((\\d+) rows\\)");

  private static final Pattern FLOOR_READ =
      Pattern.compile("read (\\d+) of (\\d+): ([0-9.]+) s \\((\\d+) stack rows, (\\d+) records\\)");

  /**
   * The floor under the job's rows: a fresh JVM that starts the session and reads {@code path} as
   * the job's first stage does (the source's stack rows, summed), three times ({@link
   * dev.fleetprof.jobs.BareSparkSession}). The row is the child's whole time (the cold floor); its
   * notes and {@link #warmReads} have the last read (the warm floor). Checked: it read {@code
   * records} records (unless negative).
   */
  private Row readFloorRow(String path, String input, String name, long records) throws Exception {
    return readFloorRow(path, input, name, records, null);
  }

  /**
   * As above; with {@code written} (the output of a warm job row's last run), a second fresh JVM
   * writes that output's rows again from memory, three times ({@code --rewrite}): what the job's
   * writes cost whatever computes the rows, the first time ({@link #coldWrites}, added to the
   * read's fresh JVM for the cold floor) and the third ({@link #warmWrites}, added to the warm
   * read).
   */
  private Row readFloorRow(String path, String input, String name, long records, Path written)
      throws Exception {
    System.out.println("the job's read alone (floor), " + input + " ...");
    Outcome o = bareSession(List.of("--read", path, "--runs", "3"), name);
    Matcher last = o.ok() ? lastMatch(FLOOR_READ, o.output()) : null;
    Matcher rewrite = null;
    Matcher firstRewrite = null;
    if (written != null && Files.isDirectory(written)) {
      Path dir = jobOutput(name);
      Inputs.delete(dir);
      Outcome w =
          bareSession(
              List.of(
                  "--rewrite", written.toString(), "--write-dir", dir.toString(), "--runs", "3"),
              name + "-rewrite");
      rewrite = w.ok() ? lastMatch(FLOOR_REWRITE, w.output()) : null;
      firstRewrite = w.ok() ? firstMatch(FLOOR_REWRITE, w.output()) : null;
      if (rewrite == null) {
        report.problem("write floor " + input + ": " + w.tail());
      }
    }
    Row row =
        report.add(
            new Row(
                "a bare Spark session + the job's read of the stack rows, summed (fresh JVM)",
                input,
                last != null ? o.seconds() : Double.NaN,
                0,
                0,
                last != null
                    ? fmt(
                        "the floor of any Spark job over these inputs; JVM start included; warm"
                            + " (3rd read in the JVM) %s s; %s stack rows, %s records%s",
                        last.group(3),
                        last.group(4),
                        last.group(5),
                        rewrite == null
                            ? ""
                            : fmt(
                                "; then the job's output rows written again from memory in"
                                    + " a fresh JVM: %s s the first time, %s s the 3rd (warm),"
                                    + " %s rows",
                                firstRewrite.group(3), rewrite.group(3), rewrite.group(4)))
                    : "failed"));
    if (last != null && records >= 0 && Long.parseLong(last.group(5)) != records) {
      report.problem("read floor " + input + ": " + last.group(5) + " records, not " + records);
    }
    if (rewrite != null) {
      warmWrites.put(row, Double.parseDouble(rewrite.group(3)));
    }
    if (firstRewrite != null) {
      coldWrites.put(row, Double.parseDouble(firstRewrite.group(3)));
    }
    if (last != null) {
      warmReads.put(row, Double.parseDouble(last.group(3)));
    } else {
      report.problem("read floor " + input + ": " + o.tail());
    }
    return row;
  }

  /** The datasets the fleet job writes, each at least one Spark job. */
  private static final int JOB_DATASETS = 6;

  private static final Pattern FLOOR_WRITE = Pattern.compile("write (\\d+) of (\\d+): ([0-9.]+) s");

  /**
   * A floor under the job that the read alone does not show: a fresh JVM that starts the session,
   * reads {@code path} once as the job's first stage does, then writes {@link #JOB_DATASETS}
   * one-row Parquet datasets, one Spark job each ({@link dev.fleetprof.jobs.BareSparkSession}
   * {@code --writes}). No dataset the job writes is smaller, so no job that reads these inputs and
   * writes its six datasets with Spark can be faster; the row is the child's whole time.
   */
  private Row writeFloorRow(String path, String input, String name) throws Exception {
    System.out.println("the job's read and six one-row writes (floor), " + input + " ...");
    Path dir = inputs.dir().resolve(name + "-output");
    Inputs.delete(dir);
    Outcome o =
        bareSession(
            List.of(
                "--read",
                path,
                "--runs",
                "1",
                "--writes",
                String.valueOf(JOB_DATASETS),
                "--write-dir",
                dir.toString()),
            name);
    List<String> each = new ArrayList<>();
    if (o.ok()) {
      Matcher m = FLOOR_WRITE.matcher(o.output());
      while (m.find()) {
        each.add(m.group(3));
      }
    }
    boolean ok = each.size() == JOB_DATASETS;
    if (!ok) {
      report.problem("write floor " + input + ": " + o.tail());
    }
    return report.add(
        new Row(
            "a bare Spark session + the job's read + six one-row Parquet writes (fresh JVM)",
            input,
            ok ? o.seconds() : Double.NaN,
            0,
            0,
            ok
                ? fmt(
                    "the floor of a job writing six datasets; each write (s): %s",
                    String.join(", ", each))
                : "failed"));
  }

  /** The Spark jobs an event log records (adaptive execution's stage jobs included). */
  private static final Pattern JOB_START =
      Pattern.compile("\\{\"Event\":\"SparkListenerJobStart\"");

  /**
   * The README's quick-start job on the demo fleet in a fresh JVM, against a fresh JVM that starts
   * the same local Spark session and runs {@code SELECT 1} (the floor of any Spark job), and the
   * number of Spark jobs the quick-start run started, from its event log.
   */
  private void quickStart() throws Exception {
    System.out.println("bare Spark session, then the quick-start job ...");
    // The floor as any Spark application starts (no archive of ours), and as the launcher starts a
    // job (on its class archive, when there is one).
    Outcome bare = bareSession(List.of(), "bare-session", false);
    Row bareRow =
        bareSessionRow("a bare local Spark session: start, `SELECT 1`, stop (fresh JVM)", bare);
    Row archivedBareRow =
        Processes.classArchive() == null
            ? null
            : bareSessionRow(
                "the same on the launcher's class archive (jobs/lib/class-archive)",
                bareSession(List.of(), "bare-session-archived"));
    readFloorRow("sample-fleet", "sample-fleet", "quickstart-floor", -1);
    Row writeFloor = writeFloorRow("sample-fleet", "sample-fleet", "quickstart-write-floor");
    Path out = jobOutput("quickstart");
    Path events = inputs.dir().resolve("quickstart-events");
    Inputs.delete(out);
    Inputs.delete(events);
    Files.createDirectories(events);
    List<String> args =
        List.of(
            "--input",
            "sample-fleet",
            "--output",
            out.toString(),
            "--binaries",
            "sample-fleet/_reference/bin",
            "--pprof",
            out.resolve("cpu.pb.gz").toString(),
            "--folded",
            out.resolve("cpu.folded").toString(),
            "--flamegraph",
            out.resolve("cpu.html").toString());
    // The README's command itself: jobs/fleet-aggregate picks the JIT and the class archive.
    List<String> command = new ArrayList<>(List.of("jobs/fleet-aggregate"));
    command.addAll(args);
    Outcome job =
        Processes.run(
            command,
            inputs.dir().resolve("quickstart-job.log"),
            3600,
            Map.of(
                "SPARK_LOCAL_IP",
                "127.0.0.1",
                "FLEETPROF_LOG_FILE",
                inputs.dir().resolve("quickstart-fleetprof.log").toString(),
                "FLEETPROF_JAVA_OPTS",
                "-Xmx4g -Dspark.eventLog.enabled=true -Dspark.eventLog.compress=false"
                    + " -Dspark.eventLog.dir="
                    + events.toUri()));
    long jobs = 0;
    // Spark 4 writes an event log as a directory of files (rolling logs), Spark 3.5 as a file.
    try (var logs = Files.walk(events)) {
      for (Path log : logs.filter(Files::isRegularFile).toList()) {
        Matcher m = JOB_START.matcher(Files.readString(log));
        while (m.find()) {
          jobs++;
        }
      }
    }
    Row jobRow =
        report.add(
            new Row(
                "the README's quick-start job on sample-fleet (`jobs/fleet-aggregate`, fresh JVM)",
                "sample-fleet",
                job.ok() ? job.seconds() : Double.NaN,
                0,
                0,
                job.ok() ? fmt("JVM start included; %d Spark jobs", jobs) : "failed"));
    if (job.ok() && bare.ok()) {
      double x = jobRow.seconds() / bareRow.seconds();
      report.target(
          "quick-start job ≤ 2x a bare Spark session start + `SELECT 1`",
          fmt(
              "%.2fx (%.1f s vs %.1f s)%s; floor: the read + six one-row writes %s",
              x,
              jobRow.seconds(),
              bareRow.seconds(),
              archivedBareRow == null || Double.isNaN(archivedBareRow.seconds())
                  ? ""
                  : fmt(
                      "; %.2fx the bare session on the class archive (%.1f s)",
                      jobRow.seconds() / archivedBareRow.seconds(), archivedBareRow.seconds()),
              Double.isNaN(writeFloor.seconds())
                  ? "not measured"
                  : fmt(
                      "%.1f s = %.2fx the bare session",
                      writeFloor.seconds(), writeFloor.seconds() / bareRow.seconds())),
          x <= 2);
      report.target(
          "Spark jobs started by one quick-start run ≤ 20 (event log)",
          String.valueOf(jobs),
          jobs <= 20);
    } else {
      report.problem("quick-start rows failed: " + (job.ok() ? bare.tail() : job.tail()));
    }
  }

  /** A bare session's row: its whole time, JVM start included. */
  private Row bareSessionRow(String what, Outcome o) {
    return report.add(
        new Row(
            what,
            "-",
            o.ok() ? o.seconds() : Double.NaN,
            0,
            0,
            o.ok() ? "JVM start included" : "failed"));
  }

  /** The heap of the job on the large fleet: the issue's bound on the driver. */
  private static final String SCALE_HEAP = "2g";

  private void finish(long started) {
    System.out.printf(
        "%ndone in %.0f s; load average now %s%n%n",
        (System.nanoTime() - started) / 1e9, Report.loadAverage());
    System.out.println(report.markdown());
  }

  // ------------------------------------------------------------------ the reference

  /**
   * The reference is the copying loop: it reads the page cache as every stream-based reader does
   * (Spark's sources read through Hadoop streams) and is the rate the scan targets quote (3-4.5
   * GB/s per core). The in-place mmap loop, faster by the copy it saves, is shown as the upper
   * bound.
   */
  private void references(Input large) throws Exception {
    Path file = large.path();
    ReferenceDecode.readLoop(file); // pulls the file into the page cache, warms the JIT
    Totals[] out = new Totals[1];
    Row ref =
        report.add(
            best(
                "plain Java loop, 1 thread (**reference**)",
                large,
                large.records(),
                "FileChannel.read into an 8 MiB direct buffer; no project code",
                3,
                () -> out[0] = ReferenceDecode.readLoop(file)));
    report.reference(ref);
    check("reference loop", large, out[0].records(), out[0].countSum());
    Totals reference = out[0];
    ReferenceDecode.mappedLoop(file);
    report.add(
        best(
            "plain Java loop, 1 thread, mmap (no copy)",
            large,
            large.records(),
            "256 MiB mapped windows; upper bound",
            3,
            () -> out[0] = ReferenceDecode.mappedLoop(file)));
    if (!out[0].equals(reference)) {
      report.problem("the mmap loop found " + out[0] + " but the reference loop " + reference);
    }
    ReferenceDecode.projectDecoder(file);
    report.add(
        best(
            "project decoder (`CpuProfileReader`), 1 thread",
            large,
            large.records(),
            "every record and pc, from a stream",
            3,
            () -> out[0] = ReferenceDecode.projectDecoder(file)));
    if (!out[0].equals(reference)) {
      report.problem("the project decoder read " + out[0] + " but the reference loop " + reference);
    }
  }

  // ------------------------------------------------------------------ Spark on the large file

  /**
   * All columns on {@code cores} cores; on more than one, also sum(count) and the group-by. Returns
   * {all columns, sum(count), group by frames (pushed)}. Each query runs once on a small file
   * first, for the JIT.
   */
  private Row[] largeFileRows(Input large, Input warm, int cores) throws Exception {
    session(cores);
    String file = large.path().toString();
    String what = "`profile` → `noop`, all columns, local[" + cores + "]";
    allColumns(warm.path().toString());
    Row all =
        report.add(best(what, large, large.records(), "", opt.runs(), () -> allColumns(file)));
    if (cores == 1) {
      return new Row[] {all};
    }
    long[] got = new long[2];
    // Without aggregate pushdown first (what Spark alone does with the scan's column batches),
    // then with it (each task returns one partial row): both in the same run.
    sumCount(warm.path().toString(), false);
    report.add(
        best(
            "`profile` → `sum(count)`, count(*), aggregate pushdown off",
            large,
            large.records(),
            "",
            opt.runs(),
            () -> {
              long[] r = sumCount(file, false);
              got[0] = r[0];
              got[1] = r[1];
            }));
    check("sum(count) without pushdown", large, got[0], got[1]);
    sumCount(warm.path().toString(), true);
    Row sum =
        report.add(
            best(
                "`profile` → `sum(count)`, count(*)",
                large,
                large.records(),
                "aggregate pushdown",
                opt.runs(),
                () -> {
                  long[] r = sumCount(file, true);
                  got[0] = r[0];
                  got[1] = r[1];
                }));
    check("sum(count)", large, got[0], got[1]);
    // What frames cost: each pc's module path repeated per frame makes that column several times
    // the file's bytes, all of it built by the reader and copied by Spark.
    noop(spark.read().format("profile").load(warm.path().toString()).drop("frames"));
    report.add(
        best(
            "`profile` → `noop`, all columns but `frames`, local[2]",
            large,
            large.records(),
            "",
            opt.runs(),
            () -> noop(spark.read().format("profile").load(file).drop("frames"))));
    groupBy(warm.path().toString(), "frames", false);
    report.add(
        best(
            "`profile` → group by `frames`, sum(count) → `noop`, aggregate pushdown off",
            large,
            large.records(),
            "",
            opt.runs(),
            () -> groupBy(file, "frames", false)));
    groupBy(warm.path().toString(), "frames", true);
    Row byFrames =
        report.add(
            best(
                "`profile` → group by `frames`, sum(count) → `noop`",
                large,
                large.records(),
                "aggregate pushdown",
                opt.runs(),
                () -> groupBy(file, "frames", true)));
    groupBy(warm.path().toString(), "stack_id", true);
    report.add(
        best(
            "`profile` → group by `stack_id`, sum(count) → `noop`",
            large,
            large.records(),
            "aggregate pushdown",
            opt.runs(),
            () -> groupBy(file, "stack_id", true)));
    return new Row[] {all, sum, byFrames};
  }

  private void session(int cores) {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    spark =
        SparkSession.builder()
            .master("local[" + cores + "]")
            .appName("fleetprof-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "16")
            .getOrCreate();
  }

  private void allColumns(String path) {
    noop(spark.read().format("profile").load(path));
  }

  private static void noop(Dataset<?> ds) {
    ds.write().format("noop").mode("overwrite").save();
  }

  /**
   * {records, sum of counts} read by the source. A bigint sum, as the issue's query is: the inputs'
   * totals fit in 63 bits, and ANSI mode (Spark 4's default) fails the query rather than wrap. (The
   * jobs sum DECIMAL(38,0) because real counts are unsigned; here that would time Spark's decimal
   * arithmetic, more than half of this row, instead of the source.)
   */
  private long[] sumCount(String path) {
    return sumCount(path, true);
  }

  private long[] sumCount(String path, boolean pushdown) {
    var r =
        spark
            .read()
            .format("profile")
            .option("aggregatePushdown", pushdown)
            .load(path)
            .selectExpr("count(*)", "sum(count)")
            .first();
    return new long[] {r.getLong(0), r.getLong(1)};
  }

  private void groupBy(String path, String column, boolean pushdown) {
    noop(
        spark
            .read()
            .format("profile")
            .option("aggregatePushdown", pushdown)
            .load(path)
            .groupBy(col(column))
            .agg(sum(col("count")).as("count")));
  }

  // ------------------------------------------------------------------ the fleet of small files

  /**
   * Planning, then reads by the source and by binaryFile + UDF; returns {planning, all columns}.
   */
  private Row[] fleetRows(Input fleet, Input large) throws Exception {
    String dir = fleet.path().toString();
    // One date's directory first, untimed: the JIT, Hadoop's file system and Spark's code
    // generation are warmed as for the large-file rows.
    try (Stream<Path> dates = Files.list(fleet.path())) {
      String warm = dates.filter(Files::isDirectory).sorted().findFirst().orElseThrow().toString();
      planInputPartitions(warm);
      allColumns(warm);
      sumCount(warm);
      noop(spark.read().format("profile").load(warm).select("path", "count", "pcs"));
    }
    long t0 = System.nanoTime();
    int partitions = planInputPartitions(dir).length;
    Row plan =
        report.add(
            new Row(
                "planning: `planInputPartitions` (listing included)",
                fleet.label(),
                (System.nanoTime() - t0) / 1e9,
                0,
                0,
                partitions + " partitions"));
    // Each query plans its own scan: these rows include planning, as a user's query does.
    Row all =
        report.add(
            best(
                "`profile` → `noop`, all columns, local[2]",
                fleet,
                fleet.records(),
                "planning included",
                opt.runs(),
                () -> allColumns(dir)));
    long[] got = sumCount(dir);
    check("small profiles", fleet, got[0], got[1]);
    report.add(
        best(
            "`profile` → `noop`, (path, count, pcs)",
            fleet,
            fleet.records(),
            "planning included",
            opt.runs(),
            () -> noop(spark.read().format("profile").load(dir).select("path", "count", "pcs"))));
    DecodeUdf.register(spark);
    Dataset<?> udfRows = DecodeUdf.records(spark, dir);
    report.add(
        best(
            "`binaryFile` + decoding UDF, exploded (path, count, pcs) → `noop`",
            fleet,
            fleet.records(),
            "what a user would write",
            opt.runs(),
            () -> noop(udfRows)));
    long udfRecords = DecodeUdf.records(spark, dir).count();
    if (udfRecords != fleet.records()) {
      report.problem("binaryFile + UDF read " + udfRecords + " records of " + fleet.records());
    }
    udfOnLargeFile(large);
    return new Row[] {plan, all};
  }

  /** Partitions of a fresh scan, through the public connector API only. */
  private InputPartition[] planInputPartitions(String path) {
    ProfileDataSource source = new ProfileDataSource();
    Map<String, String> options = Map.of("path", path);
    CaseInsensitiveStringMap map = new CaseInsensitiveStringMap(options);
    Table table = source.getTable(source.inferSchema(map), new Transform[0], options);
    return ((SupportsRead) table).newScanBuilder(map).build().toBatch().planInputPartitions();
  }

  /**
   * binaryFile holds a file in one byte array and the UDF returns all its records in one row: a
   * file of 2 GiB or more cannot be read at all, and a large one below that exhausts the heap.
   */
  private void udfOnLargeFile(Input large) throws IOException {
    String what = "`binaryFile` + decoding UDF → `noop`";
    if (large.bytes() >= Integer.MAX_VALUE) {
      try {
        noop(DecodeUdf.records(spark, large.path().toString()));
        report.problem("binaryFile read a file of " + large.bytes() + " bytes");
      } catch (Exception e) {
        Throwable root = e;
        while (root.getCause() != null) {
          root = root.getCause();
        }
        String msg =
            String.valueOf(root.getMessage())
                .lines()
                .findFirst()
                .orElse("")
                .replace(
                    "file:" + large.path().toAbsolutePath(), large.path().getFileName().toString());
        report.add(
            new Row(
                what,
                large.label(),
                Double.NaN,
                0,
                0,
                "fails: " + msg.substring(0, Math.min(120, msg.length())).replace("|", "/")));
      }
    } else if (large.bytes() <= 256L << 20) {
      report.add(
          time(
              what,
              large,
              large.records(),
              "",
              () -> noop(DecodeUdf.records(spark, large.path().toString()))));
    } else {
      report.add(
          new Row(
              what,
              large.label(),
              Double.NaN,
              0,
              0,
              "not run: one row would hold every record of the file"));
    }
  }

  // ------------------------------------------------------------------ gmon and DCPI

  private void otherFormats(Input gmon, Input dcpi, Input pprofFile) throws Exception {
    for (Input in : List.of(gmon, dcpi, pprofFile)) {
      String path = in.path().toString();
      report.add(
          best(
              "`profile` → `noop`, all columns, local[2]",
              in,
              in.records(),
              "",
              opt.runs(),
              () -> allColumns(path)));
      long[] got = sumCount(path);
      check(in.label(), in, got[0], got[1]);
    }
  }

  /**
   * {@code go tool pprof -raw} on the large pprof file (parsing it whole, printing its merged
   * samples): the reference tool's rate on the file the source read. Checked: its total of
   * samples/count.
   */
  private void goPprofRaw(Input in) throws Exception {
    String what = "`go tool pprof -raw` on the same file";
    if (!opt.pprof()) {
      return;
    }
    if (!onPath("go")) {
      report.add(new Row(what, in.label(), Double.NaN, 0, 0, "not run: no `go`"));
      return;
    }
    System.out.println("go tool pprof -raw ...");
    Outcome o =
        Processes.run(
            pprofRaw(PPROF_BINARY, in.path().toString()),
            inputs.dir().resolve("pprof-large-raw.txt"),
            opt.pprofTimeout(),
            pprofEnv(inputs.dir()));
    if (!o.ok()) {
      report.problem("go tool pprof -raw failed: " + o.tail());
      report.add(new Row(what, in.label(), Double.NaN, 0, 0, "failed"));
      return;
    }
    long total = PprofRaw.parse(o.output()).totalSamples();
    if (total != in.countSum()) {
      report.problem(
          "go tool pprof -raw counts "
              + total
              + " samples in "
              + in.label()
              + ", which holds "
              + in.countSum());
    }
    report.add(
        new Row(
            what,
            in.label(),
            o.seconds(),
            in.bytes(),
            in.records(),
            "go " + goVersion(),
            o.cpuSeconds() / o.seconds()));
  }

  // ------------------------------------------------------------------ the fleet job and pprof

  /**
   * The job's summary (its first line, the cpu line, the rows line): files, records, CPU samples
   * (the bench fleet counts CPU samples only), stack rows, seconds.
   */
  private static final Pattern SUMMARY =
      Pattern.compile(
          "fleet-aggregate: (\\d+) files \\(\\d+ with problems, see files/\\), (\\d+) records,"
              + " [\\d,]+ bytes, dates \\[[^\\]]*\\]\\s+cpu\\s+[0-9.]+ s \\(([\\d,]+) samples\\)"
              + ".*?rows written \\{files=\\d+, stacks=(\\d+)[^}]*\\} under \\S+ in ([0-9.]+) s",
          Pattern.DOTALL);

  private static final Pattern SYMBOLIZED =
      Pattern.compile("fleet-aggregate: symbolized (\\d+) of (\\d+) locations");

  /** The job's own seconds (from its summary line) of each job row, for the target's text. */
  private final Map<Row, Double> jobAlone = new java.util.HashMap<>();

  /**
   * The fleet job in a child JVM, as {@code jobs/fleet-aggregate} runs it, without names and with
   * {@code --binaries} (the bench programs' folder: the profiles name them by install paths that do
   * not exist here, so only that folder finds them); returns {without, with}. Each is the best of
   * {@code --runs}, the two alternating (which runs first swaps every round) so that neither gets
   * the warmer machine. Checked: the summary's files, records and total count; the number of
   * locations symbolized (none without binaries, every distinct location in the bench binaries with
   * them); and with binaries, the names written to {@code locations/} for a sample.
   */
  private Row[] fleetJobs(Input fleet, Binaries binaries) throws Exception {
    Outcome[] best = new Outcome[2];
    for (int run = 0; run < opt.runs(); run++) {
      for (int k : run % 2 == 0 ? new int[] {0, 1} : new int[] {1, 0}) {
        if (best[k] != null && !best[k].ok()) {
          continue;
        }
        Outcome o =
            runJob(fleet, k == 0 ? null : binaries, "4g", k == 0 ? "fleet" : "fleet-binaries");
        if (best[k] == null || !o.ok() || o.seconds() < best[k].seconds()) {
          best[k] = o;
        }
      }
    }
    return new Row[] {
      jobRow("fleet job end to end (`FleetAggregate`, child JVM)", fleet, null, best[0]),
      jobRow(
          "fleet job end to end with `--binaries` (names for every frame)",
          fleet,
          binaries,
          best[1])
    };
  }

  /** Where the job run named {@code name} writes. */
  private Path jobOutput(String name) {
    return inputs.dir().resolve(name + "-output");
  }

  /**
   * The job in a child JVM with heap {@code heap}; {@code name} names its output folder and log.
   */
  private Outcome runJob(Input fleet, Binaries binaries, String heap, String name)
      throws Exception {
    Path out = jobOutput(name);
    List<String> args =
        new ArrayList<>(List.of("--input", fleet.path().toString(), "--output", out.toString()));
    if (binaries != null) {
      args.addAll(List.of("--binaries", binaries.dir().toAbsolutePath().toString()));
    }
    Inputs.delete(out);
    System.out.printf("%s job on %s ...%n", name, fleet.label());
    return childJob(
        Processes.jobClasspath(),
        "dev.fleetprof.jobs.FleetAggregate",
        args,
        heap,
        name,
        true,
        launcherTier(fleet.path()));
  }

  /**
   * The JVM options {@code jobs/fleet-aggregate} adds for a run on {@code input}: those of the tier
   * {@code jobs/lib/local-tier} prints ({@code conf/TIER-run-jvm-options}), or none.
   */
  private static List<String> launcherTier(Path input) throws Exception {
    Process p =
        new ProcessBuilder("bash", "jobs/lib/local-tier", input.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String tier = new String(p.getInputStream().readAllBytes()).strip();
    if (p.waitFor() != 0 || tier.isEmpty()) {
      return List.of();
    }
    return List.of("@" + Path.of("conf", tier + "-run-jvm-options").toAbsolutePath());
  }

  /**
   * {@code main} in a child JVM with heap {@code heap}, started as jobs/lib/launch starts a job
   * (its JIT options and {@code tier}'s ({@link #launcherTier}), conf and logging, and its class
   * archive unless {@code classArchive} is false); its output goes to {@code NAME-job.log}.
   */
  private Outcome childJob(
      String classpath,
      String main,
      List<String> args,
      String heap,
      String name,
      boolean classArchive,
      List<String> tier)
      throws Exception {
    List<String> options =
        new ArrayList<>(List.of("@" + Path.of("conf", "job-jvm-options").toAbsolutePath()));
    options.addAll(tier);
    options.addAll(
        List.of("-Dfleetprof.conf.dir=conf", "-Dlog4j.configurationFile=conf/log4j2.properties"));
    if (classArchive && Processes.classArchive() != null) {
      options.add("-XX:SharedArchiveFile=" + Processes.classArchive());
    }
    List<String> cmd = Processes.java(heap, classpath, main, args, options.toArray(new String[0]));
    return Processes.run(
        cmd, inputs.dir().resolve(name + "-job.log"), 3600, Map.of("SPARK_LOCAL_IP", "127.0.0.1"));
  }

  /** The first match of {@code p} in {@code text}, or null. */
  private static Matcher firstMatch(Pattern p, String text) {
    Matcher m = p.matcher(text);
    return m.find() ? m : null;
  }

  /** The last match of {@code p} in {@code text}, or null. */
  private static Matcher lastMatch(Pattern p, String text) {
    Matcher m = p.matcher(text);
    int at = -1;
    while (m.find()) {
      at = m.start();
    }
    if (at < 0) {
      return null;
    }
    m.find(at);
    return m;
  }

  /** How many times the warm rows run the job in one JVM; the last run is the row. */
  private static final int WARM_RUNS = 3;

  private static final Pattern WARM_RUN = Pattern.compile("warm run (\\d+) of (\\d+): ([0-9.]+) s");

  /**
   * The fleet job run {@link #WARM_RUNS} times in one child JVM and Spark session ({@code
   * WarmFleetAggregate}, test code), timed by its last run: the job once the JVM, Spark and the JIT
   * are warm, as in a notebook or a long-lived driver. It separates what a cold run pays to start
   * (the row above it) from what the job's own Spark queries cost. Checked as the cold row is.
   */
  private Row warmJobRow(String what, Input fleet, String name, boolean checkNamed)
      throws Exception {
    Path out = jobOutput(name);
    List<String> args =
        List.of(
            String.valueOf(WARM_RUNS),
            "--input",
            fleet.path().toString(),
            "--output",
            out.toString());
    for (int i = 1; i <= WARM_RUNS; i++) {
      Inputs.delete(Path.of(out + "-" + i));
    }
    System.out.printf(
        "%s: the job %d times in one JVM on %s ...%n", name, WARM_RUNS, fleet.label());
    Outcome o = testCodeJob("dev.fleetprof.jobs.WarmFleetAggregate", args, name);
    Matcher m = WARM_RUN.matcher(o.output());
    double last = Double.NaN;
    int runs = 0;
    while (m.find()) {
      runs++;
      last = Double.parseDouble(m.group(3));
    }
    Outcome lastRun =
        runs == WARM_RUNS
            ? new Outcome(o.exit(), last, o.cpuSeconds() / o.seconds() * last, o.output())
            : new Outcome(o.exit() == 0 ? 1 : o.exit(), Double.NaN, 0, o.output());
    return jobRow(
        what,
        fleet,
        null,
        lastRun,
        checkNamed,
        "JVM and Spark start and JIT warm-up excluded; cores used: the child's average");
  }

  private Row jobRow(String what, Input fleet, Binaries binaries, Outcome o) throws Exception {
    return jobRow(what, fleet, binaries, o, true);
  }

  /**
   * {@code checkNamed}: hold the job to naming exactly the bench binaries' locations with {@code
   * --binaries} and none without (the bench fleet's maps text names install paths that do not exist
   * here); the deep fleet's names its program where it was built, which the job finds.
   */
  private Row jobRow(String what, Input fleet, Binaries binaries, Outcome o, boolean checkNamed)
      throws Exception {
    return jobRow(what, fleet, binaries, o, checkNamed, "JVM start included");
  }

  private Row jobRow(
      String what, Input fleet, Binaries binaries, Outcome o, boolean checkNamed, String timed)
      throws Exception {
    // The last summary: a warm row's output has one per run.
    Matcher m = lastMatch(SUMMARY, o.output());
    Matcher named = lastMatch(SYMBOLIZED, o.output());
    if (!o.ok() || m == null || named == null) {
      report.problem("fleet job failed (exit " + o.exit() + "): " + o.tail());
      return report.add(new Row(what, fleet.label(), Double.NaN, 0, 0, "failed"));
    }
    if (Long.parseLong(m.group(1)) != fleet.files()
        || Long.parseLong(m.group(2)) != fleet.records()
        || new BigDecimal(m.group(3).replace(",", "")).longValueExact() != fleet.countSum()) {
      report.problem("fleet job summary disagrees with the input: " + m.group());
    }
    long symbolized = Long.parseLong(named.group(1));
    long expected = binaries == null ? 0 : fleet.binaryLocations();
    if (checkNamed && symbolized != expected) {
      report.problem(
          String.format(
              "the fleet job %s symbolized %d locations; the fleet holds %d"
                  + " distinct locations in the bench binaries",
              binaries == null ? "without --binaries" : "with --binaries",
              symbolized,
              fleet.binaryLocations()));
    }
    String names = binaries == null ? "" : "; " + checkNames(jobOutput("fleet-binaries"), binaries);
    Row row =
        report.add(
            new Row(
                what,
                fleet.label(),
                o.seconds(),
                fleet.bytes(),
                fleet.records(),
                fmt(
                    "%s; job %s s; %s stack rows; %s of %s locations" + " named%s",
                    timed, m.group(5), m.group(4), named.group(1), named.group(2), names),
                o.cpuSeconds() / o.seconds()));
    jobAlone.put(row, Double.parseDouble(m.group(5)));
    return row;
  }

  /**
   * The names the job wrote to {@code locations/} for a sample of its named locations, against
   * {@code llvm-symbolizer --inlining} on the same binary and address (the file offset turned into
   * the address through the binary's executable segment; addr2line's answers depend on the order of
   * the addresses, see {@link SymbolizerBench#agreement}). Returns what agreed, for the note.
   */
  private String checkNames(Path out, Binaries binaries) throws Exception {
    session(1);
    List<org.apache.spark.sql.Row> sample;
    try {
      sample =
          spark
              .read()
              .parquet(out.resolve("locations").toString())
              .where("lines IS NOT NULL")
              .selectExpr("module", "offset", "transform(lines, l -> l.function) AS functions")
              .orderBy(org.apache.spark.sql.functions.expr("hash(module, offset)"))
              .limit(300)
              .collectAsList();
    } finally {
      spark.stop();
      spark = null;
    }
    if (sample.isEmpty()) {
      report.problem("the fleet job with --binaries wrote no named location");
      return "no names";
    }
    Map<String, List<org.apache.spark.sql.Row>> byModule = new java.util.TreeMap<>();
    for (org.apache.spark.sql.Row r : sample) {
      byModule.computeIfAbsent(r.getString(0), k -> new ArrayList<>()).add(r);
    }
    int agree = 0;
    List<String> differ = new ArrayList<>();
    for (Map.Entry<String, List<org.apache.spark.sql.Row>> e : byModule.entrySet()) {
      String base = e.getKey().substring(e.getKey().lastIndexOf('/') + 1);
      BinaryCode code = binaries.code().get(base);
      if (code == null) {
        report.problem(
            "the fleet job named locations in " + e.getKey() + ", which is no bench binary");
        continue;
      }
      List<String> cmd =
          new ArrayList<>(List.of("llvm-symbolizer", "--inlining", "--obj=" + code.path));
      for (org.apache.spark.sql.Row r : e.getValue()) {
        cmd.add("0x" + Long.toHexString(code.vaddr(r.getLong(1))));
      }
      List<List<String>> want =
          SymbolizerBench.parseLlvm(
              String.join("\n", BinaryCode.run(cmd)) + "\n", e.getValue().size());
      for (int i = 0; i < want.size(); i++) {
        List<String> got = e.getValue().get(i).getList(2);
        if (got.equals(want.get(i))) {
          agree++;
        } else if (differ.size() < 3) {
          differ.add(
              base
                  + "+0x"
                  + Long.toHexString(e.getValue().get(i).getLong(1))
                  + ": "
                  + got
                  + " vs llvm-symbolizer "
                  + want.get(i));
        }
      }
    }
    if (agree < 0.99 * sample.size()) {
      report.problem(
          String.format(
              "the fleet job's names of %d of %d sampled locations differ"
                  + " from llvm-symbolizer's, e.g. %s",
              sample.size() - agree, sample.size(), differ));
    }
    return fmt("names of %d/%d sampled locations as llvm-symbolizer's", agree, sample.size());
  }

  // ------------------------------------------------------------------ the symbolizer

  /**
   * BinarySymbols against llvm-symbolizer and addr2line on the same addresses; returns {Java with
   * its tables built in the timing in a fresh JVM, llvm-symbolizer, the same in a warm JVM}.
   */
  private Report.Lookups[] symbolizerRows(Binaries binaries) throws Exception {
    System.out.println("symbolizers ...");
    SymbolizerBench b =
        new SymbolizerBench(binaries, opt.addresses(), inputs.dir().resolve("symbolizer"), 43);
    String input = fmt("%,d distinct, %d binaries", b.addresses(), b.binaries());
    Map<Path, List<List<String>>> java = new java.util.LinkedHashMap<>();
    SymbolizerBench.Timing included = null;
    SymbolizerBench.Timing excluded = null;
    for (int run = 0; run < opt.runs(); run++) {
      java.clear();
      SymbolizerBench.Timing t = b.javaIncludingTables(java);
      included = included == null || t.seconds() < included.seconds() ? t : included;
      t = b.javaExcludingTables();
      excluded = excluded == null || t.seconds() < excluded.seconds() ? t : excluded;
    }
    long named = SymbolizerBench.agreement(java, java)[3];
    String frames =
        fmt("%.2f frames per address (inlined included)", SymbolizerBench.framesPerAddress(java));
    if (named < b.addresses()) {
      report.problem(fmt("BinarySymbols named %,d of %,d addresses", named, b.addresses()));
    }
    Report.Lookups javaRow =
        report.lookups(
            new Report.Lookups(
                "`BinarySymbols.atAddress`, tables built included",
                input,
                included.seconds(),
                b.addresses(),
                "opened, indexed and looked up in the timing; JIT warmed by an earlier"
                    + " pass; "
                    + frames,
                included.cpuSeconds() / included.seconds()));
    report.lookups(
        new Report.Lookups(
            "`BinarySymbols.atAddress`, tables built excluded",
            input,
            excluded.seconds(),
            b.addresses(),
            "lookups only, in binaries a full pass has built",
            excluded.cpuSeconds() / excluded.seconds()));
    SymbolizerBench.Timing[] cold = null;
    for (int run = 0; run < opt.runs(); run++) {
      SymbolizerBench.Timing[] t = b.javaColdJvm();
      cold = cold == null || t[0].seconds() < cold[0].seconds() ? t : cold;
    }
    Report.Lookups coldRow =
        report.lookups(
            new Report.Lookups(
                "`BinarySymbols.atAddress`," + " tables built included, fresh JVM",
                input,
                cold[0].seconds(),
                b.addresses(),
                fmt(
                    "JIT cold, as an executor's first task; JVM start excluded (the child took %.2f s in"
                        + " all)",
                    cold[1].seconds()),
                cold[0].cpuSeconds() / cold[0].seconds()));
    Report.Lookups llvm =
        toolRow("`llvm-symbolizer --inlining --obj=BIN`", "llvm-symbolizer", input, b, java, true);
    report.lookupReference(llvm);
    toolRow("`addr2line -a -f -i -C -e BIN`", "addr2line", input, b, java, false);
    return new Report.Lookups[] {coldRow, llvm, javaRow};
  }

  private Report.Lookups toolRow(
      String what,
      String tool,
      String input,
      SymbolizerBench b,
      Map<Path, List<List<String>>> java,
      boolean llvm)
      throws Exception {
    if (!onPath(tool)) {
      return report.lookups(
          new Report.Lookups(
              what, input, Double.NaN, b.addresses(), "not run: no `" + tool + "`", Double.NaN));
    }
    Map<Path, List<List<String>>> answers = new java.util.LinkedHashMap<>();
    SymbolizerBench.Timing best = null;
    for (int run = 0; run < opt.runs(); run++) {
      answers.clear();
      SymbolizerBench.Timing t = llvm ? b.llvmSymbolizer(answers) : b.addr2line(answers);
      best = best == null || t.seconds() < best.seconds() ? t : best;
    }
    long[] a = SymbolizerBench.agreement(java, answers);
    // With llvm-symbolizer the whole chain of names must agree; addr2line names some inlined
    // frames by the history of its process (see agreement), so with it the rest of the chain.
    long agreeing = llvm ? a[0] : a[2];
    if (agreeing < 0.99 * b.addresses()) {
      report.problem(
          fmt(
              "BinarySymbols and %s differ on %,d of %,d addresses (%s), e.g. %s",
              tool,
              b.addresses() - agreeing,
              b.addresses(),
              llvm ? "function names of the chain" : "chain length and caller names",
              b.differences(java, answers, 3)));
    }
    String agreement =
        llvm
            ? fmt(
                "BinarySymbols' function names the same for %.2f%% (innermost %.2f%%)",
                100.0 * a[0] / b.addresses(), 100.0 * a[1] / b.addresses())
            : fmt(
                "BinarySymbols' names the same for %.2f%%, all but the innermost for %.2f%%",
                100.0 * a[0] / b.addresses(), 100.0 * a[2] / b.addresses());
    return report.lookups(
        new Report.Lookups(
            what,
            input,
            best.seconds(),
            b.addresses(),
            "one process per binary, start included; " + agreement,
            best.cpuSeconds() / best.seconds()));
  }

  private Row goPprof(Input fleet) throws Exception {
    String what = "`go tool pprof -proto -symbolize=none` merging them";
    if (!opt.pprof()) {
      return null;
    }
    if (!onPath("go")) {
      return report.add(new Row(what, fleet.label(), Double.NaN, 0, 0, "not run: no `go`"));
    }
    List<String> files;
    try (Stream<Path> all = Files.walk(fleet.path())) {
      files =
          all.filter(p -> p.getFileName().toString().equals("cpu.prof"))
              .map(Path::toString)
              .sorted()
              .toList();
    }
    Path merged = inputs.dir().resolve("pprof-merged.pb.gz");
    Map<String, String> env = pprofEnv(inputs.dir());
    List<String> cmd = pprofMerge(merged);
    Processes.run(concat(cmd, files.subList(0, 1)), inputs.dir().resolve("pprof.log"), 600, env);
    List<List<String>> batches = commandLineBatches(files);
    System.out.println(
        "go tool pprof ..." + (batches.size() > 1 ? " (" + batches.size() + " batches)" : ""));
    Outcome o;
    String batched = "";
    if (batches.size() == 1) {
      o =
          Processes.run(
              concat(cmd, files), inputs.dir().resolve("pprof.log"), opt.pprofTimeout(), env);
    } else {
      // More files than one command line holds: merged in batches, then the batches' profiles
      // merged, as `xargs` would run it; the row is the sum of all of them.
      List<String> parts = new ArrayList<>();
      double seconds = 0;
      double cpu = 0;
      o = null;
      for (int i = 0; i <= batches.size(); i++) {
        boolean last = i == batches.size();
        Path part = last ? merged : inputs.dir().resolve("pprof-batch-" + i + ".pb.gz");
        Outcome b =
            Processes.run(
                concat(pprofMerge(part), last ? parts : batches.get(i)),
                inputs.dir().resolve("pprof.log"),
                opt.pprofTimeout(),
                env);
        seconds += b.seconds();
        cpu += b.cpuSeconds();
        o = b;
        if (!b.ok()) {
          break;
        }
        parts.add(part.toString());
      }
      if (o.ok()) {
        o = new Outcome(o.exit(), seconds, cpu, o.output());
      }
      batched =
          fmt(
              "; %d files in %d batches (one command line each), then the batches merged",
              files.size(), batches.size());
      for (String part : parts) {
        if (!part.equals(merged.toString())) {
          Files.deleteIfExists(Path.of(part));
        }
      }
    }
    if (o.exit() == -1) {
      return report.add(
          new Row(
              what,
              fleet.label(),
              Double.NaN,
              0,
              0,
              fmt("gave up after %d s", opt.pprofTimeout())));
    }
    if (!o.ok()) {
      report.problem("go tool pprof failed: " + o.tail());
      return report.add(new Row(what, fleet.label(), Double.NaN, 0, 0, "failed"));
    }
    long counted = pprofSampleCount(merged, inputs.dir());
    if (counted != fleet.countSum()) {
      report.problem(
          "go tool pprof's merged profile holds "
              + counted
              + " samples, the files "
              + fleet.countSum());
    }
    return report.add(
        new Row(
            what,
            fleet.label(),
            o.seconds(),
            fleet.bytes(),
            fleet.records(),
            "go " + goVersion() + batched,
            o.cpuSeconds() / o.seconds()));
  }

  /** The files in batches that each fit on one command line (1.5 MB of arguments). */
  static List<List<String>> commandLineBatches(List<String> files) {
    List<List<String>> out = new ArrayList<>();
    List<String> cur = new ArrayList<>();
    long bytes = 0;
    for (String f : files) {
      if (!cur.isEmpty() && bytes + f.length() + 1 > 1_500_000) {
        out.add(cur);
        cur = new ArrayList<>();
        bytes = 0;
      }
      cur.add(f);
      bytes += f.length() + 1;
    }
    out.add(cur);
    return out;
  }

  /**
   * {@code go tool pprof} merging profiles into {@code out}, the files to follow. pprof's usage is
   * {@code pprof [binary] <source> ...}: Go's pprof takes the first argument for the executable
   * whenever its object-file reader opens it, and it opens a gperftools profile, which then
   * silently drops out of the merge (the merged counts lacked exactly the first file's). Naming a
   * binary first, as gperftools users do, keeps every profile.
   */
  static List<String> pprofMerge(Path out) {
    return new ArrayList<>(
        List.of(
            "go",
            "tool",
            "pprof",
            "-proto",
            "-symbolize=none",
            "-output",
            out.toString(),
            PPROF_BINARY));
  }

  /**
   * {@code go tool pprof -raw} of a profile, addresses unsymbolized, {@code binary} first (see
   * {@link #pprofMerge}).
   */
  static List<String> pprofRaw(String binary, String profile) {
    return List.of("go", "tool", "pprof", "-raw", "-symbolize=none", binary, profile);
  }

  private static final String PPROF_BINARY =
      Path.of(System.getProperty("java.home"), "bin", "java").toString();

  /** Keeps pprof from looking for binaries in ~/pprof and writing there. */
  static Map<String, String> pprofEnv(Path dir) {
    return Map.of(
        "PPROF_TMPDIR",
        dir.toAbsolutePath().toString(),
        "PPROF_BINARY_PATH",
        dir.resolve("_no-binaries").toAbsolutePath().toString());
  }

  /** The total samples/count of a merged profile, as {@code pprof -raw} lists them. */
  static long pprofSampleCount(Path merged, Path dir) throws IOException, InterruptedException {
    Outcome raw =
        Processes.run(
            pprofRaw(PPROF_BINARY, merged.toString()),
            dir.resolve("pprof-raw.txt"),
            600,
            pprofEnv(dir));
    if (!raw.ok()) {
      throw new IOException("go tool pprof -raw failed: " + raw.tail());
    }
    return PprofRaw.parse(raw.output()).totalSamples();
  }

  private static String goVersion() {
    try {
      Process p = new ProcessBuilder("go", "env", "GOVERSION").start();
      return new String(p.getInputStream().readAllBytes()).strip().replace("go", "");
    } catch (Exception e) {
      return "?";
    }
  }

  static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  // ------------------------------------------------------------------ memory

  private static final Pattern PROBE =
      Pattern.compile(
          "memory-probe seconds=([0-9.]+) peakUsed=(\\d+) maxAfterGc=(\\d+) gcs=(\\d+)");

  private void memory() throws Exception {
    if (opt.memoryBytes().isEmpty()) {
      return;
    }
    long missing = 0;
    for (long b : opt.memoryBytes()) {
      if (!Files.exists(inputs.dir().resolve("cpu-" + Inputs.fileSize(b) + ".prof"))) {
        missing += b;
      }
    }
    long free = Files.getFileStore(inputs.dir()).getUsableSpace();
    if (missing + (2L << 30) > free) {
      System.out.printf(
          "memory runs skipped: they need %d MiB more disk, %d MiB free%n",
          missing >> 20, free >> 20);
      report.target("memory flat in file size", "not measured: disk", null);
      return;
    }
    List<Report.Memory> runs = new ArrayList<>();
    for (long b : opt.memoryBytes()) {
      Input in = inputs.cpuProfile(b);
      System.out.printf("memory run: %s with -Xmx%s ...%n", in.label(), opt.memoryHeap());
      Outcome o =
          Processes.run(
              Processes.java(
                  opt.memoryHeap(),
                  System.getProperty("java.class.path"),
                  MemoryProbe.class.getName(),
                  List.of(in.path().toString())),
              inputs.dir().resolve("memory-" + Inputs.fileSize(b) + ".log"),
              3600,
              Map.of());
      Matcher m = PROBE.matcher(o.output());
      Report.Memory r =
          o.ok() && m.find()
              ? new Report.Memory(
                  in.label(),
                  in.bytes(),
                  opt.memoryHeap(),
                  true,
                  Double.parseDouble(m.group(1)),
                  Long.parseLong(m.group(2)),
                  Long.parseLong(m.group(3)),
                  Long.parseLong(m.group(4)),
                  "")
              : new Report.Memory(
                  in.label(),
                  in.bytes(),
                  opt.memoryHeap(),
                  false,
                  Double.NaN,
                  0,
                  0,
                  0,
                  o.output().contains("OutOfMemoryError")
                      ? "OutOfMemoryError"
                      : "exit " + o.exit());
      report.memory(r);
      runs.add(r);
    }
    Report.Memory first = runs.get(0);
    Report.Memory last = runs.get(runs.size() - 1);
    String firstSize = Inputs.size(opt.memoryBytes().get(0));
    String lastSize = Inputs.size(opt.memoryBytes().get(runs.size() - 1));
    report.target(
        String.format("a %s profile reads with -Xmx%s", lastSize, opt.memoryHeap()),
        last.completed() ? fmt("%.1f s", last.seconds()) : last.note(),
        last.completed());
    if (first.completed() && last.completed() && runs.size() > 1) {
      double growth = (double) last.maxAfterGc() / first.maxAfterGc();
      report.target(
          String.format(
              "heap flat from %s to %s profiles (max heap after GC, ≤ 1.1x)", firstSize, lastSize),
          fmt("%.2fx (%d → %d MiB)", growth, first.maxAfterGc() >> 20, last.maxAfterGc() >> 20),
          growth <= 1.1);
    }
  }

  // ------------------------------------------------------------------ helpers

  private void target(String what, Row row, double atLeast) {
    double x = report.xRef(row);
    report.target(what, fmt("%.2fx", x), x >= atLeast);
  }

  private void check(String what, Input in, long records, long countSum) {
    if (records != in.records() || countSum != in.countSum()) {
      report.problem(
          String.format(
              "%s read %d records with counts summing to %d; %s holds %d" + " and %d",
              what, records, countSum, in.label(), in.records(), in.countSum()));
    }
  }

  /**
   * The best of {@code runs} timings (the machine may be shared: the minimum is the least noisy).
   */
  private Row best(String what, Input in, long records, String note, int runs, Action a)
      throws Exception {
    Row best = null;
    for (int i = 0; i < runs; i++) {
      Row r = time(what, in, records, note, a);
      if (best == null || r.seconds() < best.seconds()) {
        best = r;
      }
    }
    return best;
  }

  private Row time(String what, Input in, long records, String note, Action a) throws IOException {
    Recording jfr = hot == null ? null : hot.start();
    long cpu0 = CPU.getProcessCpuTime();
    long t0 = System.nanoTime();
    try {
      a.run();
    } catch (Exception e) {
      throw new IllegalStateException(what + " on " + in.label() + " failed: " + e, e);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cores = (CPU.getProcessCpuTime() - cpu0) / 1e9 / seconds;
    if (jfr != null) {
      hot.stop(jfr, what + " " + in.label());
    }
    return new Row(what, in.label(), seconds, in.bytes(), records, note, cores);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
