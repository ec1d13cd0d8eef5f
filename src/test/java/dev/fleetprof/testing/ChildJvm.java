package dev.fleetprof.testing;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Child JVMs started as the project's launchers start them ({@code jobs/lib/launch}, {@code
 * bench/run}): this JDK's {@code java} with {@code @conf/jvm-options}, the options Spark 4 needs on
 * Java 17, handed over as a java argument file so that the java launcher is the file's only reader.
 */
public final class ChildJvm {
  /** The one list of the JVM options Spark needs here; the pom and the scripts pass it too. */
  public static final Path OPTIONS_FILE = Path.of("conf", "jvm-options").toAbsolutePath();

  private ChildJvm() {}

  /**
   * The launcher's options for a job on a few MB ({@code conf/job-jvm-options}, then {@code
   * conf/small-run-jvm-options}: C1 only, Spark's expressions interpreted), for a child that runs a
   * job on a few seconds of small data, as {@code jobs/lib/launch --small} starts one.
   */
  public static List<String> shortJobOptions() {
    return List.of(
        "@" + Path.of("conf", "job-jvm-options").toAbsolutePath(),
        "@" + Path.of("conf", "small-run-jvm-options").toAbsolutePath());
  }

  /** {@code @/.../conf/jvm-options}: hands a java launcher the options file. */
  public static String optionsArgument() {
    if (!Files.isRegularFile(OPTIONS_FILE)) {
      throw new IllegalStateException(
          OPTIONS_FILE + " is missing: tests run in the project's directory");
    }
    return "@" + OPTIONS_FILE;
  }

  /**
   * The command line for {@code mainClass}: java, the shared options, then {@code jvmOptions} (so
   * that they can override a shared one), the classpath, the class and its arguments.
   */
  public static List<String> command(
      List<String> jvmOptions, String classpath, String mainClass, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(optionsArgument());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(mainClass);
    cmd.addAll(args);
    return cmd;
  }

  /** A classpath of these entries. */
  public static String classpath(List<Path> entries) {
    return String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());
  }

  /**
   * This JVM's own log4j settings, from its command line (the pom's or bench/run's), for a child
   * that should log as this JVM does.
   */
  public static List<String> loggingOfThisJvm() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("-Dlog4j"))
        .toList();
  }

  /**
   * Starts {@code command} with its output and errors appended to {@code log}, after the command
   * line itself (to rerun a failure by hand). The child's environment is this JVM's with {@code
   * env} added; Spark in it binds to loopback unless SPARK_LOCAL_IP says otherwise, as the
   * launchers do.
   */
  public static Process start(List<String> command, Path log, Map<String, String> env)
      throws IOException {
    Path parent = log.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(log, String.join(" ", command) + "\n");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().putAll(env);
    return pb.start();
  }
}
