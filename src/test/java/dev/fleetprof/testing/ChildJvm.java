package dev.fleetprof.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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

  /**
   * {@link #command} as {@code jobs/lib/launch} starts a job: on the launcher's class-data archive
   * of the JDK's and the dependencies' classes ({@link #classArchive}), the dependencies first on
   * the classpath as the archive needs, the rest of {@code classpath} after them. A child then maps
   * Spark's classes in instead of loading them from 200 jars: half a bare session's start. Without
   * an archive, or when {@code classpath} lacks one of its jars, the plain command.
   */
  public static List<String> archivedCommand(
      List<String> jvmOptions, String classpath, String mainClass, List<String> args) {
    ClassArchive archive = classArchive();
    List<String> entries = List.of(classpath.split(File.pathSeparator));
    if (archive == null || !entries.containsAll(archive.jars())) {
      return command(jvmOptions, classpath, mainClass, args);
    }
    Set<String> ordered = new LinkedHashSet<>(archive.jars());
    ordered.addAll(entries);
    List<String> options = new ArrayList<>(jvmOptions);
    options.add("-XX:SharedArchiveFile=" + archive.file());
    return command(options, String.join(File.pathSeparator, ordered), mainClass, args);
  }

  /** A class-data archive and the jars it was written from, in their order. */
  public record ClassArchive(Path file, List<String> jars) {}

  private static ClassArchive archive;
  private static boolean archiveAsked;
  private static final AtomicBoolean archiveStartedEarly = new AtomicBoolean();

  /**
   * The launcher's class archive ({@code jobs/lib/class-archive}, keyed by the JDK, {@code
   * target/classpath.txt} and {@code conf/jvm-options}), built by the first caller when there is
   * none (about a minute and a half, once: the quick start and {@code bench/run} then find it), or
   * null: no {@code target/classpath.txt}, {@code FLEETPROF_CLASS_ARCHIVE=off}, or the build failed
   * (the children start without it, as the launcher's jobs do).
   */
  public static synchronized ClassArchive classArchive() {
    if (archiveAsked) {
      return archive;
    }
    archiveAsked = true;
    return buildClassArchive(false);
  }

  /**
   * Starts {@link #classArchive()} on a thread of its own at the lowest CPU priority ({@code nice
   * 19}), once per JVM: a build that would otherwise stop the first test that starts a child JVM
   * for a minute and a half uses the CPU the tests before it leave idle. A test that needs the
   * archive sooner waits for it; a JVM that ends first stops the build.
   */
  public static void buildClassArchiveEarly() {
    if (!archiveStartedEarly.compareAndSet(false, true)) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              synchronized (ChildJvm.class) {
                if (!archiveAsked) {
                  archiveAsked = true;
                  buildClassArchive(true);
                }
              }
            },
            "class-archive");
    t.setDaemon(true);
    t.start();
  }

  private static ClassArchive buildClassArchive(boolean niced) {
    List<String> jars = launcherJars();
    if (jars == null) {
      System.out.println("child JVMs start without a class archive: no " + LAUNCHER_CLASSPATH);
      return null;
    }
    try {
      // The recording runs the quick-start job from the compiled classes (no jar before package).
      // Its answer goes to a file, so that the time limit holds even if the script hangs.
      Path answer = Files.createTempFile("class-archive", ".txt");
      List<String> build = new ArrayList<>(niced ? List.of("nice", "-n", "19") : List.of());
      build.add(Path.of("jobs", "lib", "class-archive").toAbsolutePath().toString());
      build.add(Path.of("target", "classes").toAbsolutePath().toString());
      Process p =
          new ProcessBuilder(build)
              .redirectOutput(answer.toFile())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      // A JVM that ends during the build (a run of a few tests) stops it with its children.
      Thread stop =
          new Thread(
              () -> {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
              });
      Runtime.getRuntime().addShutdownHook(stop);
      boolean ended = p.waitFor(600, TimeUnit.SECONDS);
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException shuttingDown) {
        return null;
      }
      String printed = ended ? Files.readString(answer, StandardCharsets.UTF_8) : "";
      Files.deleteIfExists(answer);
      if (!ended || p.exitValue() != 0 || printed.isBlank()) {
        p.destroyForcibly();
        System.out.println(
            "child JVMs start without a class archive: jobs/lib/class-archive made none"
                + " (FLEETPROF_CLASS_ARCHIVE=off, or see target/cds/failed.log)");
        return null;
      }
      archive = new ClassArchive(Path.of(printed.strip()), jars);
      System.out.println("child JVMs start on the class archive " + archive.file());
      return archive;
    } catch (IOException e) {
      System.out.println("child JVMs start without a class archive: " + e);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The launchers' classpath, Spark's and its dependencies' jars, as the build lists them. */
  public static final Path LAUNCHER_CLASSPATH = Path.of("target", "classpath.txt").toAbsolutePath();

  /** The jars {@link #LAUNCHER_CLASSPATH} lists, in its order, or null when there is none. */
  public static List<String> launcherJars() {
    if (!Files.isRegularFile(LAUNCHER_CLASSPATH)) {
      return null;
    }
    try {
      List<String> jars = new ArrayList<>();
      for (String jar : Files.readString(LAUNCHER_CLASSPATH).strip().split(File.pathSeparator)) {
        if (!jar.isBlank()) {
          jars.add(jar);
        }
      }
      return List.copyOf(jars);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
