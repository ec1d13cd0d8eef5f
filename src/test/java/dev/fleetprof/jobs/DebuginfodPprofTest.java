package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.DebuginfodServer;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.Addr2line;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet job on pprof profiles written by Go's own runtime/pprof, whose mappings record the GNU
 * build IDs of the mapped files, for a program whose binaries are no longer on the machine: every
 * name of the C library's code comes from a real elfutils debuginfod, which serves the stripped
 * library ({@code /executable}) and its debug file ({@code /debuginfo}), split with objcopy and
 * strip. Two builds of the library at one path, one per host, are each looked up by their own build
 * ID: the names equal {@code addr2line -f -i -C} and {@code llvm-symbolizer} on the unstripped
 * build the profile's file ran, and an offset both builds' profiles hold is named only where the
 * two builds name it alike.
 *
 * <p>The program: a Go main (cgo) that links {@code libburn.so} and starts a C thread burning CPU
 * in it; Go's profiler samples the thread (its leaf PC in the library, under {@code
 * runtime._ExternalCode}) and names only its own code.
 */
class DebuginfodPprofTest {
  private static final String DAY = "2026-11-21";

  private static final String BURN_C =
      """
      #include <pthread.h>
      #include <stdint.h>
      #if V == 2
      /* The second build has other code first: its functions lie at other offsets. */
      __attribute__((noinline)) uint64_t pad_v2(uint64_t x) {
        for (int i = 0; i < 100; i++) x = x * 31 + i;
        return x;
      }
      #endif
      static volatile uint64_t sink;
      static inline uint64_t mix(uint64_t x) { return (x ^ (x >> 13)) * 0x9E3779B97F4A7C15ull; }
      __attribute__((noinline)) uint64_t hash_loop(uint64_t n) {
        uint64_t h = 1;
        for (uint64_t i = 0; i < n; i++) h = mix(h + i);
        return h;
      }
      __attribute__((noinline)) uint64_t sum_loop(uint64_t n) {
        uint64_t s = 0;
        for (uint64_t i = 0; i < n; i++) s += i * i % 7;
        return s;
      }
      static void *burn(void *arg) {
        (void)arg;
        for (;;) {
          sink += hash_loop(3000000);
          sink += sum_loop(2000000);
        }
        return 0;
      }
      void start_burn(void) {
        pthread_t t;
        pthread_create(&t, 0, burn, 0);
      }
      """;

  private static final String MAIN_GO =
      """
      package main

      // #cgo LDFLAGS: -L${SRCDIR} -lburn -Wl,-rpath,${SRCDIR}
      // void start_burn(void);
      import "C"

      import (
      	"os"
      	"runtime/pprof"
      	"time"
      )

      func main() {
      	f, err := os.Create(os.Args[1])
      	if err != nil {
      		panic(err)
      	}
      	if err := pprof.StartCPUProfile(f); err != nil {
      		panic(err)
      	}
      	C.start_burn()
      	time.Sleep(1500 * time.Millisecond)
      	pprof.StopCPUProfile()
      	f.Close()
      }
      """;

  @TempDir static Path tmp;
  private static Path home;

  /** The library's path in the profiles (where it was when the program ran; gone since). */
  private static String lib;

  /** Per host: the build ID of the library that host's profile ran. */
  private static final Map<String, String> buildOfHost = new LinkedHashMap<>();

  /** Per build ID: the unstripped library, the reference tools' input. */
  private static final Map<String, Path> unstripped = new LinkedHashMap<>();

  private static Path served;
  private static Path input;

