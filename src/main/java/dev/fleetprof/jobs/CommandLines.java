package dev.fleetprof.jobs;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileFormats;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FSError;
import org.apache.spark.SparkException;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * The jobs' command lines, one behaviour for all of them: picocli fills a job's annotated options
 * class and generates its usage. A command line that does not parse (an unknown option, a value of
 * the wrong kind, a required option missing) prints one line naming the option and the value, then
 * the usage, on stderr and exits with 2, before Spark starts; {@code -h}/{@code --help} prints the
 * usage; a job that fails throws, as any Java main does (exit 1, and under {@code spark-submit} the
 * application fails with the exception).
 *
 * <p>Run by the local launcher ({@code jobs/lib/launch}, which names its log file in the system
 * property {@value #LOG_FILE_PROPERTY}), a job that fails prints one line on stderr instead, saying
 * what went wrong (a missing path, a SQL error, the file and byte offset of a bad profile) and
 * where the full stack trace was logged, and exits with {@link #JOB_FAILED}: its user made a
 * mistake far more often than the code did, and a hundred lines of Spark's stack hide the one that
 * matters.
 */
final class CommandLines {
  /** The exit code of a command line that does not parse (picocli's usage error). */
  static final int BAD_COMMAND_LINE = CommandLine.ExitCode.USAGE;

  /** The exit code of a job that failed, as a Java main that throws exits. */
  static final int JOB_FAILED = 1;

  /**
   * The system property naming the log file that {@code conf/log4j2.properties} writes; set, failed
   * jobs are reported in one line that points there.
   */
  static final String LOG_FILE_PROPERTY = "fleetprof.log.file";

  /**
   * Where failures' stack traces are logged: {@code conf/log4j2.properties} sends this logger to
   * the log file only, not to the console.
   */
  private static final Logger FAILURES = LoggerFactory.getLogger("dev.fleetprof.failures");

  private CommandLines() {}

  /** A job's options, filled by picocli, and the arguments of the job they make. */
  interface Options<A> {
    /**
     * The job's arguments, or an IllegalArgumentException saying what combination of options is
     * wrong (each one parsed on its own).
     */
    A args();
  }

  /** What a job does with its session and its arguments. */
  interface Job<A> {
    void run(SparkSession spark, A args) throws IOException;
  }

  /** Where a job's session comes from, given its arguments. */
  interface SessionStarter<A> {
    SparkSession start(String appName, A args);
  }

  /**
   * A job's {@code main}: runs the job on a session that is stopped afterwards and returns 0, or
   * prints the usage ({@code --help}, 0) or what is wrong with the command line and the usage
   * ({@link #BAD_COMMAND_LINE}) without starting Spark. The job's own exceptions propagate, unless
   * {@value #LOG_FILE_PROPERTY} is set: then a failure is logged with its stack trace and printed
   * as one line on {@code err} ({@link #JOB_FAILED}).
   */
  static <A> int run(
      Options<A> options, String[] argv, PrintStream out, PrintStream err, Job<A> job)
      throws IOException {
    return run(options, argv, out, err, (appName, args) -> Sessions.start(appName), job);
  }

  /** As {@link #run(Options, String[], PrintStream, PrintStream, Job)}, on a session of its own. */
  static <A> int run(
      Options<A> options,
      String[] argv,
      PrintStream out,
      PrintStream err,
      SessionStarter<A> session,
      Job<A> job)
      throws IOException {
    CommandLine commandLine = commandLine(options);
    String name = commandLine.getCommandName();
    A args;
    try {
      commandLine.parseArgs(argv);
      if (commandLine.isUsageHelpRequested()) {
        out.print(commandLine.getUsageMessage());
        out.flush();
        return 0;
      }
      args = options.args();
    } catch (ParameterException | IllegalArgumentException e) {
      err.println(name + ": " + e.getMessage());
      err.print(commandLine.getUsageMessage());
      err.flush();
      return BAD_COMMAND_LINE;
    }
    String logFile = System.getProperty(LOG_FILE_PROPERTY);
    try {
      SparkSession spark = session.start("fleetprof " + name, args);
      try {
        job.run(spark, args);
      } finally {
        spark.stop();
      }
    } catch (Exception | FSError e) {
      // Exception, not IOException and RuntimeException: Spark's Scala code throws checked ones
      // (AnalysisException, SparkException) that no Java signature declares. FSError: Hadoop's
      // local file system throws a failed write (a full disk) as an Error.
      if (logFile == null) {
        throw e;
      }
      FAILURES.error("{} failed", name, e);
      err.println(name + ": " + oneLine(e) + " (stack trace in " + logFile + ")");
      err.flush();
      return JOB_FAILED;
    }
    return 0;
  }

  /**
   * What went wrong, in one line: a problem in a profile by its own message (the file, the byte
   * offset, what is wrong), wherever it surfaced; a task's failure by the exception the task threw,
   * not Spark's "Job aborted due to stage failure" around it; anything else by the first line of
   * its message (Spark's SQL errors follow it with the plan or the statement).
   */
  static String oneLine(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ProfileFormatException) {
        return firstLine(t);
      }
    }
    // A file Spark could not read (a corrupt Parquet part file of an output, say) is named only
    // deep in the causes of the error a query gets (FAILED_TO_CREATE_PLAN_FOR_DIRECT_QUERY, "Job
    // aborted"): the line names that file.
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SparkThrowable st
          && ErrorConditions.of(st) != null
          && ErrorConditions.of(st).startsWith("FAILED_READ_FILE")) {
        return firstLine(t);
      }
    }
    Throwable shown = failure;
    while (shown instanceof SparkException && shown.getCause() != null) {
      shown = shown.getCause();
    }
    // Errors whose message says it all; other exceptions (a bug, most likely) are named too.
    boolean explained =
        shown instanceof SparkThrowable
            || shown instanceof IllegalArgumentException
            || shown instanceof IOException
            || shown instanceof UncheckedIOException;
    String line = firstLine(shown);
    if (explained && !line.isEmpty()) {
      return line;
    }
    return shown.getClass().getName() + (line.isEmpty() ? "" : ": " + line);
  }

  /** The first line of a message that has text (Spark's parse errors start with a line end). */
  private static String firstLine(Throwable t) {
    String message = t.getMessage();
    if (message == null) {
      return "";
    }
    for (String line : message.split("\\R")) {
      if (!line.isBlank()) {
        // Spark ends an analysis error's first line with ';' when the plan follows.
        return line.strip().replaceFirst(";$", "");
      }
    }
    return "";
  }

  /** Exits the JVM with {@code code} unless it is 0 (a job's main then just returns). */
  static void exitOnError(int code) {
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * The arguments of a command line, for callers that run a job on a session of their own; an
   * IllegalArgumentException (with picocli's message) when it does not parse.
   */
  static <A> A parse(Options<A> options, String[] argv) {
    try {
      commandLine(options).parseArgs(argv);
    } catch (ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return options.args();
  }

  /** The generated usage text of a job's options. */
  static String usage(Options<?> options) {
    return commandLine(options).getUsageMessage();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static CommandLine commandLine(Options<?> options) {
    CommandLine commandLine =
        new CommandLine(options)
            // As the jobs always parsed: an option given again replaces its value (lists add to
            // it).
            .setOverwrittenOptionsAllowed(true)
            // An argument starting with '@' is a path or a statement, never a file of arguments.
            .setExpandAtFiles(false)
            // Options and their values are separate arguments, as the jobs always took them.
            .setSeparator(" ")
            .setUsageHelpWidth(100)
            .registerConverter(LocalDate.class, CommandLines::date);
    for (OptionSpec option : commandLine.getCommandSpec().options()) {
      Class<?> type = option.type();
      if (type.isEnum()) {
        commandLine.registerConverter((Class) type, new EnumWords(type));
      }
    }
    commandLine
        .getCommandSpec()
        .addOption(
            OptionSpec.builder("-h", "--help")
                .usageHelp(true)
                // Last in the usage: the jobs' options have no order (-1) or a small one.
                .description("print this text")
                .order(1000)
                .build());
    return commandLine;
  }

  /** A date as ISO 8601 writes a day. */
  static LocalDate date(String value) {
    try {
      return LocalDate.parse(value);
    } catch (DateTimeParseException e) {
      throw new TypeConversionException("'" + value + "' is not a date like 2026-11-20");
    }
  }

  /**
   * An enum value by its name in any case (as the profile source reads its mode option); a bad one
   * is told the words the usage shows (each constant's {@code toString}).
   */
  private static final class EnumWords implements ITypeConverter<Object> {
    private final Class<?> type;

    EnumWords(Class<?> type) {
      this.type = type;
    }

    @Override
    public Object convert(String value) {
      for (Object constant : type.getEnumConstants()) {
        if (((Enum<?>) constant).name().equalsIgnoreCase(value)) {
          return constant;
        }
      }
      throw new TypeConversionException(
          "'"
              + value
              + "' is not one of "
              + Arrays.stream(type.getEnumConstants())
                  .map(String::valueOf)
                  .collect(Collectors.joining(", ")));
    }
  }

  /**
   * The name of a format the project reads (any case; the format registry's spelling), for an
   * option naming the format of profiles already read. Also the usage's list of them.
   */
  static final class FormatName implements ITypeConverter<String>, Iterable<String> {
    @Override
    public String convert(String value) {
      return oneOf(value, this);
    }

    @Override
    public Iterator<String> iterator() {
      return ProfileFormats.names().iterator();
    }
  }

  /** As {@link FormatName}, or {@code auto}: each file's format told from its bytes. */
  static final class FormatToRead implements ITypeConverter<String>, Iterable<String> {
    @Override
    public String convert(String value) {
      return oneOf(value, this);
    }

    @Override
    public Iterator<String> iterator() {
      List<String> names = new ArrayList<>();
      names.add(ProfileFormats.AUTO);
      names.addAll(ProfileFormats.names());
      return names.iterator();
    }
  }

  private static String oneOf(String value, Iterable<String> words) {
    List<String> all = new ArrayList<>();
    for (String w : words) {
      if (w.equalsIgnoreCase(value)) {
        return w;
      }
      all.add(w);
    }
    throw new TypeConversionException("'" + value + "' is not one of " + String.join(", ", all));
  }

  /** A count of something that can be none: a whole number from 0 to {@code Integer.MAX_VALUE}. */
  static final class NonNegativeInt implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        int n = Integer.parseInt(value);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // Said below, with the value.
      }
      throw new TypeConversionException("'" + value + "' is not a whole number >= 0");
    }
  }

  /**
   * A length of time: a whole number and a unit, {@code 0}, {@code 90s}, {@code 10m}, {@code 1h}.
   */
  static final class DurationValue implements ITypeConverter<java.time.Duration> {
    private static final java.util.regex.Pattern FORM =
        java.util.regex.Pattern.compile("([0-9]{1,9})(s|m|h|d)?");

    @Override
    public java.time.Duration convert(String value) {
      java.util.regex.Matcher m = FORM.matcher(value.trim());
      if (m.matches() && (m.group(2) != null || m.group(1).matches("0+"))) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2) == null ? "s" : m.group(2)) {
          case "m" -> java.time.Duration.ofMinutes(n);
          case "h" -> java.time.Duration.ofHours(n);
          case "d" -> java.time.Duration.ofDays(n);
          default -> java.time.Duration.ofSeconds(n);
        };
      }
      throw new TypeConversionException(
          "'" + value + "' is not a duration such as 0, 90s, 10m, 1h or 2d");
    }
  }
}
