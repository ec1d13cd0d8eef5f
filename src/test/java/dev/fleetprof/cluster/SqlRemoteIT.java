package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code jobs/sql --remote}: a script run on a Spark Connect server that {@code
 * jobs/connect-server} started prints exactly what the same script prints on the local session
 * {@code jobs/sql} starts, in each output format, over the fleet views of an output the fleet job
 * wrote. Both runs go through the scripts users run, each in a process of its own.
 */
class SqlRemoteIT {
  /** Commands (whose rows json and csv leave to stderr) around queries, one of them VALUES. */
  private static final String COMMANDS_AND_QUERIES =
      "SET fleetprof.remote.test=yes; SELECT count(*) AS stacks FROM fleet_stacks;"
          + " SHOW TABLES; VALUES (1, 'a'), (2, NULL) AS t(n, s)";

  private static ConnectServer server;
  private static Path output;

  @BeforeAll
  static void startServer() throws Exception {
    output = FleetJob.localOutput();
    server = ConnectServer.startJob("sql-remote-server");
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aScriptPrintsTheSameOnAServerAsOnALocalSession() throws Exception {
    Map<String, List<String>> runs = new LinkedHashMap<>();
    for (String format : List.of("table", "json", "csv")) {
      runs.putAll(
          localAndRemote(
              format,
              List.of("-d", "output=" + output, "--format", format, "jobs/top-functions.sql")));
    }
    Map<String, String> printed = sql(runs);
    for (String format : List.of("table", "json", "csv")) {
      String local = printed.get("local-" + format);
      assertTrue(local.lines().count() > 5, "the comparison needs rows:\n" + local);
      assertEquals(local, printed.get("remote-" + format), format);
    }
  }

  @Test
  void commandsAndQueriesAreToldApartAsOnALocalSession() throws Exception {
    Map<String, List<String>> runs = new LinkedHashMap<>();
    for (String format : List.of("json", "csv")) {
      runs.putAll(
          localAndRemote(
              "commands-" + format,
              List.of("-d", "output=" + output, "--format", format, "-e", COMMANDS_AND_QUERIES)));
    }
    Map<String, String> printed = sql(runs);
    for (String format : List.of("json", "csv")) {
      String local = printed.get("local-commands-" + format);
      assertEquals(local, printed.get("remote-commands-" + format), format);
      assertEquals(3, local.lines().count() - (format.equals("csv") ? 2 : 0), local);
    }
  }

  /** {@code jobs/sql ARGS} on a local session and on the server: local-NAME and remote-NAME. */
  private static Map<String, List<String>> localAndRemote(String name, List<String> args) {
    List<String> remote = new ArrayList<>(List.of("--remote", server.url()));
    remote.addAll(args);
    return Map.of("local-" + name, args, "remote-" + name, remote);
  }

  /**
   * What each run printed on stdout, by name, failing unless each exited with 0. The runs are
   * independent processes, started side by side: each spends most of its time starting a JVM or
   * waiting for the server, which leaves the other core idle when they run one after another.
   */
  private static Map<String, String> sql(Map<String, List<String>> runs) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(runs.size());
    try {
      Map<String, Future<String>> started = new LinkedHashMap<>();
      runs.forEach((name, args) -> started.put(name, pool.submit(() -> sql(name, args))));
      Map<String, String> printed = new LinkedHashMap<>();
      for (Map.Entry<String, Future<String>> run : started.entrySet()) {
        try {
          printed.put(run.getKey(), run.getValue().get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception cause) {
            throw cause;
          }
          throw (Error) e.getCause();
        }
      }
      return printed;
    } finally {
      pool.shutdownNow();
    }
  }

  /** What {@code jobs/sql ARGS} printed on stdout, failing unless it exited with 0. */
  private static String sql(String name, List<String> args) throws Exception {
    Path stdout = Jvms.WORK.resolve("sql-remote").resolve(name + ".out");
    Path stderr = Jvms.log("sql-" + name);
    Files.createDirectories(stdout.getParent());
    Files.createDirectories(stderr.getParent());
    List<String> command = new ArrayList<>(List.of(Path.of("jobs", "sql").toString()));
    command.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    pb.environment().remove("SPARK_REMOTE");
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("FLEETPROF_LOG_FILE", Jvms.log("sql-" + name + "-spark").toString());
    // The launcher's class archive, as the unit tests' child JVMs built it (or none: then the
    // launcher does not build one inside a test).
    if (ChildJvm.classArchive() == null) {
      pb.environment().put("FLEETPROF_CLASS_ARCHIVE", "off");
    }
    Process p = pb.start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      Jvms.stop(p);
      throw new AssertionError("jobs/sql " + args + " did not finish in 300 s");
    }
    assertEquals(0, p.exitValue(), "jobs/sql " + args + ":\n" + Jvms.tail(stderr));
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }
}