  @BeforeAll
  static void profileTwoBuildsThenRemoveThem() throws Exception {
    Toolchain.requireBinutils();
    ExternalTool.require("go", "golang-go");
    ExternalTool.require("llvm-symbolizer", "llvm");
    DebuginfodServer.require();
    home = tmp.resolve("home");
    Path prog = Files.createDirectories(tmp.resolve("prog"));
    Files.writeString(prog.resolve("burn.c"), BURN_C);
    Files.writeString(prog.resolve("main.go"), MAIN_GO);
    Map<String, String> goEnv =
        Map.of(
            "GOCACHE", tmp.resolve("gocache").toString(),
            "GOPATH", tmp.resolve("gopath").toString(),
            "GO111MODULE", "off",
            "GOFLAGS", "",
            "CGO_ENABLED", "1",
            "LC_ALL", "C");
    served = Files.createDirectories(tmp.resolve("served"));
    input = tmp.resolve("in");
    lib = prog.resolve("libburn.so").toString();
    for (int v = 1; v <= 2; v++) {
      Toolchain.run(
          prog,
          List.of(
              "gcc",
              "-O2",
              "-g",
              "-fPIC",
              "-shared",
              "-Wl,--build-id=sha1",
              "-DV=" + v,
              "-o",
              lib,
              prog.resolve("burn.c").toString()));
      if (v == 1) {
        run(
            List.of(
                "go",
                "build",
                "-o",
                prog.resolve("burnprog").toString(),
                prog.resolve("main.go").toString()),
            goEnv);
      }
      Path ref = Files.createDirectories(tmp.resolve("ref/v" + v)).resolve("libburn.so");
      Files.copy(Path.of(lib), ref);
      String id = Toolchain.buildId(tmp, ref);
      assertNotNull(id, ref + " has a build ID");
      unstripped.put(id, ref);
      String host = "h" + v;
      buildOfHost.put(host, id);
      Path dir = Files.createDirectories(input.resolve("date=" + DAY + "/host=" + host));
      run(List.of(prog.resolve("burnprog").toString(), dir.resolve("cpu.pb.gz").toString()), goEnv);
      // What the server has: the stripped library and its debug file.
      Path out = Files.createDirectories(served.resolve("v" + v));
      Toolchain.run(
          tmp,
          List.of(
              "objcopy",
              "--only-keep-debug",
              ref.toString(),
              out.resolve("libburn.so.debug") + ""));
      Toolchain.run(
          tmp,
          List.of("strip", "--strip-all", "-o", out.resolve("libburn.so").toString(), ref + ""));
    }
    assertEquals(2, unstripped.size(), "two builds, two build IDs");
    // The binaries are gone from where they ran.
    try (Stream<Path> s = Files.walk(prog)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void run(List<String> command, Map<String, String> env) throws Exception {
    ExternalTool.Result r = ExternalTool.run(command, home, env, 300);
    assertEquals(0, r.exit(), String.join(" ", command) + ": " + r.stderr());
  }

  private static List<String> readyPaths() {
    List<String> out = new ArrayList<>();
    for (String id : unstripped.keySet()) {
      out.add("/buildid/" + id + "/executable");
      out.add("/buildid/" + id + "/debuginfo");
    }
    return out;
  }

  private static FleetSummary fleetJob(String output, String url, Path cache) throws Exception {
    return FleetAggregate.run(
        TestSpark.get(),
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              input.toString(),
              "--output",
              output,
              "--no-module-paths",
              "--debuginfod",
              url,
              "--debuginfod-cache",
              cache.toString()
            }));
  }

  /** The job's locations in the library: offset to (lines, problem). */
  private static Map<Long, Row> libraryLocations(String output) throws java.io.IOException {
    Map<Long, Row> out = new TreeMap<>();
    for (Row r :
        FleetOutput.read(TestSpark.get(), output, "locations")
            .where("date = '" + DAY + "'")
            .where(org.apache.spark.sql.functions.col("module").equalTo(lib))
            .selectExpr("offset", "lines", "name_source")
            .collectAsList()) {
      out.put(r.getLong(0), r);
    }
    return out;
  }

