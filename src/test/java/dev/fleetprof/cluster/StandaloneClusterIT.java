package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The job jar on a real Spark standalone cluster (a Master and a Worker in their own JVMs,
 * executors launched by the worker) writes exactly what a local run writes. Only a cluster
 * serializes the input partitions, reader factory and broadcasts to other JVMs, and only the jar
 * (not the test classpath) carries the {@code profile} source's registration there.
 */
class StandaloneClusterIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The scan metric (its description, as the event log names it) counting mid-file splits. */
  private static final String RESYNCHRONISED = "splits that resynchronised on a record boundary";

  @Test
  void jobOnAStandaloneClusterWritesWhatALocalRunWrites() throws Exception {
    try (JarFile jar = new JarFile(Jvms.jobJar().toFile())) {
      assertNotNull(
          jar.getEntry("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"),
          "the job jar does not register the profile source");
    }
    Path base = Jvms.WORK.resolve("standalone");
    FleetJob.deleteRecursively(base);
    Path events = Files.createDirectories(base.resolve("events"));
    Path workDir = Files.createDirectories(base.resolve("worker"));
    Map<String, String> env =
        Map.of(
            "SPARK_HOME",
            sparkHome(base.resolve("spark-home")).toString(),
            // Spark's launcher needs the Scala version of the jars it finds under SPARK_HOME/jars.
            "SPARK_SCALA_VERSION",
            "2.13",
            "SPARK_LOCAL_IP",
            "127.0.0.1",
            "SPARK_LOCAL_DIRS",
            Files.createDirectories(base.resolve("local")).toString());
    int masterPort = Jvms.freePort();
    int masterUi = Jvms.freePort();
    String masterUrl = "spark://127.0.0.1:" + masterPort;
    Process master = null;
    Process worker = null;
    try {
      master =
          Jvms.start(
              "master",
              List.of("-Xmx256m"),
              "org.apache.spark.deploy.master.Master",
              List.of(
                  "--host", "127.0.0.1", "--port", "" + masterPort, "--webui-port", "" + masterUi),
              env);
      worker =
          Jvms.start(
              "worker",
              List.of("-Xmx256m"),
              "org.apache.spark.deploy.worker.Worker",
              List.of(
                  "--host",
                  "127.0.0.1",
                  "--port",
                  "" + Jvms.freePort(),
                  "--webui-port",
                  "" + Jvms.freePort(),
                  "--cores",
                  "2",
                  "--memory",
                  "1g",
                  "--work-dir",
                  workDir.toString(),
                  masterUrl),
              env);

      long t0 = System.nanoTime();
      // The reference run, while the daemons start. (Beside the cluster's run, both ran slower.)
      Path local = FleetJob.localOutput();
      awaitWorker(masterUi, master, worker);
      long t1 = System.nanoTime();
      Path out = base.resolve("output");
      FleetJob.submit(
          "job-standalone",
          masterUrl,
          out,
          Map.of(
              "spark.executor.memory", "768m",
              "spark.eventLog.enabled", "true",
              "spark.eventLog.dir", events.toUri().toString(),
              // One plain JSON-lines file (Spark 4 compresses and rolls event logs by default).
              "spark.eventLog.compress", "false",
              "spark.eventLog.rolling.enabled", "false"),
          env);

      long t2 = System.nanoTime();
      assertTasksRanOnTheWorkersExecutors(events, workDir);
      long t3 = System.nanoTime();
      TreeSet<String> compared = OutputRoots.assertSame(TestSpark.get(), local, out);
      System.out.printf(
          "standalone cluster output equals local output, datasets %s; seconds:"
              + " local run and worker registration %.1f, cluster run %.1f, checks %.1f,"
              + " comparison %.1f%n",
          compared,
          (t1 - t0) / 1e9,
          (t2 - t1) / 1e9,
          (t3 - t2) / 1e9,
          (System.nanoTime() - t3) / 1e9);
    } finally {
      Jvms.stop(worker);
      Jvms.stop(master);
    }
  }

  /**
   * A SPARK_HOME for the worker: its launcher builds executor classpaths from {@code
   * SPARK_HOME/jars/*} (and {@code conf/}), so link the Maven jars there.
   */
  private static Path sparkHome(Path home) throws IOException {
    Path jars = Files.createDirectories(home.resolve("jars"));
    Files.createDirectories(home.resolve("conf"));
    for (Path jar : Jvms.sparkJars()) {
      Path link = jars.resolve(jar.getFileName());
      if (Files.exists(link)) {
        link = jars.resolve(jar.getParent().getFileName() + "-" + jar.getFileName());
      }
      Files.createSymbolicLink(link, jar.toAbsolutePath());
    }
    return home;
  }

  /** Waits until the master's JSON status page lists an alive worker. */
  private static void awaitWorker(int masterUi, Process master, Process worker) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + masterUi + "/json/"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!master.isAlive() || !worker.isAlive()) {
        fail(
            "master or worker died:\n"
                + Jvms.tail(Jvms.log("master"))
                + "\n"
                + Jvms.tail(Jvms.log("worker")));
      }
      try {
        last = http.send(req, HttpResponse.BodyHandlers.ofString()).body();
        if (JSON.readTree(last).path("aliveworkers").asInt() >= 1) {
          return;
        }
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    fail(
        "no worker registered with the master in 120 s; last status: "
            + last
            + "\n"
            + Jvms.tail(Jvms.log("worker")));
  }

  /**
   * From the application's event log: executors were added, every task ran on one of them (none on
   * the driver) and succeeded, and each executor left its log in the worker's work directory.
   */
  private static void assertTasksRanOnTheWorkersExecutors(Path events, Path workDir)
      throws IOException {
    List<Path> logs;
    try (Stream<Path> s = Files.list(events)) {
      logs = s.toList();
    }
    assertEquals(1, logs.size(), "one event log expected in " + events + ": " + logs);
    String appId = null;
    Set<String> executors = new HashSet<>();
    Set<String> taskExecutors = new HashSet<>();
    int tasks = 0;
    long resynchronised = 0;
    for (String line : Files.readAllLines(logs.get(0))) {
      JsonNode e = JSON.readTree(line);
      switch (e.path("Event").asText()) {
        case "SparkListenerApplicationStart" -> appId = e.path("App ID").asText();
        case "SparkListenerExecutorAdded" -> executors.add(e.path("Executor ID").asText());
        case "SparkListenerTaskEnd" -> {
          tasks++;
          taskExecutors.add(e.path("Task Info").path("Executor ID").asText());
          assertEquals(
              "Success",
              e.path("Task End Reason").path("Reason").asText(),
              "a task failed: " + line);
          for (JsonNode acc : e.path("Task Info").path("Accumulables")) {
            if (acc.path("Name").asText().equals(RESYNCHRONISED)) {
              resynchronised += acc.path("Update").asLong();
            }
          }
        }
        default -> {}
      }
    }
    assertFalse(executors.isEmpty(), "no executor was added");
    assertFalse(executors.contains("driver"));
    assertTrue(tasks > 0, "no task ran");
    assertTrue(
        executors.containsAll(taskExecutors),
        "tasks ran on " + taskExecutors + ", executors were " + executors);
    assertTrue(
        resynchronised > 0,
        "no executor task resynchronised a split (metric '"
            + RESYNCHRONISED
            + "'): the split profiles' broadcast layouts were not exercised");
    assertNotNull(appId, "no application start in the event log");
    for (String id : executors) {
      Path stderr = workDir.resolve(appId).resolve(id).resolve("stderr");
      assertTrue(
          Files.isRegularFile(stderr), "the worker did not run executor " + id + ": no " + stderr);
    }
    System.out.println(
        tasks
            + " tasks on executors "
            + taskExecutors
            + " of "
            + appId
            + ", "
            + resynchronised
            + " splits resynchronised there");
  }
}
