package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.BinaryFiles;
import dev.fleetprof.symbols.BinaryLocator;
import dev.fleetprof.symbols.BinarySymbols;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.DebuginfodServer;
import dev.fleetprof.testing.Addr2line;
import dev.fleetprof.testing.TestSpark;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binaries on HDFS (an in-process MiniDFSCluster, as in {@code cluster.HdfsIT}): the fleet job with
 * {@code --binaries hdfs://.../bins} names every frame as it does with the same folder on local
 * disk, and as addr2line does. The folder holds the three layouts the search knows: an unstripped
 * PIE by base name, a stripped non-PIE by its full path with its DWARF in {@code
 * .build-id/xx/rest.debug}, and a stripped shared library without build ID whose {@code
 * .gnu_debuglink} names a file in its {@code .debug/} folder (the CRC checked on the copy the
 * executor makes). It also checks {@link HadoopBinaryFiles} keeps the {@link BinaryFiles} contract
 * on HDFS and the local file system alike.
 *
 * <p>In package {@code jobs}, not {@code cluster}: the job's {@code run}, {@code HadoopBinaryFiles}
 * and the symbolization are package-private.
 */
class HdfsBinariesIT {
  private static final String DAY = "2026-11-21";
  private static final Map<String, String> ENV = Map.of("DEBUGINFOD_URLS", "", "LC_ALL", "C");
  private static final String SERVER = "/opt/fleet/bin/server";
  private static final String WORKER = "/opt/fleet/bin/worker";
  private static final String LIBHOT = "/opt/fleet/lib/libhot.so";
  private static final String MISSING = "/opt/fleet/bin/missing";

  @TempDir static Path tmp;
  private static Path home;
  private static Path bins;
  private static String workerId;
  private static MiniDFSCluster dfs;
  private static FileSystem fs;
  private static String hdfsBins;

  /** Per module: the addresses objdump disassembles, by file offset in the runtime file. */
  private static final Map<String, Program> programs = new LinkedHashMap<>();

  /** A module of the profile: its runtime file, where addr2line reads names, its offsets. */
  private record Program(Path runtime, Path names, Map<Long, Long> vaddrByOffset) {}

  @BeforeAll
  static void buildUploadAndStart() throws Exception {
    for (String[] tool :
        new String[][] {
          {"gcc", "gcc"},
          {"g++", "g++"},
          {"readelf", "binutils"},
          {"objcopy", "binutils"},
          {"strip", "binutils"},
          {"addr2line", "binutils"},
          {"objdump", "binutils"}
        }) {
      ExternalTool.require(tool[0], tool[1]);
    }
    home = tmp.resolve("home");
    Path src = Path.of("src/test/resources/symbols").toAbsolutePath();
    Path build = Files.createDirectories(tmp.resolve("build"));
    bins = Files.createDirectories(tmp.resolve("bins"));

    // An unstripped PIE, found by base name.
    Path server = bins.resolve("server");
    tool(
        build,
        "g++",
        "-O2",
        "-g",
        "-Wl,--build-id=sha1",
        "-o",
        server.toString(),
        src + "/cxxwork.cpp");
    programs.put(SERVER, program(server, server, server));

    // A stripped non-PIE by its full path; DWARF (compressed) in a build-ID debug file.
    Path workerFull = build.resolve("worker.full");
    tool(
        build,
        "g++",
        "-O2",
        "-g",
        "-gz=zlib",
        "-no-pie",
        "-Wl,--build-id=sha1",
        "-o",
        workerFull.toString(),
        src + "/cxxwork.cpp");
    workerId = buildId(workerFull);
    Path workerDebug =
        bins.resolve(
            ".build-id/" + workerId.substring(0, 2) + "/" + workerId.substring(2) + ".debug");
    Path worker = bins.resolve(WORKER.substring(1));
    Files.createDirectories(workerDebug.getParent());
    Files.createDirectories(worker.getParent());
    tool(build, "objcopy", "--only-keep-debug", workerFull.toString(), workerDebug.toString());
    tool(build, "strip", "--strip-all", "-o", worker.toString(), workerFull.toString());
    programs.put(WORKER, program(workerFull, worker, workerDebug));

    // A stripped shared library without build ID, its debug file named by .gnu_debuglink.
    Path libFull = build.resolve("libhot.so.full");
    tool(
        build,
        "gcc",
        "-O2",
        "-g",
        "-fPIC",
        "-shared",
        "-Wl,--build-id=none",
        "-I" + src,
        "-o",
        libFull.toString(),
        src + "/hot.c");
    tool(build, "objcopy", "--only-keep-debug", libFull.toString(), "libhot.so.debug");
    tool(build, "strip", "--strip-all", "-o", "libhot.so", libFull.toString());
    tool(build, "objcopy", "--add-gnu-debuglink=libhot.so.debug", "libhot.so");
    Path lib = bins.resolve(LIBHOT.substring(1));
    Path libDebug = lib.resolveSibling(".debug/libhot.so.debug");
    Files.createDirectories(libDebug.getParent());
    Files.move(build.resolve("libhot.so"), lib);
    Files.move(build.resolve("libhot.so.debug"), libDebug);
    programs.put(LIBHOT, program(libFull, lib, libDebug));

    Configuration conf = new Configuration();
    Path hdfsBase = Path.of("target", "cluster-it", "hdfs-binaries").toAbsolutePath();
    deleteRecursively(hdfsBase);
    dfs = new MiniDFSCluster.Builder(conf, hdfsBase.toFile()).numDataNodes(1).build();
    dfs.waitActive();
    fs = dfs.getFileSystem();
    org.apache.hadoop.fs.Path remote = new org.apache.hadoop.fs.Path("/bins");
    fs.copyFromLocalFile(false, true, new org.apache.hadoop.fs.Path(bins.toUri()), remote);
    hdfsBins = fs.makeQualified(remote).toString();
    assertTrue(hdfsBins.startsWith("hdfs://"), hdfsBins);
  }

  /**
   * The output's Delta tables on HDFS (their commits go through Hadoop's FileSystem there): runs of
   * two dates committing to one table at once take one version each, and each date holds its last
   * run only. The committed files are stand-ins, as in {@link DeltaTablesTest}.
   */
  @Test
  void tablesOnHdfsTakeOneVersionPerCommit() throws Exception {
    org.apache.hadoop.fs.Path table =
        fs.makeQualified(new org.apache.hadoop.fs.Path("/out/stacks"));
    List<String> dates = List.of("2026-11-20", "2026-11-21");
    int runs = 3;
    for (String date : dates) {
      for (int i = 0; i < runs; i++) {
        try (OutputStream o =
            fs.create(
                new org.apache.hadoop.fs.Path(table, "date=" + date + "/run=r" + i + "/part-0"))) {
          o.write(1);
        }
      }
    }
    Configuration conf = fs.getConf();
    List<Thread> committers = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (String date : dates) {
      Thread t =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < runs; i++) {
                    DeltaTables.commitRun(
                        conf, table, DeltaTablesTest.SCHEMA, List.of(date), "r" + i, Map.of());
                  }
                } catch (IOException | RuntimeException e) {
                  failures.add(e);
                }
              });
      committers.add(t);
      t.start();
    }
    for (Thread t : committers) {
      t.join();
    }
    assertEquals(List.of(), failures);
    long versions =
        Arrays.stream(fs.listStatus(new org.apache.hadoop.fs.Path(table, "_delta_log")))
            .filter(st -> st.getPath().getName().matches("\\d{20}\\.json"))
            .count();
    assertEquals(dates.size() * runs, versions, "one version per commit, none overwritten");
    for (String date : dates) {
      assertTrue(DeltaTables.holds(conf, table, date, "r" + (runs - 1)), date);
      assertFalse(DeltaTables.holds(conf, table, date, "r0"), date);
    }
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (dfs != null) {
      // Not shutdown(): it also clears the JVM's Hadoop shutdown hooks, the test Spark session's.
      dfs.shutdownDataNodes();
      dfs.shutdownNameNodes();
    }
  }

  private static final Pattern INSN = Pattern.compile("^\\s+([0-9a-f]+):\\t");

  /**
   * The addresses to ask about: every instruction objdump finds in {@code full}'s .text and the
   * byte before each (where a return address minus one lands), by file offset in {@code runtime}
   * from readelf's load segments; addr2line reads {@code names}.
   */
  private static Program program(Path full, Path runtime, Path names) throws Exception {
    Set<Long> addresses = new LinkedHashSet<>();
    for (String line :
        tool(home, "objdump", "-d", "--no-show-raw-insn", "-j", ".text", full.toString())
            .split("\n")) {
      Matcher m = INSN.matcher(line);
      if (m.find()) {
        long a = Long.parseUnsignedLong(m.group(1), 16);
        addresses.add(a);
        addresses.add(a - 1);
      }
    }
    List<Addr2line.Load> loads = Addr2line.loads(runtime, home);
    Map<Long, Long> byOffset = new TreeMap<>();
    for (long a : addresses) {
      Long off = Addr2line.fileOffset(loads, a);
      assertNotNull(off, "no load segment of " + runtime + " holds 0x" + Long.toHexString(a));
      byOffset.put(off, a);
    }
    assertTrue(byOffset.size() > 50, runtime + ": " + byOffset.size() + " addresses");
    return new Program(runtime, names, byOffset);
  }

  private static String tool(Path dir, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().putAll(ENV);
    Files.createDirectories(dir);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", cmd) + ":\n" + out);
    return out;
  }

  private static String buildId(Path file) throws Exception {
    Matcher m =
        Pattern.compile("Build ID: (\\p{XDigit}+)")
            .matcher(tool(home, "readelf", "-nW", file.toString()));
    assertTrue(m.find(), file + " has a build ID");
    return m.group(1);
  }

  // ---- the fleet job ----

  /**
   * A gperftools CPU profile (64-bit little-endian slots) with one single-frame sample at every
   * address of every program, each module mapped whole from file offset 0, and a few samples in a
   * module no folder has.
   */
  private static void writeProfile(Path file) throws IOException {
    Map<String, Long> starts = new LinkedHashMap<>();
    starts.put(SERVER, 0x555500000000L);
    starts.put(WORKER, 0x400000L);
    starts.put(LIBHOT, 0x7f0000000000L);
    starts.put(MISSING, 0x7f1000000000L);
    StringBuilder maps = new StringBuilder();
    ByteBuffer b = ByteBuffer.allocate(8 * 5).order(ByteOrder.LITTLE_ENDIAN);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
      b.putLong(0).putLong(3).putLong(0).putLong(1000).putLong(0);
      out.write(b.array(), 0, b.position());
      for (Map.Entry<String, Long> e : starts.entrySet()) {
        Program p = programs.get(e.getKey());
        Set<Long> offsets = p != null ? p.vaddrByOffset().keySet() : Set.of(0x1000L, 0x1234L);
        long size = p != null ? Files.size(p.runtime()) : 0x10000;
        long start = e.getValue();
        maps.append(
            String.format(
                "%x-%x r-xp 00000000 00:00 0 %s%n",
                start, start + ((size + 0xfff) & ~0xfffL), e.getKey()));
        for (long off : offsets) {
          b.clear();
          b.putLong(1).putLong(1).putLong(start + off);
          out.write(b.array(), 0, b.position());
        }
      }
      b.clear();
      b.putLong(0).putLong(1).putLong(0);
      out.write(b.array(), 0, b.position());
      out.write(maps.toString().getBytes(StandardCharsets.US_ASCII));
    }
  }

  /** The job's locations: (module, offset) to the chain, null where it has none. */
  private static Map<List<Object>, List<SourceLine>> fleetJob(
      SparkSession spark, String binaries, String name, String... more) throws IOException {
    String out = tmp.resolve("out-" + name).toString();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--input",
                tmp.resolve("in").toString(),
                "--output",
                out,
                "--date",
                DAY,
                "--binaries",
                binaries,
                "--no-module-paths"));
    args.addAll(Arrays.asList(more));
    FleetAggregate.run(spark, FleetAggregate.Args.parse(args.toArray(new String[0])));
    Map<List<Object>, List<SourceLine>> chains = new HashMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/locations")
            .where("format = 'gperftools' AND kind = 'sample'")
            .selectExpr("module", "offset", "lines")
            .collectAsList()) {
      chains.put(
          List.of(r.getString(0), r.getLong(1)),
          r.isNullAt(2) ? null : StandardOutputs.sourceLines(r.getList(2)));
    }
    return chains;
  }

  /** The profile of every program's addresses, written once for the tests that read it. */
  private static synchronized void profile() throws IOException {
    Path p = tmp.resolve("in/cpu.prof");
    if (!Files.exists(p)) {
      Files.createDirectories(p.getParent());
      writeProfile(p);
    }
  }

  @Test
  void theFleetJobNamesFramesFromHdfsAsFromLocalDiskAndAsAddr2line() throws Exception {
    profile();
    SparkSession spark = TestSpark.get();
    Map<List<Object>, List<SourceLine>> local = fleetJob(spark, bins.toString(), "local");
    Map<List<Object>, List<SourceLine>> remote = fleetJob(spark, hdfsBins, "hdfs");

    int expected = 2;
    for (Program p : programs.values()) {
      expected += p.vaddrByOffset().size();
    }
    assertEquals(expected, local.size(), "locations of the local run");
    assertEquals(local.keySet(), remote.keySet(), "the same locations");
    int differ = 0;
    List<String> examples = new ArrayList<>();
    for (Map.Entry<List<Object>, List<SourceLine>> e : local.entrySet()) {
      if (!Objects.equals(e.getValue(), remote.get(e.getKey()))) {
        differ++;
        if (examples.size() < 10) {
          examples.add(e.getKey() + ": local " + e.getValue() + ", HDFS " + remote.get(e.getKey()));
        }
      }
    }
    assertEquals(
        0, differ, "chains from HDFS differ from local disk:\n" + String.join("\n", examples));

    for (Map.Entry<String, Program> e : programs.entrySet()) {
      Program p = e.getValue();
      Map<Long, List<SourceLine>> want =
          Addr2line.chains(p.names(), new ArrayList<>(p.vaddrByOffset().values()), home);
      List<long[]> sized = sizedSymbols(p.names());
      List<long[]> fdes = new ArrayList<>(); // read from readelf the first time one is needed
      int same = 0;
      int inlined = 0;
      int padding = 0;
      int cfi = 0;
      List<String> wrong = new ArrayList<>();
      for (Map.Entry<Long, Long> at : p.vaddrByOffset().entrySet()) {
        List<SourceLine> got = remote.get(List.of(e.getKey(), at.getKey()));
        List<SourceLine> ref = want.get(at.getValue());
        // The job leaves lines null where addr2line prints ?? for the function.
        if (printed(got == null ? List.of() : got).equals(printed(ref))) {
          same++;
          inlined += got != null && got.size() > 1 ? 1 : 0;
        } else if (ref.isEmpty() && callFrameName(p, fdes, got, at.getValue())) {
          // Code no symbol names (the PLT): addr2line prints ??, the symbolizer names the
          // call-frame entry that holds it, MODULE+0xSTART (docs/symbolization.md).
          cfi++;
        } else if (got == null && outside(sized, at.getValue())) {
          // Bytes past every symbol's end (alignment padding): addr2line names the symbol before,
          // the symbolizer, as llvm-symbolizer, names nothing (docs/symbolization.md).
          padding++;
        } else if (wrong.size() < 10) {
          wrong.add(
              e.getKey()
                  + "+0x"
                  + Long.toHexString(at.getKey())
                  + ": addr2line "
                  + ref
                  + ", job "
                  + got);
        }
      }
      System.out.printf(
          "%s from %s: %d of %d locations agree with addr2line -f -i -C -e %s"
              + " (%d with inlined frames), %d in padding past every symbol, %d named by call"
              + " frame%n",
          e.getKey(),
          hdfsBins,
          same,
          p.vaddrByOffset().size(),
          p.names().getFileName(),
          inlined,
          padding,
          cfi);
      if (!wrong.isEmpty()) {
        fail(
            e.getKey()
                + ": "
                + (p.vaddrByOffset().size() - same - padding - cfi)
                + " locations differ from"
                + " addr2line:\n"
                + String.join("\n", wrong));
      }
    }
    assertTrue(
        remote.entrySet().stream()
            .filter(e -> e.getKey().get(0).equals(MISSING))
            .allMatch(e -> e.getValue() == null),
        "a module in no folder has no names");
  }

  /**
   * The stripped worker read from HDFS with no debug file anywhere in {@code --binaries}: its DWARF
   * comes from a real debuginfod (elfutils) by its build ID, fetched once into the executors'
   * cache, and the names equal {@code llvm-symbolizer}'s on the unstripped build (and the names the
   * run with the debug file on HDFS gave).
   */
  @Test
  void aStrippedBinaryOnHdfsGetsItsDwarfFromDebuginfod() throws Exception {
    DebuginfodServer.require();
    ExternalTool.require("llvm-symbolizer", "llvm");
    profile();
    Program worker = programs.get(WORKER);
    org.apache.hadoop.fs.Path strippedDir = new org.apache.hadoop.fs.Path("/bins-stripped");
    fs.copyFromLocalFile(
        false,
        true,
        new org.apache.hadoop.fs.Path(worker.runtime().toUri()),
        new org.apache.hadoop.fs.Path(strippedDir, WORKER.substring(1)));
    String stripped = fs.makeQualified(strippedDir).toString();
    Path served = Files.createDirectories(tmp.resolve("served"));
    Files.copy(worker.names(), served.resolve("worker.debug"));
    Path cache = tmp.resolve("debuginfod-cache");
    SparkSession spark = TestSpark.get();
    Map<List<Object>, List<SourceLine>> got;
    try (DebuginfodServer server =
        DebuginfodServer.start(
            served, tmp.resolve("debuginfod"), List.of("/buildid/" + workerId + "/debuginfo"))) {
      long asked = server.requests("debuginfo");
      got =
          fleetJob(
              spark,
              stripped,
              "hdfs-debuginfod",
              "--debuginfod",
              server.url.toString(),
              "--debuginfod-cache",
              cache.toString());
      assertEquals(asked + 1, server.requests("debuginfo"), "fetched once");
    }
    assertTrue(
        Files.isRegularFile(cache.resolve(workerId + "/debuginfo")), "cached in elfutils' layout");
    Map<List<Object>, List<SourceLine>> withDebugFile = fleetJob(spark, hdfsBins, "hdfs-again");

    // llvm-symbolizer on the unstripped build, at the same addresses: raw names (the job's
    // symbol), so that the demanglers' styles (lambdas, templates) do not differ, and demangled.
    Path full = tmp.resolve("build/worker.full");
    List<Long> offsets = new ArrayList<>(worker.vaddrByOffset().keySet());
    List<Long> vaddrs = offsets.stream().map(worker.vaddrByOffset()::get).toList();
    List<List<SourceLine>> raw = llvmSymbolizer(full, vaddrs, "--no-demangle");
    List<List<SourceLine>> demangled = llvmSymbolizer(full, vaddrs, "-C");
    int same = 0;
    int symbolName = 0;
    int llvmNone = 0;
    int plt = 0;
    int sameDemangled = 0;
    int sameAsDebugFile = 0;
    int inlined = 0;
    List<String> wrong = new ArrayList<>();
    for (int i = 0; i < offsets.size(); i++) {
      List<SourceLine> chain = got.get(List.of(WORKER, offsets.get(i)));
      if (Objects.equals(chain, withDebugFile.get(List.of(WORKER, offsets.get(i))))) {
        sameAsDebugFile++;
      }
      List<SourceLine> c = chain == null ? List.of() : chain;
      List<String> symbols = c.stream().map(SourceLine::symbol).toList();
      List<String> functions = c.stream().map(SourceLine::function).toList();
      if (functions.equals(names(demangled.get(i)))) {
        sameDemangled++;
      }
      List<String> ref = names(raw.get(i));
      if (symbols.equals(ref)) {
        same++;
        inlined += ref.size() > 1 ? 1 : 0;
      } else if (!ref.isEmpty()
          && symbols.size() == ref.size()
          && symbols.subList(0, ref.size() - 1).equals(ref.subList(0, ref.size() - 1))
          && (ref.get(ref.size() - 1).startsWith(symbols.get(symbols.size() - 1) + ".")
              || ref.get(ref.size() - 1)
                  .replaceAll("([CD])[12]E", "$1E")
                  .equals(symbols.get(symbols.size() - 1).replaceAll("([CD])[12]E", "$1E")))) {
        // llvm-symbolizer names the out-of-line frame by the ELF symbol holding the address
        // (--use-symbol-table): main.cold for main's cold part, a D1 constructor alias for the
        // D2 DWARF names; DWARF and addr2line (the job's reference, above) name the function.
        symbolName++;
      } else if (ref.isEmpty() && !symbols.isEmpty()) {
        // llvm-symbolizer prints ?? where DWARF, addr2line and the job name a function (.constprop
        // and .isra clones' first bytes).
        llvmNone++;
      } else if (ref.equals(List.of("_init"))
          && symbols.size() == 1
          && symbols.get(0).startsWith("worker+0x")) {
        // The PLT: llvm-symbolizer stretches the size-0 _init over it, the job names the
        // call-frame entry that holds it (docs/symbolization.md).
        plt++;
      } else if (wrong.size() < 10) {
        wrong.add(
            WORKER
                + "+0x"
                + Long.toHexString(offsets.get(i))
                + ": llvm-symbolizer "
                + ref
                + ", job "
                + symbols);
      }
    }
    System.out.printf(
        "%s stripped on %s, DWARF from debuginfod: %d of %d locations agree with llvm-symbolizer"
            + " -f -i --no-demangle on the unstripped build (%d with inlined frames); %d differ"
            + " only in the out-of-line frame's ELF symbol name (main.cold, D1/D2), %d are named"
            + " by DWARF where llvm-symbolizer prints ??, %d are PLT stubs llvm-symbolizer calls"
            + " _init; %d agree with llvm-symbolizer -C (demangler styles"
            + " differ); %d equal to the run with the debug file on HDFS%n",
        WORKER,
        stripped,
        same,
        offsets.size(),
        inlined,
        symbolName,
        llvmNone,
        plt,
        sameDemangled,
        sameAsDebugFile);
    assertEquals(offsets.size(), sameAsDebugFile, "the same chains as with the debug file");
    assertTrue(inlined > 0, "inlined frames");
    int differ = offsets.size() - same - symbolName - llvmNone - plt;
    assertTrue(wrong.isEmpty(), differ + " differ:\n" + String.join("\n", wrong));
  }

  /** {@code llvm-symbolizer --output-style=GNU -a -f -i FLAG} of {@code bin} at each address. */
  private static List<List<SourceLine>> llvmSymbolizer(Path bin, List<Long> vaddrs, String flag)
      throws Exception {
    StringBuilder in = new StringBuilder();
    for (long v : vaddrs) {
      in.append("0x").append(Long.toHexString(v)).append('\n');
    }
    Path addrs = Files.createTempFile(tmp, "addresses", ".txt");
    Files.writeString(addrs, in);
    String out =
        dev.fleetprof.symbols.testing.Toolchain.sh(
            tmp,
            "llvm-symbolizer --obj='"
                + bin
                + "' --output-style=GNU -a -f -i "
                + flag
                + " --debug-file-directory=/nonexistent < '"
                + addrs
                + "'");
    List<List<SourceLine>> chains = dev.fleetprof.symbols.testing.Toolchain.parseChains(out);
    assertEquals(vaddrs.size(), chains.size(), "one llvm-symbolizer answer per address");
    return chains;
  }

  /** The function names of a chain, without llvm-symbolizer's ?? for none. */
  private static List<String> names(List<SourceLine> chain) {
    return chain.stream().map(SourceLine::function).filter(f -> !f.equals("??")).toList();
  }

  /** The [start, end) of every defined symbol with a size in {@code names}, from nm. */
  private static List<long[]> sizedSymbols(Path names) throws Exception {
    List<long[]> ranges = new ArrayList<>();
    Pattern sym = Pattern.compile("^([0-9a-f]+) ([0-9a-f]+) \\S \\S");
    for (String line : tool(home, "nm", "-S", "--defined-only", names.toString()).split("\n")) {
      Matcher m = sym.matcher(line);
      if (m.find()) {
        long start = Long.parseUnsignedLong(m.group(1), 16);
        ranges.add(new long[] {start, start + Long.parseUnsignedLong(m.group(2), 16)});
      }
    }
    assertFalse(ranges.isEmpty(), "nm finds sized symbols in " + names);
    return ranges;
  }

  private static final Pattern FDE = Pattern.compile(" FDE .* pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");

  /** The {@code [start, end)} of each call-frame entry of the program's runtime file (readelf). */
  private static List<long[]> callFrameRanges(Program p) throws Exception {
    List<long[]> out = new ArrayList<>();
    for (String line :
        tool(home, "readelf", "--debug-dump=frames", p.runtime().toString()).split("\n")) {
      Matcher m = FDE.matcher(line);
      if (m.find()) {
        out.add(
            new long[] {
              Long.parseUnsignedLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16)
            });
      }
    }
    return out;
  }

  /**
   * Whether {@code got} is the one name {@code MODULE+0xSTART} of a call-frame entry of the runtime
   * file ({@code fdes}, from readelf) whose range holds {@code vaddr}.
   */
  private static boolean callFrameName(
      Program p, List<long[]> fdes, List<SourceLine> got, long vaddr) throws Exception {
    if (got == null || got.size() != 1) {
      return false;
    }
    if (fdes.isEmpty()) {
      fdes.addAll(callFrameRanges(p));
    }
    for (long[] fde : fdes) {
      String name = p.runtime().getFileName() + "+0x" + Long.toHexString(fde[0]);
      if (vaddr >= fde[0] && vaddr < fde[1] && name.equals(got.get(0).function())) {
        return true;
      }
    }
    return false;
  }

  private static boolean outside(List<long[]> ranges, long vaddr) {
    return ranges.stream().noneMatch(r -> vaddr >= r[0] && vaddr < r[1]);
  }

  /**
   * What addr2line prints of a chain: function, file, line; a file without a line ({@code
   * crtstuff.c:?}, from an STT_FILE symbol) is null by {@link SourceLine}'s contract.
   */
  private static List<List<Object>> printed(List<SourceLine> chain) {
    return chain.stream()
        .map(l -> Arrays.<Object>asList(l.function(), l.line() == 0 ? null : l.file(), l.line()))
        .toList();
  }

  // ---- HadoopBinaryFiles and the search on HDFS ----

  @Test
  void hadoopBinaryFilesKeepsTheContractOnHdfsAndLocalDisk() throws Exception {
    HadoopBinaryFiles files =
        new HadoopBinaryFiles(TestSpark.get().sparkContext().hadoopConfiguration());
    for (String root : List.of(bins.toString(), "file:" + bins, hdfsBins)) {
      String server = files.join(root, "server");
      String lib = files.join(root, LIBHOT);
      assertTrue(files.isFile(server), server);
      assertFalse(files.isFile(root), "a folder: " + root);
      assertFalse(files.isFile(files.join(root, "nothing-here")), root);
      assertFalse(files.isFile(files.join(server, "child")), "under a file: " + server);

      List<String> inLib = files.filesIn(files.join(root, "opt/fleet/lib"));
      assertEquals(1, inLib.size(), "only files, not the .debug folder: " + inLib);
      assertTrue(inLib.get(0).endsWith(LIBHOT) && files.isFile(inLib.get(0)), inLib.toString());
      assertEquals(List.of(), files.filesIn(server), "a file is no folder: " + server);
      assertEquals(List.of(), files.filesIn(files.join(root, "nothing-here")), root);
      assertEquals(List.of(), files.filesIn(files.join(server, "child")), server + "/child");

      for (String p : List.of(server, lib)) {
        Path copy = files.local(p);
        assertEquals(
            -1L,
            Files.mismatch(copy, bins.resolve(p.substring(root.length() + 1))),
            "the bytes of " + p);
        assertEquals(copy, files.local(p), "one copy per JVM of " + p);
      }
    }
  }

  /**
   * With a build ID, the search probes {@code DIR/<module path>/<id>} while {@code DIR/<module
   * path>} is the binary itself (a file): on HDFS that path is under a file. The binary is found
   * there all the same, and its debug file by build ID, on both file systems.
   */
  @Test
  void theBuildIdSearchFindsTheSameFilesOnHdfsAsOnLocalDisk() throws Exception {
    HadoopBinaryFiles files =
        new HadoopBinaryFiles(TestSpark.get().sparkContext().hadoopConfiguration());
    Map<String, List<List<Object>>> chains = new TreeMap<>();
    for (String root : List.of(bins.toString(), hdfsBins)) {
      BinaryLocator locator = new BinaryLocator(files, List.of(root), false);
      BinaryLocator.Found found = locator.find(WORKER, workerId);
      assertTrue(found.ok(), root + ": " + found.problem());
      BinarySymbols s = found.symbols();
      assertEquals(files.join(root, WORKER), found.binary());
      assertEquals(
          files.join(
              root,
              ".build-id/" + workerId.substring(0, 2) + "/" + workerId.substring(2) + ".debug"),
          found.debugFile());
      List<List<Object>> all = new ArrayList<>();
      for (long off : programs.get(WORKER).vaddrByOffset().keySet()) {
        all.add(List.of(off, printed(s.atFileOffset(off))));
      }
      chains.put(root.startsWith("hdfs:") ? "hdfs" : "local", all);

      s.close();
      String otherId = (workerId.startsWith("0") ? "1" : "0") + workerId.substring(1);
      BinaryLocator.Found other = locator.find(WORKER, otherId);
      assertFalse(other.ok(), "another build ID: " + other.binary());
      assertTrue(
          other.problem().contains(files.join(root, WORKER) + " (build-id mismatch: " + workerId),
          other.problem());
    }
    assertEquals(chains.get("local"), chains.get("hdfs"));
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