  /** Per offset of the library, the build IDs of the profiles (hosts) whose frames hold it. */
  private static Map<Long, Set<String>> buildsOfOffsets() {
    SparkSession spark = TestSpark.get();
    Map<Long, Set<String>> out = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .format("profile")
            .load(input.toString())
            .selectExpr("host", "explode(frames) AS f")
            .where(org.apache.spark.sql.functions.col("f.module").equalTo(lib))
            .selectExpr("CAST(host AS STRING)", "f.offset")
            .distinct()
            .collectAsList()) {
      out.computeIfAbsent(r.getLong(1), k -> new TreeSet<>()).add(buildOfHost.get(r.getString(0)));
    }
    return out;
  }

  /** addr2line's chain, as printed (function, file, line), per library offset, in one build. */
  private static Map<Long, List<List<Object>>> addr2line(String id, Set<Long> offsets)
      throws Exception {
    Path ref = unstripped.get(id);
    List<Addr2line.Load> loads = Addr2line.loads(ref, home);
    Map<Long, Long> vaddr = new HashMap<>();
    for (long off : offsets) {
      Long v = Addr2line.vaddr(loads, off);
      assertNotNull(v, "no load segment of " + ref + " holds offset 0x" + Long.toHexString(off));
      vaddr.put(off, v);
    }
    Map<Long, List<SourceLine>> chains =
        Addr2line.chains(ref, new ArrayList<>(new TreeSet<>(vaddr.values())), home);
    Map<Long, List<List<Object>>> out = new HashMap<>();
    for (long off : offsets) {
      out.put(off, printed(chains.get(vaddr.get(off))));
    }
    return out;
  }

  /** llvm-symbolizer's inline chain of function names per library offset, in one build. */
  private static Map<Long, List<String>> llvmSymbolizer(String id, Set<Long> offsets)
      throws Exception {
    Path ref = unstripped.get(id);
    List<Addr2line.Load> loads = Addr2line.loads(ref, home);
    List<Long> offs = new ArrayList<>(offsets);
    List<Long> vaddrs = new ArrayList<>();
    for (long off : offs) {
      vaddrs.add(Addr2line.vaddr(loads, off));
    }
    Path in = Toolchain.addressFile(tmp.resolve("llvm"), vaddrs);
    String out =
        Toolchain.sh(
            tmp,
            "llvm-symbolizer --obj="
                + Toolchain.q(ref)
                + " --output-style=GNU -a -f -i -C --debug-file-directory=/nonexistent < "
                + Toolchain.q(in));
    List<List<SourceLine>> chains = Toolchain.parseChains(out);
    assertEquals(offs.size(), chains.size(), "one llvm-symbolizer answer per address");
    Map<Long, List<String>> names = new HashMap<>();
    for (int i = 0; i < offs.size(); i++) {
      names.put(
          offs.get(i),
          chains.get(i).stream().map(SourceLine::function).filter(f -> !f.equals("??")).toList());
    }
    return names;
  }

  private static List<List<Object>> printed(List<SourceLine> chain) {
    if (chain == null) {
      return List.of();
    }
    return chain.stream()
        .map(l -> Arrays.<Object>asList(l.function(), l.line() == 0 ? null : l.file(), l.line()))
        .toList();
  }

  private static List<SourceLine> lines(Row location) {
    return location.isNullAt(1) ? null : StandardOutputs.sourceLines(location.getList(1));
  }

  @Test
  void theSourceGivesEachFilesBuildIds() {
    SparkSession spark = TestSpark.get();
    for (Row r :
        spark
            .read()
            .format("profile")
            .load(input.toString())
            .where(org.apache.spark.sql.functions.col("mapping.path").equalTo(lib))
            .selectExpr("CAST(host AS STRING)", "mapping.build_id")
            .distinct()
            .collectAsList()) {
      assertEquals(buildOfHost.get(r.getString(0)), r.getString(1), "mapping.build_id");
    }
    List<Row> stackRows =
        spark
            .read()
            .format("profile")
            .option("rows", "stacks")
            .load(input.toString())
            .selectExpr("CAST(host AS STRING)", "build_ids['" + lib + "']", "size(build_ids)")
            .distinct()
            .collectAsList();
    assertEquals(2, stackRows.size(), stackRows.toString());
    for (Row r : stackRows) {
      assertEquals(buildOfHost.get(r.getString(0)), r.getString(1), "build_ids of " + r);
      // The Go program and the library at least (libc, ld.so, ... as mapped).
      assertTrue(r.getInt(2) >= 2, "build_ids of " + r);
    }
  }

  @Test
  void eachBuildIdOfAPprofFleetIsFetchedFromDebuginfodAndNamesItsOwnSamples() throws Exception {
    Path cache = tmp.resolve("cache");
    String out = tmp.resolve("out").toString();
    FleetSummary summary;
    try (DebuginfodServer server =
        DebuginfodServer.start(served, tmp.resolve("debuginfod"), readyPaths())) {
      long executables = server.requests("executable");
      long debuginfos = server.requests("debuginfo");
      summary = fleetJob(out, server.url.toString(), cache);
      // Each build once, whatever the tasks: the binary, then its DWARF.
      assertEquals(executables + 2, server.requests("executable"), "executables fetched");
      assertEquals(debuginfos + 2, server.requests("debuginfo"), "debug files fetched");
    }
    List<String> cached;
    try (Stream<Path> s = Files.walk(cache)) {
      cached =
          s.filter(Files::isRegularFile).map(p -> cache.relativize(p).toString()).sorted().toList();
    }
    List<String> want = new ArrayList<>();
    for (String id : unstripped.keySet()) {
      want.add(id + "/debuginfo");
      want.add(id + "/executable");
    }
    want.sort(null);
    assertEquals(want, cached, "the executors' cache, in elfutils' layout");

    Map<Long, Row> got = libraryLocations(out);
    Map<Long, Set<String>> builds = buildsOfOffsets();
    assertEquals(builds.keySet(), got.keySet(), "the library's locations");
    Map<String, Map<Long, List<List<Object>>>> a2l = new HashMap<>();
    Map<String, Map<Long, List<String>>> llvm = new HashMap<>();
    for (String id : unstripped.keySet()) {
      a2l.put(id, addr2line(id, builds.keySet()));
      llvm.put(id, llvmSymbolizer(id, builds.keySet()));
    }
    Map<String, int[]> agree = new LinkedHashMap<>(); // per build: [addr2line, llvm, of]
    int shared = 0;
    int sharedNamed = 0;
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<Long, Set<String>> e : builds.entrySet()) {
      long off = e.getKey();
      Row loc = got.get(off);
      List<SourceLine> chain = lines(loc);
      String where = lib + "+0x" + Long.toHexString(off) + " (builds " + e.getValue() + ")";
      if (e.getValue().size() == 1) {
        String id = e.getValue().iterator().next();
        int[] c = agree.computeIfAbsent(id, k -> new int[3]);
        c[2]++;
        List<List<Object>> ref = a2l.get(id).get(off);
        if (printed(chain).equals(ref)) {
          c[0]++;
        } else {
          wrong.add(where + ": addr2line " + ref + ", job " + chain);
        }
        List<String> functions =
            chain == null ? List.of() : chain.stream().map(SourceLine::function).toList();
        if (functions.equals(llvm.get(id).get(off))) {
          c[1]++;
        } else {
          wrong.add(where + ": llvm-symbolizer " + llvm.get(id).get(off) + ", job " + functions);
        }
        if (chain != null) {
          assertEquals("dwarf", loc.getString(2), where + ": from the fetched debug file");
        }
      } else {
        // Both builds' profiles hold the offset: a name only where both builds give it.
        shared++;
        List<List<Object>> first = null;
        boolean alike = true;
        for (String id : e.getValue()) {
          List<List<Object>> ref = a2l.get(id).get(off);
          alike &= first == null || first.equals(ref);
          first = first == null ? ref : first;
        }
        if (alike && printed(chain).equals(first)) {
          sharedNamed++;
        } else if (alike || chain != null) {
          wrong.add(where + ": builds alike " + alike + ", addr2line " + first + ", job " + chain);
        }
      }
    }
    for (Map.Entry<String, int[]> e : agree.entrySet()) {
      int[] c = e.getValue();
      System.out.printf(
          "pprof through debuginfod, build %s: %d of %d locations agree with addr2line -f -i -C,"
              + " %d with llvm-symbolizer%n",
          e.getKey(), c[0], c[2], c[1]);
    }
    System.out.printf(
        "pprof through debuginfod: %d locations in both builds' profiles, %d named (alike)%n",
        shared, sharedNamed);
    assertTrue(wrong.isEmpty(), wrong.size() + " differ:\n" + String.join("\n", wrong));
    assertEquals(2, agree.size(), "locations of each build alone");
    for (int[] c : agree.values()) {
      assertTrue(c[2] >= 3, c[2] + " locations");
    }
    // The two builds name their functions at different offsets: each build's names were used.
    assertNotEquals(
        a2l.get(buildOfHost.get("h1")), a2l.get(buildOfHost.get("h2")), "the builds differ");
    assertTrue(
        summary.symbolization().contains("symbolized"), "the summary: " + summary.symbolization());
    sharedOffsetsAreNamedOnlyWhereBothBuildsAgree(server(cache));
  }

  /** The job's options for the cache the run filled (the server is gone: the cache answers). */
  private static Symbolization.Options server(Path cache) throws Exception {
    return new Symbolization.Options(
        List.of(),
        false,
        List.of("http://127.0.0.1:" + DebuginfodServer.freePort()),
        cache.toString());
  }

  private static final java.util.regex.Pattern INSN =
      java.util.regex.Pattern.compile("^\\s+([0-9a-f]+):\\t");

  /**
   * Every instruction of the first build's .text, asked as a location both builds' profiles hold:
   * named where addr2line names it alike in both builds, else unnamed with the builds listed. (The
   * profiles' own samples seldom share an offset: this asks for each.)
   */
  private static void sharedOffsetsAreNamedOnlyWhereBothBuildsAgree(Symbolization.Options options)
      throws Exception {
    Path v1 = unstripped.get(buildOfHost.get("h1"));
    List<Addr2line.Load> loads = Addr2line.loads(v1, home);
    Set<Long> offsets = new TreeSet<>();
    for (String line :
        Toolchain.run(
                tmp, List.of("objdump", "-d", "--no-show-raw-insn", "-j", ".text", v1.toString()))
            .split("\n")) {
      java.util.regex.Matcher m = INSN.matcher(line);
      if (m.find()) {
        offsets.add(Addr2line.fileOffset(loads, Long.parseUnsignedLong(m.group(1), 16)));
      }
    }
    List<String> both = new ArrayList<>(new TreeSet<>(unstripped.keySet()));
    List<Row> asked = new ArrayList<>();
    for (long off : offsets) {
      asked.add(
          org.apache.spark.sql.RowFactory.create("pprof", lib, off, both.toArray(new String[0])));
    }
    SparkSession spark = TestSpark.get();
    org.apache.spark.sql.types.StructType schema =
        new org.apache.spark.sql.types.StructType()
            .add("format", "string")
            .add("module", "string")
            .add("offset", "bigint")
            .add("build_ids", "array<string>");
    Map<Long, Row> got = new HashMap<>();
    for (Row r :
        Symbolization.symbolize(spark, spark.createDataFrame(asked, schema), options)
            .collectAsList()) {
      got.put(r.getLong(2), r);
    }
    Map<Long, List<List<Object>>> a = addr2line(both.get(0), offsets);
    Map<Long, List<List<Object>>> b = addr2line(both.get(1), offsets);
    int alike = 0;
    int differ = 0;
    int unnamedByBoth = 0;
    List<String> wrong = new ArrayList<>();
    for (long off : offsets) {
      Row r = got.get(off);
      List<SourceLine> chain = r.isNullAt(3) ? null : StandardOutputs.sourceLines(r.getList(3));
      String where = lib + "+0x" + Long.toHexString(off);
      if (a.get(off).isEmpty() && b.get(off).isEmpty()) {
        unnamedByBoth++; // no function either way: nothing to compare
      } else if (a.get(off).equals(b.get(off))) {
        alike++;
        if (!printed(chain).equals(a.get(off))) {
          wrong.add(where + ": both builds " + a.get(off) + ", job " + chain);
        }
      } else {
        differ++;
        String problem = r.getString(4);
        if (chain != null
            || problem == null
            || !problem.contains(" in 2 builds (" + String.join(", ", both) + ")")
            || !problem.contains("do not all name it alike")) {
          wrong.add(where + ": builds differ, job " + chain + ", problem " + problem);
        }
      }
    }
    System.out.printf(
        "pprof through debuginfod, %d offsets asked in both builds: %d named alike by both (and"
            + " by the job), %d named differently (unnamed by the job), %d named by neither%n",
        offsets.size(), alike, differ, unnamedByBoth);
    assertTrue(wrong.isEmpty(), wrong.size() + " wrong:\n" + String.join("\n", wrong));
    assertTrue(alike > 0 && differ > 0, alike + " alike, " + differ + " differ");
  }

  @Test
  void aBuildTheServerLacksLeavesItsFramesUnnamedAndTheSummarySaysWhy() throws Exception {
    // The server has the first build only.
    Path partial = Files.createDirectories(tmp.resolve("served-v1"));
    try (Stream<Path> s = Files.list(served.resolve("v1"))) {
      for (Path p : s.toList()) {
        Files.copy(p, partial.resolve(p.getFileName()));
      }
    }
    String v1 = buildOfHost.get("h1");
    String v2 = buildOfHost.get("h2");
    String out = tmp.resolve("out-partial").toString();
    FleetSummary summary;
    try (DebuginfodServer server =
        DebuginfodServer.start(
            partial,
            tmp.resolve("debuginfod-partial"),
            List.of("/buildid/" + v1 + "/executable", "/buildid/" + v1 + "/debuginfo"))) {
      summary = fleetJob(out, server.url.toString(), tmp.resolve("cache-partial"));
    }
    Map<Long, Row> got = libraryLocations(out);
    Map<Long, Set<String>> builds = buildsOfOffsets();
    int v2Only = 0;
    for (Map.Entry<Long, Set<String>> e : builds.entrySet()) {
      Row loc = got.get(e.getKey());
      if (e.getValue().contains(v2)) {
        // Never a name from the first build for the second's samples.
        assertNull(lines(loc), lib + "+0x" + Long.toHexString(e.getKey()) + " " + e.getValue());
        v2Only += e.getValue().size() == 1 ? 1 : 0;
      }
    }
    assertTrue(v2Only > 0, "locations of the second build");
    assertTrue(
        got.entrySet().stream()
            .anyMatch(
                e -> builds.get(e.getKey()).equals(Set.of(v1)) && lines(e.getValue()) != null),
        "the first build's locations are named");
    String report = summary.symbolization();
    assertTrue(
        report.contains("unnamed: ")
            && report.contains(" locations in " + lib + ": ")
            && report.contains("/buildid/" + v2 + "/executable: HTTP 404"),
        report);
  }
}
