package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a user of the quick start reads: the fleet job on the sample data, then every {@code
 * jobs/*.sql} file, each in a JVM of its own started as {@code jobs/lib/launch} starts it (the
 * local log configuration, the Spark defaults, the log file property). Results come without log
 * warnings or errors, progress bars, terminal escape codes or blank lines inside a table; a user's
 * mistake is one line on stderr with exit code 1.
 */
class ConsoleOutputTest {
  private static final Path CONF = Path.of("conf").toAbsolutePath();

  /** Values for the SQL jobs' variables that have no default (each job's header says them). */
  private static final Map<String, String> REQUIRED_VARIABLES =
      Map.of("function", "escape_field", "program", "report-gen");

  private static final Pattern VARIABLE_WITHOUT_DEFAULT =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)}");

  /** A log line at WARN or above, a JVM warning, a stack trace or an uncaught exception. */
  private static final Pattern TROUBLE =
      Pattern.compile("\\b(WARN|WARNING|ERROR|FATAL)\\b|^\\s+at |Exception in thread");

  /** Spark's console progress bar ({@code [Stage 3:====> (1 + 1) / 2]}). */
  private static final Pattern PROGRESS = Pattern.compile("\\[Stage \\d+:");

  /** A border line of a table as Spark's show() draws it. */
  private static final Pattern BORDER = Pattern.compile("^\\+[-+]*\\+$");

  @TempDir static Path tmp;
  private static Path output;
  private static Run fleetJob;
  private static final AtomicInteger runs = new AtomicInteger();

  /**
   * The SQL jobs' and mistakes' child JVMs, started two at a time once the fleet job is done (each
   * spends much of its life starting Spark on one core), by {@link #launchAsync}'s key.
   */
  private static final Map<String, Future<Run>> launched = new ConcurrentHashMap<>();

  private static ExecutorService launcher;

  /** What a child JVM printed and how it ended. */
  record Run(String command, Path log, int exit, String stdout, String stderr) {
    @Override
    public String toString() {
      return command
          + "\nexit "
          + exit
          + "\n--- stdout\n"
          + stdout
          + "--- stderr\n"
          + stderr
          + "---";
    }
  }

  @BeforeAll
  static void runTheQuickStart() throws Exception {
    output = tmp.resolve("fleet-output");
    launcher = Executors.newFixedThreadPool(2);
    Future<Run> fleet =
        launcher.submit(
            () ->
                launch(
                    FleetAggregate.class,
                    "--input",
                    SampleData.FLEET.toString(),
                    "--output",
                    output.toString(),
                    "--binaries",
                    SampleData.FLEET_BINARIES.toString(),
                    "--pprof",
                    output.resolve("cpu.pb.gz").toString(),
                    "--folded",
                    output.resolve("cpu.folded").toString(),
                    "--flamegraph",
                    output.resolve("cpu.html").toString()));
    // The mistakes read no fleet output: they keep the other core busy while the fleet job runs.
    for (Arguments mistake : mistakes().toList()) {
      @SuppressWarnings("unchecked")
      List<String> args = (List<String>) mistake.get()[1];
      launchAsync(SqlRunner.class, args);
    }
    fleetJob = fleet.get();
    if (fleetJob.exit() == 0) {
      for (List<String> files : sqlJobGroups().values()) {
        try {
          launchAsync(SqlRunner.class, sqlJobArgs(files));
        } catch (AssertionError e) {
          // A job without a value for a variable: its test says so.
        }
      }
    }
  }

  @AfterAll
  static void stopLaunching() {
    launcher.shutdownNow();
  }

  @Test
  void theFleetJobPrintsItsSummaryAndNothingAlarming() {
    assertEquals(0, fleetJob.exit(), fleetJob::toString);
    assertTrue(fleetJob.stdout().startsWith("fleet-aggregate: "), fleetJob::toString);
    assertClean(fleetJob);
  }

  @Test
  void theConsoleLeavesSparksHarmlessWarningsToTheLogFile() throws IOException {
    // conf/log4j2.properties, read as Log4j reads a properties file: its console's regex filter
    // denies the messages it matches (whole), and lets every other one through.
    java.util.Properties conf = new java.util.Properties();
    try (InputStream in = Files.newInputStream(Path.of("conf", "log4j2.properties"))) {
      conf.load(in);
    }
    String filter = "appender.console.filter.fileonly.";
    assertEquals("RegexFilter", conf.getProperty(filter + "type"));
    assertEquals("DENY", conf.getProperty(filter + "onMatch"));
    assertEquals("NEUTRAL", conf.getProperty(filter + "onMismatch"));
    Pattern denied = Pattern.compile(conf.getProperty(filter + "regex"));
    for (String harmless :
        List.of(
            "Block rdd_25_0 already exists on this machine; not re-adding it",
            "RPC error during: releaseSession")) {
      assertTrue(denied.matcher(harmless).matches(), harmless);
    }
    for (String alarming :
        List.of(
            "Block rdd_25_0 could not be removed as it was not found on disk or in memory",
            "Not enough space to cache rdd_7_33 in memory! (computed 44.5 MiB so far)")) {
      assertFalse(denied.matcher(alarming).matches(), alarming);
    }
  }

  @Test
  void theQuickStartsSingleFileOutputsHaveNoChecksumFiles() throws IOException {
    assertEquals(0, fleetJob.exit(), fleetJob::toString);
    for (String name : List.of("cpu.pb.gz", "cpu.folded", "cpu.html")) {
      assertTrue(Files.size(output.resolve(name)) > 0, name);
      assertFalse(
          Files.exists(output.resolve("." + name + ".crc")),
          name + " has a .crc file beside it: " + listing(output));
    }
  }

  /**
   * {@code jobs/export-profile}'s files have no {@code .crc} either, and writing over a file that
   * Hadoop's checksummed local file system wrote before removes its stale checksum (else reading
   * the new file through that file system would fail its check).
   */
  @Test
  void exportsLeaveNoChecksumFilesAndRemoveStaleOnes() throws Exception {
    assertEquals(0, fleetJob.exit(), fleetJob::toString);
    String date;
    try (Stream<Path> dates = Files.list(output.resolve("stacks"))) {
      date =
          dates
              .map(d -> d.getFileName().toString())
              .filter(n -> n.startsWith("date="))
              .findFirst()
              .orElseThrow()
              .substring("date=".length());
    }
    Path dir = Files.createDirectories(tmp.resolve("exports"));
    Path folded = dir.resolve("day.folded");
    LocalFileSystem local = FileSystem.getLocal(new Configuration());
    try (OutputStream o = local.create(new org.apache.hadoop.fs.Path(folded.toUri()))) {
      o.write("an earlier export\n".getBytes(StandardCharsets.UTF_8));
    }
    assertTrue(Files.exists(dir.resolve(".day.folded.crc")), "the premise: " + listing(dir));

    ExportProfile.run(
        TestSpark.get(),
        ExportProfile.Args.parse(
            new String[] {
              "--from", output.toString(),
              "--date", date,
              "--pprof", dir.resolve("day.pb.gz").toString(),
              "--folded", folded.toString(),
              "--flamegraph", dir.resolve("day.html").toString()
            }));
    assertEquals(List.of("day.folded", "day.html", "day.pb.gz"), listing(dir));
    byte[] written = Files.readAllBytes(folded);
    assertTrue(written.length > "an earlier export\n".length());
    try (InputStream in = local.open(new org.apache.hadoop.fs.Path(folded.toUri()))) {
      assertArrayEquals(written, in.readAllBytes(), "read back through the checksummed FS");
    }
  }

  /** Every SQL job in {@code jobs/}, found by globbing (a new one is covered without a change). */
  static Stream<Arguments> sqlJobs() throws IOException {
    List<Arguments> jobs = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of("jobs"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".sql")).sorted().toList()) {
        jobs.add(Arguments.of(f.getFileName().toString()));
      }
    }
    assertFalse(jobs.isEmpty(), "no jobs/*.sql found");
    return jobs.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sqlJobs")
  void aSqlJobPrintsItsResultsAndNothingElse(String file) throws Exception {
    assertEquals(0, fleetJob.exit(), fleetJob::toString);
    List<String> files = null;
    for (List<String> group : sqlJobGroups().values()) {
      if (group.contains(file)) {
        files = group;
      }
    }
    Run run = launchAsync(SqlRunner.class, sqlJobArgs(files)).get();
    assertEquals(0, run.exit(), run::toString);
    String printed = outputOf(file, files, run);
    assertTrue(printed.contains("+-"), "a result table: " + printed + "\n" + run);
    assertClean(run);
  }

  /**
   * The SQL jobs by the {@code -d} definitions they need: {@code jobs/sql} runs each group's files
   * in one JVM, one after another, as a user may run several ({@code jobs/sql a.sql b.sql}), so
   * that Spark starts once per group rather than once per file. At most four files a group, so that
   * both cores have a group to run.
   */
  private static Map<List<String>, List<String>> sqlJobGroups() throws IOException {
    Map<List<String>, List<String>> byDefinitions = new java.util.LinkedHashMap<>();
    for (Arguments job : sqlJobs().toList()) {
      String file = (String) job.get()[0];
      List<String> defines;
      try {
        defines = definitionsFor(file);
      } catch (AssertionError e) {
        defines = List.of("no value for a variable of " + file); // A group of its own.
      }
      byDefinitions.computeIfAbsent(defines, k -> new ArrayList<>()).add(file);
    }
    // Dealt out in turn, so that the heavy ones (diff-*) do not all land in one group.
    Map<List<String>, List<String>> groups = new java.util.LinkedHashMap<>();
    byDefinitions.forEach(
        (defines, files) -> {
          int count = (files.size() + 3) / 4;
          for (int i = 0; i < files.size(); i++) {
            List<String> key = new ArrayList<>(defines);
            key.add(String.valueOf(i % count));
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(files.get(i));
          }
        });
    return groups;
  }

  /**
   * What {@code jobs/FILE} printed on stdout in a run of {@code files}: from the line that echoes
   * its first statement on, one echoed statement (and its result) per statement of the file, each
   * as the file says in that order.
   */
  private static String outputOf(String file, List<String> files, Run run) throws IOException {
    List<String> lines = run.stdout().lines().toList();
    int at = 0;
    for (String f : files) {
      List<String> statements =
          SqlRunner.parse(sqlJobArgs(List.of(f)).toArray(String[]::new)).statements();
      StringBuilder printed = new StringBuilder();
      for (String sql : statements) {
        while (at < lines.size() && !lines.get(at).startsWith("-- ")) {
          printed.append(lines.get(at++)).append('\n');
        }
        String echo = "-- " + sql.replaceAll("\\s+", " ");
        assertTrue(
            at < lines.size() && lines.get(at).equals(echo),
            "jobs/" + f + " runs next: " + echo + "\n" + run);
        printed.append(lines.get(at++)).append('\n');
      }
      while (at < lines.size() && !lines.get(at).startsWith("-- ")) {
        printed.append(lines.get(at++)).append('\n');
      }
      if (f.equals(file)) {
        return printed.toString();
      }
    }
    throw new AssertionError(file + " is not in " + files);
  }

  /** The runner's arguments for {@code jobs/FILES}: the output, and the variables they need. */
  private static List<String> sqlJobArgs(List<String> files) throws IOException {
    List<String> args = new ArrayList<>(List.of("-d", "output=" + output));
    args.addAll(definitionsFor(files.get(0)));
    for (String file : files) {
      args.add(Path.of("jobs", file).toString());
    }
    return args;
  }

  /** The {@code -d NAME=VALUE} arguments {@code jobs/FILE} needs: its variables without default. */
  private static List<String> definitionsFor(String file) throws IOException {
    Path sql = Path.of("jobs", file);
    List<String> args = new ArrayList<>();
    TreeSet<String> required = new TreeSet<>();
    Matcher m = VARIABLE_WITHOUT_DEFAULT.matcher(Files.readString(sql));
    while (m.find()) {
      required.add(m.group(1));
    }
    required.removeAll(SqlVariables.SUPPLIED);
    for (String name : required) {
      String value = REQUIRED_VARIABLES.get(name);
      if (value == null) {
        fail(sql + " needs -d " + name + "=...: give it a value in REQUIRED_VARIABLES");
      }
      args.add("-d");
      args.add(name + "=" + value);
    }
    return args;
  }

  static Stream<Arguments> mistakes() throws IOException {
    // A profile cut short, as a crash leaves it: no trailer.
    Path cut = tmp.resolve("cut.prof");
    if (!Files.exists(cut)) { // Once: a child JVM may be reading it when JUnit asks again.
      byte[] whole = Files.readAllBytes(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
      Files.write(cut, java.util.Arrays.copyOf(whole, 3000));
    }
    return Stream.of(
        Arguments.of("a SQL syntax error", List.of("-e", "SELEC 1"), "'SELEC'"),
        Arguments.of(
            "an unknown column", List.of("-e", "SELECT nope FROM range(1)"), "`nope` cannot"),
        Arguments.of(
            "a missing path",
            List.of("--view", "p=no/such/dir", "-e", "SELECT count(*) FROM p"),
            "no/such/dir"),
        Arguments.of(
            "a bad option value",
            List.of(
                "-e",
                "CREATE TEMPORARY VIEW p USING profile OPTIONS (path 'sample-data', mode 'sloppy')"),
            "mode='sloppy'"),
        Arguments.of(
            "profile.`path` where nothing is",
            List.of("-e", "SELECT count(*) FROM profile.`no/such/profiles`"),
            "no/such/profiles"),
        Arguments.of(
            "a bad profile under FAILFAST",
            List.of(
                "-e",
                "CREATE TEMPORARY VIEW p USING profile OPTIONS (path '"
                    + cut
                    + "', mode 'FAILFAST')",
                "-e",
                "SELECT count(*) FROM p"),
            cut + ": at byte offset "));
  }

  /**
   * A mistake is one line on stderr naming the thing (apart from fleetprof's INFO lines), exit code
   * 1, and the stack trace in the log file that line names.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("mistakes")
  void aMistakeIsOneLine(String what, List<String> args, String named) throws Exception {
    Run run = launchAsync(SqlRunner.class, args).get();
    assertEquals(1, run.exit(), run::toString);
    List<String> lines =
        run.stderr().lines().filter(l -> !l.matches("\\d\\d:\\d\\d:\\d\\d INFO .*")).toList();
    assertEquals(1, lines.size(), run::toString);
    String line = lines.get(0);
    assertTrue(line.startsWith("sql: "), line);
    assertTrue(line.contains(named), "names " + named + ": " + line);
    Path log = run.log();
    assertTrue(line.endsWith("(stack trace in " + log + ")"), line);
    String logged = Files.readString(log);
    assertTrue(logged.contains("sql failed") && logged.contains("\tat "), logged);
  }

  /** No trouble on either stream, no escape codes, no progress bar, no blank line in a table. */
  private static void assertClean(Run run) {
    for (String stream : List.of(run.stdout(), run.stderr())) {
      assertFalse(stream.contains("\u001b"), "an escape code: " + run);
      assertFalse(stream.contains("\r"), "a carriage return (a progress bar): " + run);
      assertFalse(PROGRESS.matcher(stream).find(), "a progress bar: " + run);
    }
    for (String line : run.stderr().lines().toList()) {
      assertFalse(TROUBLE.matcher(line).find(), "on stderr: " + line + "\n" + run);
    }
    for (String line : run.stdout().lines().toList()) {
      assertFalse(
          line.matches("\\d\\d:\\d\\d:\\d\\d \\S+ .*"), "a log line on stdout: " + line + run);
    }
    // A table is three borders (top, below the header, bottom) with rows between them.
    int borders = 0;
    for (String line : run.stdout().lines().toList()) {
      if (BORDER.matcher(line).matches()) {
        borders = borders == 3 ? 1 : borders + 1;
      } else if (borders == 1 || borders == 2) {
        assertFalse(line.isBlank(), "a blank line inside a table: " + run);
      }
    }
  }

  /**
   * Runs a job's main class in a JVM of its own, as {@code jobs/lib/launch} does: this JDK, {@code
   * conf/jvm-options} and {@code conf/job-jvm-options}, the local log configuration and Spark
   * defaults, a log file of its own; in the project's directory, as the quick start runs.
   */
  private static Future<Run> launchAsync(Class<?> main, List<String> args) {
    String key = main.getName() + " " + String.join(" ", args);
    return launched.computeIfAbsent(
        key, k -> launcher.submit(() -> launch(main, args.toArray(String[]::new))));
  }

  private static Run launch(Class<?> main, String... args) throws Exception {
    String key = main.getSimpleName() + " " + String.join(" ", args);
    Path log =
        tmp.resolve("logs").resolve("run-" + runs.incrementAndGet() + ".log").toAbsolutePath();
    List<String> options = new ArrayList<>(ChildJvm.shortJobOptions());
    options.addAll(
        List.of(
            "-Xmx1g",
            "-Dlog4j.configurationFile=" + CONF.resolve("log4j2.properties"),
            "-Dfleetprof.log.file=" + log,
            "-Dfleetprof.conf.dir=" + CONF));
    List<String> cmd =
        ChildJvm.archivedCommand(
            options, System.getProperty("java.class.path"), main.getName(), List.of(args));
    Path out = Files.createTempFile(tmp, "stdout", ".txt");
    Path err = Files.createTempFile(tmp, "stderr", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    long started = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(600, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      fail(key + " did not finish in 600 s");
    }
    // In the test's output file (surefire's *-output.txt): which children the class waits for.
    System.out.printf(
        "%.1f s exit %d %s%n", (System.nanoTime() - started) / 1e9, p.exitValue(), key);
    return new Run(
        key,
        log,
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private static List<String> listing(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }
}
