package dev.fleetprof.bench;

import dev.fleetprof.testing.ChildJvm;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Child processes of the benchmark (JVMs and go tool pprof), timed by wall clock and CPU. */
final class Processes {
  /**
   * How a child ended: exit code (-1 on timeout), wall seconds, the CPU seconds it used (NaN when
   * unknown), and its output.
   */
  record Outcome(int exit, double seconds, double cpuSeconds, String output) {
    boolean ok() {
      return exit == 0;
    }

    /** The last few lines of the output, for an error message. */
    String tail() {
      String[] lines = output.strip().split("\n");
      return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 5), lines.length));
    }
  }

  private Processes() {}

  /**
   * A java command for {@code main} (see {@link ChildJvm}): the given heap, this JVM's own logging
   * settings (from bench/run), {@code props} and the classpath.
   */
  static List<String> java(
      String heap, String classpath, String main, List<String> args, String... props) {
    List<String> jvmOptions = new ArrayList<>(List.of("-Xmx" + heap));
    jvmOptions.addAll(ChildJvm.loggingOfThisJvm());
    jvmOptions.addAll(List.of(props));
    return ChildJvm.command(jvmOptions, classpath, main, args);
  }

  /**
   * The class-data archive jobs/lib/launch starts jobs on (jobs/lib/class-archive, which bench/run
   * calls and passes as {@code fleetprof.classArchive}), or null when there is none.
   */
  static String classArchive() {
    String archive = System.getProperty("fleetprof.classArchive", "");
    return archive.isEmpty() ? null : archive;
  }

  /**
   * The classpath users run the jobs with: the jar plus its dependencies, the dependencies first
   * when there is a class archive (which needs its jars first), as jobs/lib/launch orders them.
   */
  static String jobClasspath() throws IOException {
    Path target = Path.of("target");
    try (var jars = Files.list(target)) {
      Path jar =
          jars.filter(p -> p.getFileName().toString().matches("fleetprof-.*\\.jar"))
              .findFirst()
              .orElseThrow(() -> new IOException("no target/fleetprof-*.jar: build first"));
      String deps = Files.readString(target.resolve("classpath.txt")).strip();
      return classArchive() == null
          ? jar + File.pathSeparator + deps
          : deps + File.pathSeparator + jar;
    }
  }

  static Outcome run(List<String> cmd, Path log, long timeoutSeconds, Map<String, String> env)
      throws IOException, InterruptedException {
    return run(cmd, null, log, timeoutSeconds, env);
  }

  /** As above, the child reading {@code input} (null: nothing) as its standard input. */
  static Outcome run(
      List<String> cmd, Path input, Path log, long timeoutSeconds, Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    if (input != null) {
      pb.redirectInput(input.toFile());
    }
    pb.environment().putAll(env);
    long cpu0 = childrenCpuTicks();
    long t0 = System.nanoTime();
    Process p = pb.start();
    int exit;
    if (p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      exit = p.exitValue();
    } else {
      p.destroyForcibly().waitFor();
      exit = -1;
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    long cpu1 = childrenCpuTicks();
    double cpu = cpu0 < 0 || cpu1 < 0 ? Double.NaN : (cpu1 - cpu0) / 100.0;
    return new Outcome(exit, seconds, cpu, Files.readString(log));
  }

  /**
   * CPU ticks of this process's reaped children (Linux {@code /proc/self/stat} cutime + cstime, in
   * the USER_HZ = 100 ticks per second that Linux exports), or -1 elsewhere. A child's time is
   * added once it is waited for, which run() does.
   */
  private static long childrenCpuTicks() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[13]) + Long.parseLong(f[14]); // fields 16 and 17 of stat(5)
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
