package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.testing.Addr2line;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet job's names, checked against binutils on real programs profiled by the real gperftools
 * profiler: a C program at -O2 (PIE, inlined helpers, DWARF 5) calling a shared library (DWARF 4),
 * a C++ program (-no-pie, templates, lambdas inlined into std::sort, compressed debug sections),
 * and the C program again stripped, its DWARF in a separate debug file found by build ID. The
 * binaries are moved away from where they ran, so the job must find them under {@code --binaries};
 * libc is found at its own path.
 *
 * <ul>
 *   <li>every location of {@code locations/} has the inline chain {@code addr2line -f -i -C} prints
 *       for it (function, file, line, innermost first), the file offset turned into an address with
 *       {@code readelf}'s load segments;
 *   <li>{@code functions/} equals per-function flat and cumulative sums computed here from {@code
 *       stacks/} and addr2line's chains, with pprof's meaning.
 * </ul>
 */
class SymbolizedFleetTest {
  private static final String DAY = "2026-11-21";

  @TempDir static Path tmp;
  private static SparkSession spark;
  private static Path bins;
  private static Path home;
  private static String out;
  private static Map<String, Path> debugFiles = new HashMap<>();

  @BeforeAll
  static void buildProfileAndAggregate() throws Exception {
    for (String[] tool :
        new String[][] {
          {"gcc", "gcc"},
          {"g++", "g++"},
          {"addr2line", "binutils"},
          {"readelf", "binutils"},
          {"objcopy", "binutils"}
        }) {
      ExternalTool.require(tool[0], tool[1]);
    }
    requireLibprofiler();
    spark = TestSpark.get();
    home = tmp.resolve("home");
    Path src = Path.of("src/test/resources/symbols").toAbsolutePath();
    Path build = Files.createDirectories(tmp.resolve("build"));
    bins = Files.createDirectories(tmp.resolve("bins"));
    Path day = Files.createDirectories(tmp.resolve("in/date=" + DAY + "/host=h1"));

    sh(
        build,
        "gcc",
        "-O2",
        "-g",
        "-gdwarf-4",
        "-fPIC",
        "-shared",
        "-o",
        "libhot.so",
        src + "/hot.c");
    String[] link = {
      "-L" + build, "-lhot", "-Wl,-rpath," + build, "-Wl,--no-as-needed", "-lprofiler"
    };
    sh(
        build,
        concat(
            new String[] {"gcc", "-O2", "-g", "-I" + src, "-o", "cwork", src + "/cwork.c"}, link));
    sh(
        build,
        concat(
            new String[] {
              "gcc",
              "-O2",
              "-g",
              "-gz=zlib",
              "-Wl,--build-id=sha1",
              "-I" + src,
              "-o",
              "cstripped",
              src + "/cwork.c"
            },
            link));
    sh(
        build,
        "g++",
        "-O2",
        "-g",
        "-gz=zlib",
        "-no-pie",
        "-o",
        "cxxwork",
        src + "/cxxwork.cpp",
        "-Wl,--no-as-needed",
        "-lprofiler");
    // The stripped program's DWARF goes to a build-ID debug file under --binaries.
    String id = buildId(build.resolve("cstripped"));
    Path debug = bins.resolve(".build-id/" + id.substring(0, 2) + "/" + id.substring(2) + ".debug");
    Files.createDirectories(debug.getParent());
    sh(build, "objcopy", "--only-keep-debug", "cstripped", debug.toString());
    sh(build, "strip", "--strip-all", "cstripped");
    debugFiles.put("cstripped", debug);

    for (String prog : List.of("cwork", "cstripped", "cxxwork")) {
      run(build, prog, day.resolve(prog + ".prof"));
    }
    for (String f : List.of("libhot.so", "cwork", "cstripped", "cxxwork")) {
      Files.move(build.resolve(f), bins.resolve(f));
    }
    out = tmp.resolve("out").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              tmp.resolve("in").toString(),
              "--output",
              out,
              "--binaries",
              bins.toString()
            }));
  }

  /** Where binutils should look for a module's names: the runtime binary, or its debug file. */
  private static Path runtimeOf(String module) {
    String base = module.substring(module.lastIndexOf('/') + 1);
    Path moved = bins.resolve(base);
    return Files.isRegularFile(moved) ? moved : Path.of(module);
  }

  /**
   * addr2line's chain for every gperftools location, by module and offset; for an address it names
   * nothing, the boundary of the FDE readelf prints there.
   */
  private static Map<String, Map<Long, List<SourceLine>>> reference(List<Row> locations)
      throws Exception {
    Map<String, List<Long>> offsets = new TreeMap<>();
    for (Row r : locations) {
      offsets.computeIfAbsent(r.getString(0), m -> new ArrayList<>()).add(r.getLong(1));
    }
    Map<String, Map<Long, List<SourceLine>>> out = new HashMap<>();
    for (Map.Entry<String, List<Long>> e : offsets.entrySet()) {
      Path runtime = runtimeOf(e.getKey());
      if (!Files.isRegularFile(runtime)) {
        continue;
      }
      String base = runtime.getFileName().toString();
      Path names = debugFiles.getOrDefault(base, runtime);
      List<Addr2line.Load> loads = Addr2line.loads(runtime, home);
      Map<Long, Long> vaddrs = new HashMap<>();
      for (long off : e.getValue()) {
        Long v = Addr2line.vaddr(loads, off);
        if (v != null) {
          vaddrs.put(off, v);
        }
      }
      Map<Long, List<SourceLine>> byVaddr =
          Addr2line.chains(names, new ArrayList<>(new HashSet<>(vaddrs.values())), home);
      // Where addr2line names nothing (the PLT), the job names the call-frame boundary.
      TreeMap<Long, Long> fdes = Addr2line.fdes(runtime, home);
      String module = Path.of(e.getKey()).getFileName().toString();
      Map<Long, List<SourceLine>> byOffset = new HashMap<>();
      for (long off : e.getValue()) {
        Long v = vaddrs.get(off);
        List<SourceLine> chain = v == null ? List.of() : byVaddr.get(v);
        if (chain.isEmpty() && v != null) {
          chain = Addr2line.boundary(fdes, module, v);
        }
        byOffset.put(off, chain);
      }
      out.put(e.getKey(), byOffset);
    }
    return out;
  }

  @Test
  void everyLocationHasTheChainAddr2linePrints() throws Exception {
    List<Row> locations =
        spark
            .read()
            .parquet(out + "/locations")
            .where("format = 'gperftools' AND module IS NOT NULL AND module NOT LIKE '[%'")
            .selectExpr("module", "offset", "lines")
            .collectAsList();
    Map<String, Map<Long, List<SourceLine>>> expected = reference(locations);
    Map<String, int[]> agreement = new TreeMap<>();
    List<String> wrong = new ArrayList<>();
    for (Row r : locations) {
      Map<Long, List<SourceLine>> ref = expected.get(r.getString(0));
      if (ref == null) {
        continue; // a module this machine does not have: nothing to compare with
      }
      List<SourceLine> want = ref.get(r.getLong(1));
      List<SourceLine> got = r.isNullAt(2) ? List.of() : chain(r.getList(2));
      int[] counts = agreement.computeIfAbsent(r.getString(0), m -> new int[2]);
      counts[1]++;
      if (same(want, got)) {
        counts[0]++;
      } else if (wrong.size() < 20) {
        wrong.add(
            r.getString(0)
                + "+0x"
                + Long.toHexString(r.getLong(1))
                + ": addr2line "
                + want
                + ", job "
                + got);
      }
    }
    agreement.forEach(
        (m, c) ->
            System.out.printf(
                "locations in %s: %d of %d agree with" + " addr2line -f -i -C%n", m, c[0], c[1]));
    for (String prog : List.of("cwork", "cstripped", "cxxwork", "libhot.so")) {
      assertTrue(
          agreement.keySet().stream().anyMatch(m -> m.endsWith("/" + prog)),
          "the profiles have samples in " + prog + ": " + agreement.keySet());
    }
    if (!wrong.isEmpty()) {
      fail(wrong.size() + " locations differ from addr2line:\n" + String.join("\n", wrong));
    }
    // Inlining is there to be seen: -O2 inlined step/rotl, mixer and the sort comparator.
    assertTrue(
        locations.stream().anyMatch(r -> !r.isNullAt(2) && r.getList(2).size() > 1),
        "some locations have inlined frames");
  }

  @Test
  void functionsHavePprofTopMeaning() throws Exception {
    List<Row> stacks =
        spark
            .read()
            .parquet(out + "/stacks")
            .where("format = 'gperftools' AND kind = 'sample'")
            .selectExpr("frames", "CAST(count AS STRING)")
            .collectAsList();
    List<Row> locs = new ArrayList<>();
    for (Row s : stacks) {
      for (Row f : s.<Row>getList(0)) {
        if (!f.isNullAt(0)) {
          locs.add(org.apache.spark.sql.RowFactory.create(f.getString(0), f.getLong(1)));
        }
      }
    }
    Map<String, Map<Long, List<SourceLine>>> ref = reference(locs);
    // Expected (module, function) -> [self, total] from stacks and addr2line alone.
    Map<List<String>, BigDecimal[]> want = new HashMap<>();
    for (Row s : stacks) {
      BigDecimal count = new BigDecimal(s.getString(1));
      Set<List<String>> onStack = new HashSet<>();
      List<Row> frames = s.getList(0);
      for (int i = 0; i < frames.size(); i++) {
        Row f = frames.get(i);
        String module = f.isNullAt(0) ? null : f.getString(0);
        Map<Long, List<SourceLine>> m = module == null ? null : ref.get(module);
        List<SourceLine> chain = m == null ? List.of() : m.get(f.getLong(1));
        List<String> names = new ArrayList<>();
        if (chain.isEmpty()) {
          names.add(null);
        }
        for (SourceLine l : chain) {
          names.add(l.function());
        }
        for (int j = 0; j < names.size(); j++) {
          List<String> key = java.util.Arrays.asList(module, names.get(j));
          BigDecimal[] v =
              want.computeIfAbsent(key, k -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
          if (i == 0 && j == 0) {
            v[0] = v[0].add(count);
          }
          if (onStack.add(key)) {
            v[1] = v[1].add(count);
          }
        }
      }
    }
    Map<List<String>, BigDecimal[]> got = new HashMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'gperftools' AND kind = 'sample'")
            .selectExpr("module", "function", "self_count", "total_count")
            .collectAsList()) {
      got.put(
          java.util.Arrays.asList(r.getString(0), r.getString(1)),
          new BigDecimal[] {r.getDecimal(2), r.getDecimal(3)});
    }
    // Modules this machine lacks cannot be checked: compare the others.
    got.keySet().removeIf(k -> k.get(0) != null && !ref.containsKey(k.get(0)));
    want.keySet().removeIf(k -> k.get(0) != null && !ref.containsKey(k.get(0)));
    assertEquals(describe(want), describe(got));
    String sortDescending = "work::sort_descending(std::vector<int, std::allocator<int> >&)";
    assertTrue(
        got.keySet().stream().anyMatch(k -> sortDescending.equals(k.get(1))),
        "C++ names demangled: " + got.keySet());
  }

  private static Map<String, String> describe(Map<List<String>, BigDecimal[]> m) {
    Map<String, String> out = new TreeMap<>();
    m.forEach(
        (k, v) ->
            out.put(
                k.get(0) + " | " + k.get(1),
                v[0].toPlainString() + " self, " + v[1].toPlainString() + " total"));
    return out;
  }

  private static List<SourceLine> chain(List<Row> lines) {
    return StandardOutputs.sourceLines(lines);
  }

  private static boolean same(List<SourceLine> want, List<SourceLine> got) {
    if (want.size() != got.size()) {
      return false;
    }
    for (int i = 0; i < want.size(); i++) {
      SourceLine w = want.get(i);
      SourceLine g = got.get(i);
      if (!w.function().equals(g.function())
          || !java.util.Objects.equals(w.file(), g.file())
          || w.line() != g.line()) {
        return false;
      }
    }
    return true;
  }

  static void requireLibprofiler() {
    if (!Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libprofiler.so"))) {
      String why = "needs libprofiler.so (Debian package libgoogle-perftools-dev)";
      if ("true".equals(System.getenv("CI"))) {
        fail(why + ": CI=true, so a missing tool is a failure");
      }
      org.junit.jupiter.api.Assumptions.assumeTrue(false, why);
    }
  }

  static String buildId(Path binary) throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(List.of("readelf", "-n", binary.toString()), home, Map.of(), 60);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("Build ID: (\\p{XDigit}+)").matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    return m.group(1);
  }

  /** Runs a program under the CPU profiler until the profile has enough samples to compare. */
  private static void run(Path dir, String prog, Path profile) throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(
            List.of(dir.resolve(prog).toString()),
            home,
            Map.of("CPUPROFILE", profile.toString(), "CPUPROFILE_FREQUENCY", "1000"),
            300);
    assertEquals(0, r.exit(), prog + ": " + r.stderr());
    assertTrue(Files.size(profile) > 0, prog + " wrote no profile");
  }

  static void sh(Path dir, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), String.join(" ", cmd) + ":\n" + output);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
