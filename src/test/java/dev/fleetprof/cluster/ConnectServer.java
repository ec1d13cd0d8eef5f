package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.testing.ChildJvm;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Spark Connect server as notebooks reach Spark: Maven's {@code spark-connect} at the project's
 * Spark version ({@code jobs/lib/connect-server.pom}), the fleetprof jar on its classpath, the
 * {@code profile} catalog registered, listening on 127.0.0.1. Also resolves the other classpaths
 * the tests start beside it (the JVM client's, a notebook kernel's) from their poms.
 */
final class ConnectServer implements AutoCloseable {
  /** The children's logging: the tests' own, less the server's known error on session release. */
  static final String LOGGING =
      "-Dlog4j.configurationFile="
          + Path.of("src", "test", "connect", "log4j2.properties").toAbsolutePath();

  private final Process process;
  private final int port;

  private ConnectServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The server's address, as clients take it. */
  String url() {
    return "sc://127.0.0.1:" + port;
  }

  /**
   * Starts a server whose scratch files go under {@code work} and whose output goes to {@code
   * Jvms.log(logName)}; returns once it accepts connections.
   */
  static ConnectServer start(Path work, String logName) throws Exception {
    Files.createDirectories(work);
    List<Path> classpath =
        new ArrayList<>(resolve(Path.of("jobs", "lib", "connect-server.pom"), work, "server"));
    classpath.add(Jvms.jobJar());
    int port = Jvms.freePort();
    List<String> options =
        List.of(
            LOGGING,
            "-Xmx1g",
            "-Dspark.master=local[2]",
            "-Dspark.app.name=fleetprof-" + logName,
            "-Dspark.ui.enabled=false",
            "-Dspark.sql.shuffle.partitions=4",
            "-Dspark.connect.grpc.binding.address=127.0.0.1",
            "-Dspark.connect.grpc.binding.port=" + port,
            "-Dspark.sql.catalog.profile=dev.fleetprof.spark.ProfileCatalog",
            "-Dspark.sql.warehouse.dir=" + work.resolve("warehouse"));
    Process p =
        ChildJvm.start(
            ChildJvm.command(
                options,
                ChildJvm.classpath(classpath),
                "org.apache.spark.sql.connect.service.SparkConnectServer",
                List.of()),
            Jvms.log(logName),
            Map.of());
    return listening(p, port, logName, 180);
  }

  /**
   * Starts the server as users do, {@code jobs/connect-server --port N} (its jars resolved by
   * {@code jobs/lib/resolve}, the job jar {@code package} built), its output and its log file in
   * {@code Jvms.log(logName)}; returns once it accepts connections.
   */
  static ConnectServer startJob(String logName) throws Exception {
    int port = Jvms.freePort();
    Process p =
        ChildJvm.start(
            List.of(
                Path.of("jobs", "connect-server").toAbsolutePath().toString(),
                "--port",
                String.valueOf(port)),
            Jvms.log(logName),
            Map.of("FLEETPROF_LOG_FILE", Jvms.log(logName + "-spark").toString()));
    return listening(p, port, logName, 300);
  }

  /** The server {@code process} started, once it accepts connections; stopped if it never does. */
  private static ConnectServer listening(
      Process process, int port, String logName, long timeoutSeconds) throws Exception {
    ConnectServer server = new ConnectServer(process, port);
    try {
      server.awaitPort(logName, timeoutSeconds);
    } catch (Throwable t) {
      server.close();
      throw t;
    }
    return server;
  }

  @Override
  public void close() {
    Jvms.stop(process);
  }

  /** Waits until the server accepts connections, failing early if it died. */
  private void awaitPort(String logName, long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        fail(
            "the Spark Connect server exited with "
                + process.exitValue()
                + ":\n"
                + Jvms.tail(Jvms.log(logName)));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException notYet) {
        Thread.sleep(500);
      }
    }
    fail(
        "the Spark Connect server did not listen on "
            + port
            + " within "
            + timeoutSeconds
            + " s:\n"
            + Jvms.tail(Jvms.log(logName)));
  }

  /**
   * The classpath of {@code pom}, as Maven resolves it: from the local repository alone when it has
   * every jar, else downloading the missing ones. {@code name} names its files under {@code work}
   * and its logs.
   */
  static List<Path> resolve(Path pom, Path work, String name) throws Exception {
    Path out = work.resolve(name + "-classpath.txt");
    String mavenHome = System.getProperty("maven.home");
    assertTrue(mavenHome != null, "maven.home is not set: the pom's failsafe passes it");
    List<String> cmd =
        List.of(
            Path.of(mavenHome, "bin", "mvn").toString(),
            "-B",
            "-q",
            "-f",
            pom.toAbsolutePath().toString(),
            "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath",
            "-Dmdep.outputFile=" + out,
            "-Dspark.version=" + System.getProperty("fleetprof.spark.version", "4.1.2"));
    List<String> offline = new ArrayList<>(cmd);
    offline.add("-o");
    if (!runMaven(offline, "resolve-" + name + "-offline")) {
      Path log = Jvms.log("resolve-" + name);
      if (!runMaven(cmd, "resolve-" + name)) {
        fail("cannot resolve " + pom + ":\n" + Jvms.tail(log));
      }
    }
    List<Path> jars = new ArrayList<>();
    for (String entry : Files.readString(out).trim().split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        jars.add(Path.of(entry));
      }
    }
    return jars;
  }

  private static boolean runMaven(List<String> cmd, String logName) throws Exception {
    Process p = ChildJvm.start(cmd, Jvms.log(logName), Map.of());
    if (!p.waitFor(600, TimeUnit.SECONDS)) {
      Jvms.stop(p);
      return false;
    }
    return p.exitValue() == 0;
  }
}
