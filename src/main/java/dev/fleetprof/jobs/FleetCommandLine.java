package dev.fleetprof.jobs;

import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.ReadOptions;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The fleet job's command line (see {@code --help}): picocli options, checked into {@link
 * FleetAggregate.Args}.
 */
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
      "                lines (the inline chain: function, file, line, symbol; innermost first),",
      "                name_source (dwarf, symtab, dynsym, cfi: a boundary-only name, profile:"
          + " the pprof file's own; null: unnamed)",
      "  functions/    format, kind, measure, unit, module, function"
          + " -> self_count, total_count, self_value, total_value (as pprof -top),",
      "                name_source (the most trusted of its locations')",
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
public final class FleetCommandLine implements CommandLines.Options<FleetAggregate.Args> {
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

  @Mixin private Symbolization.DebuginfodOptions debuginfod = new Symbolization.DebuginfodOptions();

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
      names = "--drop-dimension",
      paramLabel = "NAME",
      description =
          "sum over the NAME=VALUE directory level instead of keeping it as a dimension of"
              + " host_stacks/, modules/ and files/ (repeatable). Every key=value level but date"
              + " and host is a dimension by default")
  private List<String> droppedDimensions = new ArrayList<>();

  @Option(
      names = "--label-dimension",
      paramLabel = "KEY",
      description =
          "make the pprof label KEY (pprof.Do's labels) a dimension of host_stacks/ and"
              + " modules/, as go tool pprof -tagfocus=KEY=VALUE selects it (repeatable)")
  private List<String> labelDimensions = new ArrayList<>();

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
  public FleetAggregate.Args args() {
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
    return new FleetAggregate.Args(
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
        debuginfod.cache(),
        List.copyOf(droppedDimensions),
        List.copyOf(labelDimensions));
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
}
