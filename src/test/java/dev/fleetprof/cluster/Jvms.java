package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.testing.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Child JVMs on the jars a real deployment has: Spark, Hadoop and Parquet from {@code
 * target/classpath.txt} (written by the build before the tests) and fleetprof only as the job jar.
 * The test JVM's own classpath (with {@code target/classes}) is never handed down, so a child can
 * only find the {@code profile} source the way a cluster does: in the jar.
 */
final class Jvms {
  /** Where the integration tests keep their logs and scratch directories. */
  static final Path WORK = Path.of("target", "cluster-it").toAbsolutePath();

  private static final List<Process> STARTED = new ArrayList<>();

  private Jvms() {}

  /** The job jar `mvn package` built. */
  static Path jobJar() {
    Path jar =
        Path.of(System.getProperty("fleetprof.jar", "target/fleetprof-0.1.0-SNAPSHOT.jar"))
            .toAbsolutePath();
    assertTrue(
        Files.isRegularFile(jar), jar + " is missing: integration tests run after `package`");
    return jar;
  }

  /** Spark's, Hadoop's and Parquet's jars, as `package` listed them. */
  static List<Path> sparkJars() {
    List<String> jars = ChildJvm.launcherJars();
    assertTrue(
        jars != null,
        ChildJvm.LAUNCHER_CLASSPATH + " is missing: the build writes it before the tests");
    return jars.stream().map(Path::of).toList();
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code mainClass} on Spark's jars (see {@link ChildJvm}), its output in {@code
   * WORK/logs/NAME.log} (kept for debugging a failure).
   */
  static Process start(
      String name,
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      Map<String, String> env)
      throws IOException {
    List<String> cmd =
        ChildJvm.archivedCommand(jvmOptions, ChildJvm.classpath(sparkJars()), mainClass, args);
    Process p = ChildJvm.start(cmd, log(name), env);
    synchronized (STARTED) {
      if (STARTED.isEmpty()) {
        // Should the test JVM be killed mid-test (a CI timeout), take the daemons along.
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
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
      fail(
          name
              + " did not finish in "
              + timeoutSeconds
              + " s; log "
              + log(name)
              + ":\n"
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
