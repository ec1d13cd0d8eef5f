package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fleetprof.jobs.DemoFleet;
import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bundled notebook ({@code notebooks/fleet-tour.ipynb}) executed as CI executes it: Debian's
 * {@code jupyter nbconvert --execute} on a Java kernel (jjava-jupyter from Maven Central and
 * JShell, {@code src/test/notebook/kernel}) whose cells run on the Spark Connect JVM client's jars
 * and the fleetprof jar, against a Spark Connect server ({@link ConnectServer}), over the demo
 * fleet's profiles and the fleet job's output for them. A cell that fails fails the test, and the
 * answers the notebook prints must be those of {@code go tool pprof} on the same profiles ({@code
 * sample-fleet/_reference/pprof}) and of the same SQL on a classic local session.
 *
 * <p>Locally it is skipped, saying so, without {@code jupyter-nbconvert}; with {@code CI=true} that
 * is a failure.
 */
class NotebookIT {
  private static final Path WORK = Jvms.WORK.resolve("notebook");
  private static final Path NOTEBOOK = Path.of("notebooks", "fleet-tour.ipynb").toAbsolutePath();
  private static final String KERNEL = "fleetprof-java";
  private static final String DAY = "2026-11-21";
  private static final String BASE = "2026-11-20";
  private static final Path PPROF = SampleData.FLEET_REFERENCE.resolve("pprof");

  private static Path nbconvert;
  private static ConnectServer server;
  private static Path fleetOutput;

