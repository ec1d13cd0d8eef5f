package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.testing.DebuginfodServer;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jobs/symbolize} with {@code --debuginfod}, in a local Spark session, against a real
 * elfutils debuginfod serving the debug files of the sample programs, whose binaries are given
 * stripped of their DWARF: the names equal those of a run given the unstripped binaries; a second
 * run with the server gone takes them from the cache; a server that cannot be reached leaves the
 * frames unnamed with a problem naming it, and the job goes on.
 */
class DebuginfodSymbolizeTest {
  private static final String DAY = "2026-11-21";

  @TempDir static Path tmp;
  private static Path stripped;
  private static Path servedDir;
  private static String direct;
  private static String late;

  @BeforeAll
  static void aggregate() throws Exception {
    Toolchain.requireBinutils();
    DebuginfodServer.require();
    Path home = tmp.resolve("home");
    stripped = Files.createDirectories(tmp.resolve("stripped"));
    servedDir = Files.createDirectories(tmp.resolve("served"));
    try (Stream<Path> s = Files.list(SampleData.GPERFTOOLS_BINARIES)) {
      for (Path bin : s.sorted().toList()) {
        String name = bin.getFileName().toString();
        Toolchain.run(
            home,
            List.of(
                "objcopy",
                "--only-keep-debug",
                bin.toString(),
                servedDir.resolve(name) + ".debug"));
        Toolchain.run(
            home,
            List.of(
                "strip", "--strip-debug", "-o", stripped.resolve(name).toString(), bin.toString()));
      }
    }
    Path dir = Files.createDirectories(tmp.resolve("in/date=" + DAY + "/host=h1"));
    Files.copy(SampleData.GPERFTOOLS.resolve("shared_library.prof"), dir.resolve("a.prof"));
    Files.copy(SampleData.GPERFTOOLS.resolve("deep_recursion.prof"), dir.resolve("b.prof"));
    String in = tmp.resolve("in").toString();
    direct = tmp.resolve("direct").toString();
    late = tmp.resolve("late").toString();
    SparkSession spark = TestSpark.get();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              in,
              "--output",
              direct,
              "--binaries",
              SampleData.GPERFTOOLS_BINARIES.toAbsolutePath().toString(),
              "--no-module-paths"
            }));
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {"--input", in, "--output", late, "--no-module-paths"}));
  }

  /** The readiness paths: each served debug file by its build ID. */
  private static List<String> servedPaths() throws Exception {
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(servedDir)) {
      for (Path p : s.sorted().toList()) {
        out.add("/buildid/" + Toolchain.buildId(tmp, p) + "/debuginfo");
      }
    }
    return out;
  }

  private static void symbolize(String url, Path cache) throws Exception {
    SymbolizeOutput.run(
        TestSpark.get(),
        SymbolizeOutput.Args.parse(
            new String[] {
              "--output",
              late,
              "--binaries",
              stripped.toString(),
              "--no-module-paths",
              "--debuginfod",
              url,
              "--debuginfod-cache",
              cache.toString()
            }));
  }

  private static void assertSameAsDirect(String what) throws Exception {
    SparkSession spark = TestSpark.get();
    for (String table : List.of("locations", "functions")) {
      Dataset<Row> got = FleetOutput.read(spark, late, table).where("date = '" + DAY + "'");
      Dataset<Row> want =
          FleetOutput.read(spark, direct, table)
              .where("date = '" + DAY + "'")
              .select(
                  got.columns()[0],
                  java.util.Arrays.copyOfRange(got.columns(), 1, got.columns().length));
      assertEquals(0, got.exceptAll(want).count(), what + ", " + table + ": nothing more");
      assertEquals(0, want.exceptAll(got).count(), what + ", " + table + ": nothing less");
    }
    assertTrue(
        FleetOutput.read(spark, late, "locations")
                .where("date = '" + DAY + "' AND exists(lines, l -> l.line > 0)")
                .count()
            > 0,
        what + ": lines from DWARF");
  }

  @Test
  void namesThroughDebuginfodEqualThoseOfTheUnstrippedBinariesThenComeFromTheCache()
      throws Exception {
    Path cache = tmp.resolve("cache");
    try (DebuginfodServer server =
        DebuginfodServer.start(servedDir, tmp.resolve("debuginfod"), servedPaths())) {
      long asked = server.requests("debuginfo");
      symbolize(server.url.toString(), cache);
      assertSameAsDirect("through debuginfod");
      // The profiles' three modules with binaries, once each (whatever the tasks).
      assertEquals(asked + 3, server.requests("debuginfo"), "requests the server answered");
    }
    List<String> cached;
    try (Stream<Path> s = Files.walk(cache)) {
      cached =
          s.filter(Files::isRegularFile).map(p -> cache.relativize(p).toString()).sorted().toList();
    }
    List<String> want = new ArrayList<>();
    for (String name : List.of("libwork.so", "shared_library", "deep_recursion")) {
      String id = Toolchain.buildId(tmp, SampleData.GPERFTOOLS_BINARIES.resolve(name));
      assertNotNull(id);
      want.add(id + "/debuginfo");
    }
    want.sort(null);
    assertEquals(want, cached);

    // The server is gone; a run naming another (unreachable) server finds the cache.
    symbolize("http://127.0.0.1:" + DebuginfodServer.freePort(), cache);
    assertSameAsDirect("from the cache");
  }

  @Test
  void anUnreachableServerLeavesFramesUnnamedWithTheProblem() throws Exception {
    // Stripped of every symbol but .dynsym, and of the call-frame information that would give
    // unnamed functions boundary names: most frames need the debug file to be named.
    Path bare = Files.createDirectories(tmp.resolve("bare"));
    for (String name : List.of("shared_library", "libwork.so", "deep_recursion")) {
      Toolchain.run(
          tmp,
          List.of(
              "strip",
              "-R",
              ".eh_frame",
              "-R",
              ".eh_frame_hdr",
              "-o",
              bare.resolve(name).toString(),
              SampleData.GPERFTOOLS_BINARIES.resolve(name).toString()));
    }
    String url = "http://127.0.0.1:" + DebuginfodServer.freePort();
    SparkSession spark = TestSpark.get();
    List<Row> got =
        Symbolization.symbolize(
                spark,
                FleetOutput.read(spark, late, "locations").where("date = '" + DAY + "'"),
                Symbolization.Options.ofJob(
                    List.of(bare.toString()),
                    false,
                    List.of(url),
                    tmp.resolve("unreachable-cache").toString()))
            .where("lines IS NULL")
            .where("module RLIKE '/(shared_library|libwork\\\\.so|deep_recursion)$'")
            .collectAsList();
    assertTrue(got.size() > 10, got.size() + " unnamed");
    for (Row r : got) {
      String problem = r.getString(4);
      assertTrue(
          problem.startsWith(
                  "no symbol at this offset in "
                      + bare.resolve(Path.of(r.getString(1)).getFileName()))
              && problem.contains("; no debug info for ")
              && problem.contains(": debuginfod " + url + "/buildid/")
              && (problem.contains("/debuginfo: cannot connect")
                  || problem.contains("/debuginfo: not asked, the server was unreachable")),
          problem);
    }
    assertTrue(
        got.stream().anyMatch(r -> r.getString(4).contains("cannot connect")),
        "the first fetch tried to connect");
  }
}
