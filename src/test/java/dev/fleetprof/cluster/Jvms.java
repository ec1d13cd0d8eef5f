package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Child JVMs on the jars a real deployment has: Spark, Hadoop and Parquet from
 * {@code target/classpath.txt} (written by the pom at {@code package}) and fleetprof only as the job
 * jar. The test JVM's own classpath (with {@code target/classes}) is never handed down, so a child
 * can only find the {@code profile} source the way a cluster does: in the jar.
 */
final class Jvms {
  /** Where the integration tests keep their logs and scratch directories. */
  static final Path WORK = Path.of("target", "cluster-it").toAbsolutePath();

  private static final List<Process> STARTED = new ArrayList<>();

  private Jvms() {}

  /** Spark 4 on Java 17 needs these opens in every JVM: the pom's {@code spark.jvm.opens}. */
  static List<String> opens() {
    String opens = System.getProperty("fleetprof.jvm.opens");
    assertTrue(opens != null && opens.contains("--add-opens"),
        "system property fleetprof.jvm.opens (the pom's spark.jvm.opens) is not set: run with"
            + " `mvn verify` (failsafe sets it)");
    return Arrays.asList(opens.trim().split("\\s+"));
  }

  /** The job jar `mvn package` built. */
  static Path jobJar() {
    Path jar = Path.of(System.getProperty("fleetprof.jar",
        "target/fleetprof-0.1.0-SNAPSHOT.jar")).toAbsolutePath();
    assertTrue(Files.isRegularFile(jar), jar + " is missing: integration tests run after `package`");
    return jar;
  }

  /** Spark's, Hadoop's and Parquet's jars, as `package` listed them. */
  static List<Path> sparkJars() {
    Path list = Path.of("target", "classpath.txt");
    assertTrue(Files.isRegularFile(list), list + " is missing: it is written at `package`");
    try {
      List<Path> jars = new ArrayList<>();
      for (String entry : Files.readString(list).trim().split(java.io.File.pathSeparator)) {
        if (!entry.isBlank()) {
          jars.add(Path.of(entry));
        }
      }
      return jars;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Starts {@code mainClass} on Spark's jars with the opens, its output in {@code WORK/logs/NAME.log}
   * (kept for debugging a failure).
   */
  static Process start(String name, List<String> jvmOptions, String mainClass, List<String> args,
      Map<String, String> env) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.addAll(jvmOptions);
    cmd.addAll(opens());
    cmd.add("-cp");
    cmd.add(String.join(java.io.File.pathSeparator,
        sparkJars().stream().map(Path::toString).toList()));
    cmd.add(mainClass);
    cmd.addAll(args);
    Path log = log(name);
    Files.createDirectories(log.getParent());
    Files.writeString(log, String.join(" ", cmd) + "\n");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    Process p = pb.start();
    synchronized (STARTED) {
      if (STARTED.isEmpty()) {
        // Should the test JVM be killed mid-test (a CI timeout), take the daemons along.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          synchronized (STARTED) {
            STARTED.forEach(Jvms::stop);
          }
        }));
      }
      STARTED.add(p);
    }
    return p;
  }

  static Path log(String name) {
    return WORK.resolve("logs").resolve(name + ".log");
  }

  /** Waits for a child to exit 0, failing with its log's tail otherwise. */
  static void awaitSuccess(Process p, String name, long timeoutSeconds) throws Exception {
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      stop(p);
      fail(name + " did not finish in " + timeoutSeconds + " s; log " + log(name) + ":\n"
          + tail(log(name)));
    }
    if (p.exitValue() != 0) {
      fail(name + " exited with " + p.exitValue() + "; log " + log(name) + ":\n" + tail(log(name)));
    }
  }

  /** Stops a child and whatever it started (a worker's executors), politely first. */
  static void stop(Process p) {
    if (p == null || !p.isAlive()) {
      return;
    }
    List<ProcessHandle> children = p.descendants().toList();
    p.destroy();
    children.forEach(ProcessHandle::destroy);
    try {
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
