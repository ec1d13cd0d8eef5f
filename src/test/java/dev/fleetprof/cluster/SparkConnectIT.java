package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
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
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jar from Spark Connect, as notebooks reach Spark: a Spark Connect server (Maven's {@code
 * spark-connect} at the project's Spark version, the fleetprof jar on its classpath, the catalog
 * registered) on 127.0.0.1, queried by the JVM client from a classpath of its own ({@link
 * ConnectClient}) with {@code format("profile")}, path SQL through the catalog and a {@code USING
 * profile} view. Each must return what the same SQL returns on a classic local session.
 */
class SparkConnectIT {
  private static final Path WORK = Jvms.WORK.resolve("connect");

  /** The children's logging: the tests' own, less the server's known error on session release. */
  private static final String LOGGING =
      "-Dlog4j.configurationFile="
          + Path.of("src", "test", "connect", "log4j2.properties").toAbsolutePath();

  private static Process server;
  private static int port;

  @BeforeAll
  static void startServer() throws Exception {
    Files.createDirectories(WORK);
    List<Path> classpath = new ArrayList<>(resolve("server"));
    classpath.add(Jvms.jobJar());
    port = Jvms.freePort();
    List<String> options =
        List.of(
            LOGGING,
            "-Xmx1g",
            "-Dspark.master=local[2]",
            "-Dspark.app.name=fleetprof-connect-it",
            "-Dspark.ui.enabled=false",
            "-Dspark.sql.shuffle.partitions=4",
            "-Dspark.connect.grpc.binding.address=127.0.0.1",
            "-Dspark.connect.grpc.binding.port=" + port,
            "-Dspark.sql.catalog.profile=dev.fleetprof.spark.ProfileCatalog",
            "-Dspark.sql.warehouse.dir=" + WORK.resolve("warehouse"));
    server =
        ChildJvm.start(
            ChildJvm.command(
                options,
                ChildJvm.classpath(classpath),
                "org.apache.spark.sql.connect.service.SparkConnectServer",
                List.of()),
            Jvms.log("connect-server"),
            Map.of());
    awaitPort(180);
  }

  @AfterAll
  static void stopServer() {
    Jvms.stop(server);
  }

  /** Waits until the server accepts connections, failing early if it died. */
  private static void awaitPort(long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        fail(
            "the Spark Connect server exited with "
                + server.exitValue()
                + ":\n"
                + Jvms.tail(Jvms.log("connect-server")));
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
            + Jvms.tail(Jvms.log("connect-server")));
  }

  /**
   * The classpath of {@code src/test/connect/NAME/pom.xml}, as Maven resolves it: from the local
   * repository alone when it has every jar, else downloading the missing ones.
   */
  private static List<Path> resolve(String name) throws Exception {
    Path pom = Path.of("src", "test", "connect", name, "pom.xml").toAbsolutePath();
    Path out = WORK.resolve(name + "-classpath.txt");
    String mavenHome = System.getProperty("maven.home");
    assertTrue(mavenHome != null, "maven.home is not set: the pom's failsafe passes it");
    List<String> cmd =
        List.of(
            Path.of(mavenHome, "bin", "mvn").toString(),
            "-B",
            "-q",
            "-f",
            pom.toString(),
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

  @Test
  void formatCatalogAndViewReadAsOnAClassicSession() throws Exception {
    List<String> paths =
        List.of(
            SampleData.GPERFTOOLS.toAbsolutePath().toString(),
            SampleData.FLEET.toAbsolutePath().toString());

    List<Path> classpath = new ArrayList<>(resolve("client"));
    // The client's main class only: it names nothing but spark-sql-api's Dataset API.
    classpath.add(Path.of("target", "test-classes").toAbsolutePath());
    Path results = WORK.resolve("client-results.tsv");
    Files.deleteIfExists(results);
    List<String> args = new ArrayList<>(List.of("sc://127.0.0.1:" + port, results.toString()));
    args.addAll(paths);
    Process client =
        ChildJvm.start(
            ChildJvm.command(
                List.of(LOGGING),
                ChildJvm.classpath(classpath),
                ConnectClient.class.getName(),
                args),
            Jvms.log("connect-client"),
            Map.of());
    Jvms.awaitSuccess(client, "connect-client", 300);

    List<String> expected = new ArrayList<>();
    SparkSession spark = TestSpark.get();
    for (int i = 0; i < paths.size(); i++) {
      spark.read().format("profile").load(paths.get(i)).createOrReplaceTempView("classic");
      List<Row> rows = spark.sql(String.format(ConnectClient.QUERY, "classic")).collectAsList();
      assertTrue(rows.size() > 1, "the comparison needs rows");
      for (String how : List.of("format", "catalog", "using")) {
        for (Row r : rows) {
          expected.add("path" + i + " " + how + "\t" + r);
        }
      }
    }
    spark.catalog().dropTempView("classic");

    List<String> lines = Files.readAllLines(results);
    assertTrue(
        lines.get(0).startsWith("session\torg.apache.spark.sql.connect."),
        "not a Spark Connect session: " + lines.get(0));
    assertEquals(expected, lines.subList(1, lines.size()));
  }
}