  @BeforeAll
  static void startServerAndWriteKernel() throws Exception {
    nbconvert = ExternalTool.require("jupyter-nbconvert", "jupyter-nbconvert python3-nbclient");
    Files.createDirectories(WORK);
    // The server and the kernel's jars come from JVMs of their own while this one runs the fleet
    // job.
    CompletableFuture<ConnectServer> starting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ConnectServer.start(WORK, "notebook-connect-server");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    CompletableFuture<Void> kernel =
        CompletableFuture.runAsync(
            () -> {
              try {
                writeKernelSpec();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      fleetOutput = WORK.resolve("fleet-output");
      FleetJob.deleteRecursively(fleetOutput);
      DemoFleet.aggregate(TestSpark.get(), fleetOutput);
      kernel.get(600, TimeUnit.SECONDS);
    } finally {
      server = starting.get(600, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * Compiles the kernel against jjava-jupyter's jars and writes its spec under {@code
   * WORK/jupyter/kernels} (JUPYTER_PATH), never the user's home: the kernel JVM on this JDK with
   * the project's JVM options, its cells on the Spark Connect client's jars and the fleetprof jar.
   */
  private static void writeKernelSpec() throws Exception {
    Path kernelDir = Path.of("src", "test", "notebook", "kernel");
    List<Path> kernelJars = ConnectServer.resolve(kernelDir.resolve("pom.xml"), WORK, "kernel");
    Path classes = WORK.resolve("kernel-classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean compiled =
        javac
            .getTask(
                diagnostics,
                null,
                null,
                List.of("-d", classes.toString(), "-cp", ChildJvm.classpath(kernelJars)),
                null,
                javac
                    .getStandardFileManager(null, null, null)
                    .getJavaFileObjects(kernelDir.resolve("JavaKernel.java").toFile()))
            .call();
    assertTrue(compiled, "the notebook kernel does not compile:\n" + diagnostics);

    List<Path> kernelClasspath = new ArrayList<>(List.of(classes));
    kernelClasspath.addAll(kernelJars);
    List<Path> cellClasspath =
        new ArrayList<>(
            ConnectServer.resolve(
                Path.of("src", "test", "connect", "client", "pom.xml"), WORK, "client"));
    cellClasspath.add(Jvms.jobJar());

    ObjectMapper json = new ObjectMapper();
    ObjectNode spec = json.createObjectNode();
    spec.putArray("argv")
        .add(Path.of(System.getProperty("java.home"), "bin", "java").toString())
        .add(ChildJvm.optionsArgument())
        .add(ConnectServer.LOGGING)
        .add("-cp")
        .add(ChildJvm.classpath(kernelClasspath))
        .add("dev.fleetprof.notebook.kernel.JavaKernel")
        .add("{connection_file}");
    spec.put("display_name", "Java (Spark Connect client)");
    spec.put("language", "java");
    spec.putObject("env").put("JJAVA_CLASSPATH", ChildJvm.classpath(cellClasspath));
    Path specDir = WORK.resolve("jupyter").resolve("kernels").resolve(KERNEL);
    Files.createDirectories(specDir);
    json.writerWithDefaultPrettyPrinter().writeValue(specDir.resolve("kernel.json").toFile(), spec);
  }

  @Test
  void runsHeadlessAndAnswersAsPprofAndAClassicSession() throws Exception {
    Path executed = WORK.resolve("fleet-tour.executed.ipynb");
    Files.deleteIfExists(executed);
    Map<String, String> env = new HashMap<>();
    env.put("JUPYTER_PATH", WORK.resolve("jupyter").toString());
    env.put("JUPYTER_RUNTIME_DIR", WORK.resolve("jupyter-runtime").toString());
    env.put("FLEETPROF_CONNECT", server.url());
    env.put("FLEETPROF_PROFILES", SampleData.FLEET.toAbsolutePath().toString());
    env.put("FLEETPROF_OUTPUT", fleetOutput.toString());
    ExternalTool.Result run =
        ExternalTool.run(
            List.of(
                nbconvert.toString(),
                "--execute",
                "--to",
                "notebook",
                "--ExecutePreprocessor.kernel_name=" + KERNEL,
                "--ExecutePreprocessor.timeout=300",
                "--output-dir",
                WORK.toString(),
                "--output",
                executed.getFileName().toString(),
                NOTEBOOK.toString()),
            WORK.resolve("home"),
            env,
            600);
    assertEquals(
        0,
        run.exit(),
        "nbconvert failed (a cell failed, or the kernel did not start):\n" + tail(run.stderr()));

    JsonNode notebook = new ObjectMapper().readTree(executed.toFile());
    Map<String, JsonNode> cells = new LinkedHashMap<>();
    for (JsonNode cell : notebook.get("cells")) {
      cells.put(cell.get("id").asText(), cell);
      for (JsonNode out : cell.path("outputs")) {
        assertTrue(
            !"error".equals(out.path("output_type").asText()),
            "cell " + cell.get("id") + " failed: " + out);
      }
    }

    // A day of raw profiles: api-server's samples per host are what pprof counts in each file.
    Map<String, Map<String, String>> raw = new HashMap<>();
    for (Map<String, String> row : table(cells, "raw-by-host")) {
      raw.put(row.get("host") + " " + row.get("file") + " " + row.get("kind"), row);
    }
    for (String host : List.of("web-1", "web-2")) {
      assertEquals(
          pprofSamples(DAY, host),
          Long.parseLong(raw.get(host + " cpu.prof sample").get("counted")),
          host + "'s samples on " + DAY);
    }

    // Path SQL: each day's and host's api-server samples, as pprof counts them.
    List<Map<String, String>> perDay = table(cells, "path-sql");
    assertEquals(6, perDay.size(), "3 days x 2 hosts: " + perDay);
    for (Map<String, String> row : perDay) {
      assertEquals(
          pprofSamples(row.get("date"), row.get("host")),
          Long.parseLong(row.get("samples")),
          row.toString());
    }

    // Top functions: escape_field first, its self time pprof's flat time on web-1 and web-2.
    Map<String, String> top = table(cells, "top-functions").get(0);
    assertEquals("escape_field", top.get("function"), "the day's hottest function");
    double escapeMillis =
        pprofTop(DAY, "web-1").flatMillis.get("escape_field")
            + pprofTop(DAY, "web-2").flatMillis.get("escape_field");
    assertEquals(escapeMillis / 1000, Double.parseDouble(top.get("self_s")), 1e-9);

    // Each host's share: the gperftools and Go hosts' CPU time is pprof's total; the whole table
    // is what the same SQL returns on a classic session.
    List<Map<String, String>> share = table(cells, "host-share");
    Map<String, Double> cpuByHost = new HashMap<>();
    share.forEach(r -> cpuByHost.put(r.get("host"), Double.parseDouble(r.get("cpu_s"))));
    assertEquals(pprofTop(DAY, "web-1").totalMillis / 1000, cpuByHost.get("web-1"), 1e-9);
    assertEquals(pprofTop(DAY, "web-2").totalMillis / 1000, cpuByHost.get("web-2"), 1e-9);
    assertEquals(pprofTop(DAY, "edge-1").totalMillis / 1000, cpuByHost.get("edge-1"), 1e-9);
    SparkSession spark = TestSpark.get();
    spark
        .read()
        .parquet(fleetOutput.resolve("host_stacks").toString())
        .createOrReplaceTempView("hs");
    List<Row> classic =
        spark
            .sql(
                "SELECT host, round(sum(value) / 1e9, 3) AS cpu_s,"
                    + " round(100 * sum(value) / sum(sum(value)) OVER (), 1) AS share_pct"
                    + " FROM hs WHERE date = DATE'"
                    + DAY
                    + "' AND measure = 'cpu' GROUP BY host ORDER BY cpu_s DESC, host")
            .collectAsList();
    spark.catalog().dropTempView("hs");
    assertEquals(classic.size(), share.size(), "hosts: " + share);
    for (int i = 0; i < classic.size(); i++) {
      Row c = classic.get(i);
      Map<String, String> n = share.get(i);
      assertEquals(c.getString(0), n.get("host"));
      assertEquals(
          0, new BigDecimal(c.get(1).toString()).compareTo(new BigDecimal(n.get("cpu_s"))));
      assertEquals(
          0, new BigDecimal(c.get(2).toString()).compareTo(new BigDecimal(n.get("share_pct"))));
    }

    // The regression: the function whose share of web-2's time grew most, by pprof's flat% of
    // each day, is at the top of the notebook's diff, with pprof's shares.
    PprofTop before = pprofTop(BASE, "web-2");
    PprofTop after = pprofTop(DAY, "web-2");
    String grewMost = null;
    double most = Double.NEGATIVE_INFINITY;
    for (String function : after.flatPercent.keySet()) {
      double delta =
          after.flatPercent.get(function) - before.flatPercent.getOrDefault(function, 0.0);
      if (delta > most) {
        most = delta;
        grewMost = function;
      }
    }
    Map<String, String> regressed = table(cells, "diff").get(0);
    assertEquals(grewMost, regressed.get("function"), "what regressed on web-2");
    assertEquals(
        before.flatPercent.get(grewMost), Double.parseDouble(regressed.get("base_pct")), 0.06);
    assertEquals(
        after.flatPercent.get(grewMost), Double.parseDouble(regressed.get("day_pct")), 0.06);

    // The flame graph: an HTML page shown inline, of web-2's CPU time, naming escape_field.
    JsonNode flame = result(cells, "flamegraph");
    String summary = text(flame.path("data").path("text/plain"));
    assertTrue(
        summary.contains(String.format("%.3f s of CPU", after.totalMillis / 1000)),
        "web-2's CPU time in the flame graph: " + summary);
    String html = text(flame.path("data").path("text/html"));
    assertTrue(html.startsWith("<iframe") && html.contains("escape_field"), "flame graph: " + html);
  }

  /** The rows a cell's {@code Dataset.show()} printed, by column name. */
  private static List<Map<String, String>> table(Map<String, JsonNode> cells, String id) {
    StringBuilder printed = new StringBuilder();
    for (JsonNode out : cells.get(id).path("outputs")) {
      if ("stream".equals(out.path("output_type").asText())) {
        printed.append(text(out.path("text")));
      }
    }
    List<String> header = null;
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : printed.toString().split("\n")) {
      if (!line.startsWith("|")) {
        continue;
      }
      List<String> fields = new ArrayList<>();
      for (String f : line.substring(1).split("\\|", -1)) {
        fields.add(f.strip());
      }
      fields.remove(fields.size() - 1);
      if (header == null) {
        header = fields;
      } else {
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < header.size(); i++) {
          row.put(header.get(i), fields.get(i));
        }
        rows.add(row);
      }
    }
    assertTrue(!rows.isEmpty(), "cell " + id + " printed no table:\n" + printed);
    return rows;
  }

  private static JsonNode result(Map<String, JsonNode> cells, String id) {
    for (JsonNode out : cells.get(id).path("outputs")) {
      if ("execute_result".equals(out.path("output_type").asText())) {
        return out;
      }
    }
    return fail("cell " + id + " shows no result: " + cells.get(id).path("outputs"));
  }

  /** A notebook's multi-line text: one string, or a list of lines. */
  private static String text(JsonNode node) {
    if (node.isArray()) {
      StringBuilder s = new StringBuilder();
      node.forEach(n -> s.append(n.asText()));
      return s.toString();
    }
    return node.asText();
  }

  /** The samples {@code go tool pprof -raw} lists for a day's api-server profile on a host. */
  private static long pprofSamples(String date, String host) {
    long total =
        PprofRaw.read(pprofDir(date, host, "api-server").resolve("cpu.pprof-raw.txt"))
            .totalSamples();
    assertTrue(total > 0, "no samples in pprof's listing for " + date + " " + host);
    return total;
  }

  /** What {@code go tool pprof -top} printed for a day's CPU profile of a host. */
  private record PprofTop(
      double totalMillis, Map<String, Double> flatMillis, Map<String, Double> flatPercent) {}

  private static PprofTop pprofTop(String date, String host) throws Exception {
    String program = host.startsWith("edge") ? "gateway" : "api-server";
    List<String> lines =
        Files.readAllLines(pprofDir(date, host, program).resolve("cpu.pprof-top.txt"));
    Pattern total = Pattern.compile("of (\\S+) total");
    Pattern row =
        Pattern.compile("^\\s*(\\S+)\\s+([\\d.]+)%\\s+[\\d.]+%\\s+\\S+\\s+[\\d.]+%\\s+(.+)$");
    double totalMillis = -1;
    Map<String, Double> flat = new HashMap<>();
    Map<String, Double> percent = new HashMap<>();
    for (String line : lines) {
      Matcher t = total.matcher(line);
      if (t.find()) {
        totalMillis = millis(t.group(1));
      }
      Matcher r = row.matcher(line);
      if (r.find()) {
        flat.put(r.group(3).strip(), millis(r.group(1)));
        percent.put(r.group(3).strip(), Double.parseDouble(r.group(2)));
      }
    }
    assertTrue(totalMillis > 0 && !flat.isEmpty(), "pprof -top of " + date + " " + host);
    return new PprofTop(totalMillis, flat, percent);
  }

  /** pprof's durations: {@code 0}, {@code 222ms}, {@code 90000000ns}, {@code 1.5s}. */
  private static double millis(String value) {
    if (value.equals("0")) {
      return 0;
    }
    Matcher m = Pattern.compile("^([\\d.]+)(ns|us|ms|s)$").matcher(value);
    assertTrue(m.matches(), "not a pprof duration: " + value);
    double v = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "ns" -> v / 1e6;
      case "us" -> v / 1e3;
      case "ms" -> v;
      default -> v * 1e3;
    };
  }

  private static Path pprofDir(String date, String host, String program) {
    return PPROF
        .resolve(SampleData.fleetProfile(date, host, program, "."))
        .normalize()
        .toAbsolutePath();
  }

  private static String tail(String s) {
    String[] lines = s.split("\n");
    return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
  }
}
