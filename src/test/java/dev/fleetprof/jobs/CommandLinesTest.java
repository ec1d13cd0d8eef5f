package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The jobs' command lines, as their mains run them (in this JVM, without Spark: a command line that
 * does not parse never gets to start it): a bad one is one line naming the option and the value,
 * then the usage, on stderr and exit code 2, never a stack trace; {@code --help} is the usage on
 * stdout.
 */
class CommandLinesTest {
  /** What a main printed and returned. */
  private record Outcome(int exit, String out, String err) {}

  private static Outcome run(CommandLines.Options<?> options, String... argv) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit = runUnchecked(options, argv, o, e);
    }
    return new Outcome(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static <A> int runUnchecked(
      CommandLines.Options<A> options, String[] argv, PrintStream out, PrintStream err)
      throws Exception {
    return CommandLines.run(
        options, argv, out, err, (spark, args) -> fail("the job ran on " + String.join(" ", argv)));
  }

  /** The jobs, by the name their usage and messages give them. */
  private static final List<Job> JOBS =
      List.of(
          new Job(
              "fleet-aggregate",
              FleetCommandLine::new,
              List.of("--input", "a", "--output", "o"),
              List.of(
                  "--input",
                  "--output",
                  "--date",
                  "--pprof",
                  "--folded",
                  "--flamegraph",
                  "--binaries",
                  "--gmon-binary",
                  "--no-module-paths",
                  "--effective-period",
                  "--format",
                  "--glob",
                  "--mode",
                  "--help")),
          new Job(
              "export-profile",
              ExportProfile.Options::new,
              List.of("--from", "o", "--date", "2026-11-20", "--pprof", "p.pb.gz"),
              List.of(
                  "--from",
                  "--date",
                  "--host",
                  "--base",
                  "--measure",
                  "--format",
                  "--pprof",
                  "--folded",
                  "--flamegraph",
                  "--help")),
          new Job(
              "symbolize",
              SymbolizeOutput.Options::new,
              List.of("--output", "o"),
              List.of("--output", "--binaries", "--date", "--no-module-paths", "--help")),
          new Job(
              "sql",
              SqlCommand::new,
              List.of("-e", "SELECT 1"),
              List.of(
                  "-d",
                  "--define",
                  "--view",
                  "-e",
                  "--format",
                  "--max-rows",
                  "--remote",
                  "--help")),
          new Job(
              "connect-server",
              ConnectServerJob.Options::new,
              List.of(),
              List.of("--port", "--host", "--help")));

  /** A job's options, a command line it takes, and every option README, CI and tests use. */
  private record Job(
      String name,
      Supplier<CommandLines.Options<?>> options,
      List<String> valid,
      List<String> optionNames) {
    String[] with(String... more) {
      return Stream.concat(valid.stream(), Stream.of(more)).toArray(String[]::new);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static Job job(String name) {
    return JOBS.stream().filter(j -> j.name().equals(name)).findFirst().orElseThrow();
  }

  static Stream<Arguments> badCommandLines() {
    Job fleet = job("fleet-aggregate");
    Job export = job("export-profile");
    Job symbolize = job("symbolize");
    Job sql = job("sql");
    return Stream.of(
        // A bad number.
        Arguments.of(sql, sql.with("--max-rows", "abc"), List.of("--max-rows", "'abc'")),
        Arguments.of(sql, sql.with("--max-rows", "-1"), List.of("--max-rows", "'-1'")),
        Arguments.of(
            sql, sql.with("--max-rows", "99999999999"), List.of("--max-rows", "'99999999999'")),
        // A value that is not one of the option's words.
        Arguments.of(
            fleet,
            fleet.with("--mode", "bogus"),
            List.of("--mode", "'bogus'", "PERMISSIVE, DROPMALFORMED, FAILFAST")),
        Arguments.of(
            fleet,
            fleet.with("--format", "bogus"),
            List.of("--format", "'bogus'", "auto, gperftools, gprof, dcpi")),
        Arguments.of(
            sql, sql.with("--format", "xml"), List.of("--format", "'xml'", "table, json, csv")),
        Arguments.of(
            export,
            export.with("--format", "bogus"),
            List.of("--format", "'bogus'", "gperftools, gprof, dcpi")),
        Arguments.of(
            export,
            export.with("--format", "auto"),
            List.of("--format", "'auto'", "gperftools, gprof, dcpi")),
        // A date that is not one.
        Arguments.of(
            fleet,
            fleet.with("--date", "20/11/2026"),
            List.of("--date", "'20/11/2026'", "2026-11-20")),
        Arguments.of(export, export.with("--base", "yesterday"), List.of("--base", "'yesterday'")),
        Arguments.of(
            symbolize, symbolize.with("--date", "2026-02-30"), List.of("--date", "'2026-02-30'")),
        // A required option missing, or its value.
        Arguments.of(fleet, new String[] {"--output", "o"}, List.of("--input")),
        Arguments.of(fleet, new String[] {"--input", "a"}, List.of("--output")),
        Arguments.of(fleet, new String[0], List.of("--input", "--output")),
        Arguments.of(fleet, fleet.with("--date"), List.of("--date")),
        Arguments.of(export, new String[] {"--from", "o", "--pprof", "p"}, List.of("--date")),
        Arguments.of(symbolize, new String[] {"--binaries", "b"}, List.of("--output")),
        Arguments.of(sql, new String[0], List.of("-e SQL", "FILE.sql")),
        // Options that do not go together.
        Arguments.of(
            export,
            new String[] {"--from", "o", "--date", "2026-11-20"},
            List.of("--pprof", "--folded", "--flamegraph")),
        Arguments.of(
            export,
            export.with("--base", "2026-11-19", "--folded", "f"),
            List.of("--base", "--pprof")),
        // An option no job has.
        Arguments.of(fleet, fleet.with("--bogus"), List.of("'--bogus'")),
        // An output the next run would read back as input.
        Arguments.of(
            fleet, fleet.with("--output", "a/out"), List.of("--output a/out", "--input a")),
        Arguments.of(fleet, fleet.with("--output", "./a"), List.of("--output ./a", "inside")),
        Arguments.of(
            fleet,
            fleet.with("--input", "logs/date=*", "--output", "logs/out"),
            List.of("--output logs/out", "inside")),
        Arguments.of(fleet, fleet.with("--input=x"), List.of("'--input=x'")),
        Arguments.of(export, export.with("--bogus", "x"), List.of("'--bogus'")),
        Arguments.of(symbolize, symbolize.with("-x"), List.of("'-x'")),
        Arguments.of(sql, sql.with("--bogus"), List.of("'--bogus'")),
        // What the value of an option must look like.
        Arguments.of(
            fleet,
            fleet.with("--effective-period", "gperftools"),
            List.of("--effective-period gperftools", "FORMAT=DURATION")),
        Arguments.of(
            fleet,
            fleet.with("--effective-period", "gperftools=4"),
            List.of("--effective-period gperftools=4", "4ms")),
        Arguments.of(
            fleet,
            fleet.with("--effective-period", "perf=4ms"),
            List.of("--effective-period perf=4ms", "unknown format perf")),
        Arguments.of(
            fleet,
            fleet.with("--effective-period", "gperftools=0ms"),
            List.of("--effective-period gperftools=0ms", "positive")),
        Arguments.of(
            fleet, fleet.with("--keep-replaced", "10"), List.of("--keep-replaced", "'10'", "10m")),
        Arguments.of(
            fleet,
            fleet.with("--keep-replaced", "-1h"),
            List.of("--keep-replaced", "'-1h'", "duration")),
        Arguments.of(sql, sql.with("--view", "p"), List.of("--view", "'p'", "NAME=VALUE")),
        Arguments.of(sql, sql.with("-d", "date"), List.of("--define", "'date'", "NAME=VALUE")),
        Arguments.of(sql, sql.with("--remote", "local"), List.of("--remote", "'local'", "sc://")),
        Arguments.of(
            job("connect-server"),
            new String[] {"--port", "70000"},
            List.of("--port 70000", "1 to 65535")));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badCommandLines")
  void badCommandLineIsOneLineAndTheUsageWithExitTwo(Job job, String[] argv, List<String> named)
      throws Exception {
    Outcome o = run(job.options().get(), argv);
    assertEquals(2, o.exit(), o.err());
    assertEquals("", o.out());
    String usage = CommandLines.usage(job.options().get());
    assertTrue(o.err().endsWith(usage), o.err());
    String message = o.err().substring(0, o.err().length() - usage.length());
    assertEquals(1, message.lines().count(), message);
    assertTrue(message.startsWith(job.name() + ": "), message);
    for (String n : named) {
      assertTrue(message.contains(n), "names " + n + ": " + message);
    }
    assertFalse(o.err().contains("Exception") || o.err().contains("\tat "), o.err());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("jobs")
  void helpIsTheUsageWithEveryOption(Job job) throws Exception {
    for (String help : List.of("--help", "-h")) {
      Outcome o = run(job.options().get(), job.with(help));
      assertEquals(0, o.exit(), o.err());
      assertEquals("", o.err());
      assertTrue(o.out().startsWith("Usage: " + job.name() + " "), o.out());
      for (String option : job.optionNames()) {
        assertTrue(
            Pattern.compile("(?<![\\w-])" + Pattern.quote(option) + "(?![\\w-])")
                .matcher(o.out())
                .find(),
            option + " in\n" + o.out());
      }
    }
    // Help needs none of the required options either.
    assertEquals(0, run(job.options().get(), "--help").exit());
  }

  static Stream<Job> jobs() {
    return JOBS.stream();
  }

  @Test
  void fleetAggregateArgumentsAreTheOptionsGiven() {
    FleetAggregate.Args a =
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              "a",
              "--output",
              "o",
              "--input",
              "b",
              "--mode",
              "failfast",
              "--format",
              "GPROF",
              "--binaries",
              "x",
              "--no-module-paths",
              "--output",
              "o2"
            });
    assertEquals(List.of("a", "b"), a.inputs());
    // Given twice, the last one counts, as the jobs always took it.
    assertEquals("o2", a.output());
    // The profile source's spelling of its options, whatever the case given.
    assertEquals("FAILFAST", a.mode());
    assertEquals("gprof", a.format());
    assertEquals(List.of("x"), a.binaries());
    assertFalse(a.useModulePaths());
    FleetAggregate.Args defaults =
        FleetAggregate.Args.parse(new String[] {"--input", "a", "--output", "o"});
    assertEquals(
        List.of("auto", "PERMISSIVE", true, List.of(), java.time.Duration.ofHours(1)),
        List.of(
            defaults.format(),
            defaults.mode(),
            defaults.useModulePaths(),
            defaults.binaries(),
            defaults.keepReplaced()));
    for (String[] given :
        List.of(
            new String[] {"0", "PT0S"},
            new String[] {"90s", "PT1M30S"},
            new String[] {"10m", "PT10M"},
            new String[] {"2d", "PT48H"})) {
      assertEquals(
          java.time.Duration.parse(given[1]),
          FleetAggregate.Args.parse(
                  new String[] {"--input", "a", "--output", "o", "--keep-replaced", given[0]})
              .keepReplaced(),
          given[0]);
    }
  }

  @Test
  void exportAndSymbolizeArgumentsAreTheOptionsGiven() {
    ExportProfile.Args e =
        ExportProfile.Args.parse(
            new String[] {
              "--from",
              "o",
              "--date",
              "2026-11-21",
              "--base",
              "2026-11-20",
              "--measure",
              "executions",
              "--format",
              "GProf",
              "--pprof",
              "p"
            });
    assertEquals(
        List.of("o", "2026-11-21", "2026-11-20", "gprof", "executions", "p"),
        List.of(
            e.from(),
            e.date().toString(),
            e.base().toString(),
            e.format(),
            e.measure(),
            e.targets().pprof()));
    SymbolizeOutput.Args s =
        SymbolizeOutput.Args.parse(
            new String[] {
              "--output",
              "o",
              "--date",
              "2026-11-20",
              "--binaries",
              "b1",
              "--date",
              "2026-11-21",
              "--binaries",
              "b2"
            });
    assertEquals(
        List.of("2026-11-20", "2026-11-21"), s.dates().stream().map(Object::toString).toList());
    assertEquals(List.of("b1", "b2"), s.binaries());
    assertTrue(s.useModulePaths());
    assertEquals(List.of(), s.debuginfod());
    assertEquals(null, s.debuginfodCache());
    for (String[] base :
        List.of(new String[] {"--output", "o"}, new String[] {"--input", "i", "--output", "o"})) {
      List<String> argv = new java.util.ArrayList<>(List.of(base));
      argv.addAll(
          List.of(
              "--debuginfod",
              "http://127.0.0.1:8002/",
              "--debuginfod",
              "https://debuginfod.example/d",
              "--debuginfod-cache",
              "/var/cache/dbg"));
      String[] a = argv.toArray(String[]::new);
      boolean fleet = base.length == 4;
      List<Object> got =
          fleet
              ? List.of(
                  FleetAggregate.Args.parse(a).debuginfod(),
                  FleetAggregate.Args.parse(a).debuginfodCache())
              : List.of(
                  SymbolizeOutput.Args.parse(a).debuginfod(),
                  SymbolizeOutput.Args.parse(a).debuginfodCache());
      assertEquals(
          List.of(
              List.of("http://127.0.0.1:8002", "https://debuginfod.example/d"), "/var/cache/dbg"),
          got);
      argv.set(argv.indexOf("https://debuginfod.example/d"), "debuginfod.example");
      IllegalArgumentException bad =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class,
              () ->
                  (fleet
                          ? (Runnable) () -> FleetAggregate.Args.parse(argv.toArray(String[]::new))
                          : (Runnable)
                              () -> SymbolizeOutput.Args.parse(argv.toArray(String[]::new)))
                      .run());
      assertTrue(
          bad.getMessage().contains("'debuginfod.example' is not a debuginfod server URL"),
          bad.getMessage());
    }
  }

  @Test
  void sqlStatementsRunInTheOrderGiven(@TempDir Path tmp) throws Exception {
    Path file = Files.writeString(tmp.resolve("two.sql"), "SELECT 2; SELECT '${x:-3}'");
    SqlCommand.Script s =
        SqlRunner.parse(
            new String[] {
              "-e",
              "SELECT 1",
              file.toString(),
              "--view",
              "p=it's",
              "-d",
              "x=a=b",
              "-e",
              "SELECT 4",
              "--max-rows",
              "7"
            });
    assertEquals(
        List.of(
            "SELECT 1",
            "SELECT 2",
            "SELECT 'a=b'",
            "CREATE OR REPLACE TEMPORARY VIEW p USING profile OPTIONS (path 'it\\'s')",
            "SELECT 4"),
        s.statements());
    assertEquals(7, s.maxRows());
    assertEquals(ResultPrinter.Format.TABLE, s.format());
  }

  @Test
  void outputBesideAnInputIsNotInsideIt() {
    assertFalse(FleetCommandLine.within("ab", "a"), "a sibling whose name starts the same");
    assertFalse(FleetCommandLine.within("/data/out", "/data/in"));
    assertTrue(FleetCommandLine.within("/data/in/../in/x", "/data/in"));
    assertTrue(FleetCommandLine.within("hdfs://nn:8020/p/out", "hdfs://nn:8020/p"));
    assertFalse(FleetCommandLine.within("hdfs://other:8020/p/out", "hdfs://nn:8020/p"));
  }
}
