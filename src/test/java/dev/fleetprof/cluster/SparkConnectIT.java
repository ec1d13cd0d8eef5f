package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jar from Spark Connect, as notebooks reach Spark: a Spark Connect server ({@link
 * ConnectServer}: the project's Spark version, the fleetprof jar on its classpath, the catalog
 * registered) on 127.0.0.1, queried by the JVM client from a classpath of its own ({@link
 * ConnectClient}) with {@code format("profile")}, path SQL through the catalog and a {@code USING
 * profile} view. Each must return what the same SQL returns on a classic local session.
 */
class SparkConnectIT {
  private static final Path WORK = Jvms.WORK.resolve("connect");

  private static ConnectServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = ConnectServer.start(WORK, "connect-server");
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void formatCatalogAndViewReadAsOnAClassicSession() throws Exception {
    List<String> paths =
        List.of(
            SampleData.GPERFTOOLS.toAbsolutePath().toString(),
            SampleData.FLEET.toAbsolutePath().toString());

    List<Path> classpath =
        new ArrayList<>(
            ConnectServer.resolve(
                Path.of("src", "test", "connect", "client", "pom.xml"), WORK, "client"));
    // The client's main class only: it names nothing but spark-sql-api's Dataset API.
    classpath.add(Path.of("target", "test-classes").toAbsolutePath());
    Path results = WORK.resolve("client-results.tsv");
    Files.deleteIfExists(results);
    List<String> args = new ArrayList<>(List.of(server.url(), results.toString()));
    args.addAll(paths);
    Process client =
        ChildJvm.start(
            ChildJvm.command(
                List.of(ConnectServer.LOGGING),
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
