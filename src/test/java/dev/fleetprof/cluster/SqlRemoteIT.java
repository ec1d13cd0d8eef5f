package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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

  /**
   * A user's script (the top-functions job), then commands and queries given with {@code -e}, in
   * each output format: the same on the server as locally and, in json and csv, the commands' rows
   * left to stderr, so that stdout ends with the two queries' rows. One run of {@code jobs/sql} for
   * both, as each is a JVM and a Spark session of its own.
   */
  @Test
  void aScriptPrintsTheSameOnAServerAsOnALocalSession() throws Exception {
    for (String format : List.of("table", "json", "csv")) {
      List<String> args =
          List.of(
              "-d",
              "output=" + output,
              "--format",
              format,
              "jobs/top-functions.sql",
              "-e",
              COMMANDS_AND_QUERIES);
      String local = sql("local-" + format, args);
      List<String> remote = new ArrayList<>(List.of("--remote", server.url()));
      remote.addAll(args);
      assertEquals(local, sql("remote-" + format, remote), format);

      List<String> lines = local.lines().toList();
      assertTrue(lines.size() > 10, "the comparison needs the script's rows:\n" + local);
      if (!format.equals("table")) {
        // The script's rows, then the count's and VALUES' rows; SET's and SHOW TABLES' on stderr.
        String stacks = "[1-9][0-9]*";
        List<String> tail =
            format.equals("json")
                ? List.of(
                    Pattern.quote("{\"stacks\":") + stacks + "}",
                    Pattern.quote("{\"n\":1,\"s\":\"a\"}"),
                    Pattern.quote("{\"n\":2,\"s\":null}"))
                : List.of("stacks", stacks, "n,s", "1,a", "2,");
        List<String> last = lines.subList(lines.size() - tail.size(), lines.size());
        for (int i = 0; i < tail.size(); i++) {
          assertTrue(
              last.get(i).matches(tail.get(i)),
              format + ": the queries' rows do not end stdout (" + tail + "):\n" + local);
        }
        assertTrue(
            lines.stream().noneMatch(l -> l.contains("tableName") || l.contains("remote.test")),
            format + ": a command's rows on stdout:\n" + local);
      }
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
