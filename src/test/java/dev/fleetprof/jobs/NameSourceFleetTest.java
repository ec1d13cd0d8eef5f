package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.pprof.GoPprof;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.Addr2line;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where each name came from ({@code name_source}), through the fleet job, on programs built here
 * with gcc and named the ways binutils says they can be:
 *
 * <ul>
 *   <li>{@code prog-g}, built with {@code -g}: {@code readelf -S} lists {@code .debug_info}, so its
 *       names are {@code dwarf};
 *   <li>{@code prog-sym}, built with {@code -g0}, not stripped, without a build ID: its function's
 *       {@code nm} symbol holds the address, so {@code symtab};
 *   <li>{@code libmix.so}, built {@code -g0} and stripped ({@code strip --strip-all}): its exported
 *       function is in {@code nm -D}, so {@code dynsym}; its static function is in no {@code nm -D}
 *       symbol but in an FDE {@code readelf --debug-dump=frames} prints, so {@code cfi}, named
 *       {@code libmix.so+0xSTART} by that FDE;
 *   <li>{@code libgone.so}, a module no binary is given for: no name, null.
 * </ul>
 *
 * A gperftools profile is written here with chosen counts at those addresses, so the summary's
 * shares are computed here from the counts; the pprof, folded and flame-graph outputs show the
 * {@code cfi} name as a guess ({@code go tool pprof -raw}: no function at its location). A pprof
 * file's own names are {@code profile}, the functions {@code go tool pprof -raw} prints.
 */
class NameSourceFleetTest {
  private static final String DAY = "2026-11-22";
  private static final long PERIOD_MICROS = 10_000;
  private static final long NANOS_PER_SAMPLE = PERIOD_MICROS * 1000;
  private static final String OPT = "/opt/prov/";

  private static final String LIBMIX =
      """
      __attribute__((noinline, noclone)) static unsigned long mix_static(unsigned long x) {
        for (int i = 0; i < 7; i++) x = (x * 6364136223846793005UL + 1442695040888963407UL) ^ (x >> 29);
        return x;
      }
      unsigned long mix_exported(unsigned long x) {
        unsigned long y = x;
        for (int i = 0; i < 5; i++) y = (y << 7) ^ (y >> 3) ^ (unsigned long) i;
        return mix_static(y) ^ mix_static(x + 1);
      }
      """;

  @TempDir static Path tmp;
  private static SparkSession spark;
  private static Path bins;
  private static String out;
  private static FleetSummary summary;

  /** A sampled address: its module, file offset, count, and what binutils says should name it. */
  private record Sampled(
      String module, long offset, long count, String source, String function, String remedy) {}

  private static final List<Sampled> SAMPLED = new ArrayList<>();

  @BeforeAll
  static void buildProfileAndAggregate() throws Exception {
    Toolchain.requireBinutils();
    spark = TestSpark.get();
    Path build = Files.createDirectories(tmp.resolve("build"));
    bins = Files.createDirectories(tmp.resolve("bins"));
    Path home = tmp.resolve("home");
    String prog;
    try (InputStream in =
        NameSourceFleetTest.class.getResourceAsStream("/dev/fleetprof/symbols/elf/cfi_prog.c")) {
      prog = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path withDwarf = Toolchain.gcc(build, "prog-g", prog, "-O2", "-g");
    Path symtab = Toolchain.gcc(build, "prog-sym", prog, "-O2", "-g0", "-Wl,--build-id=none");
    Path fullLib =
        Toolchain.gcc(
            build,
            "libmix-full.so",
            LIBMIX,
            "-O2",
            "-g0",
            "-fPIC",
            "-shared",
            "-Wl,--build-id=sha1");
    Path lib = build.resolve("libmix.so");
    Toolchain.run(build, List.of("strip", "--strip-all", "-o", lib.toString(), fullLib.toString()));

    // What binutils says of each binary.
    Set<String> progGSections = sectionNames(withDwarf);
    assertTrue(progGSections.contains(".debug_info"), "prog-g has DWARF: " + progGSections);
    Set<String> progSymSections = sectionNames(symtab);
    assertFalse(progSymSections.contains(".debug_info"), "prog-sym has no DWARF");
    assertTrue(progSymSections.contains(".symtab"), "prog-sym keeps its symbol table");
    assertFalse(progSymSections.contains(".gnu_debuglink"), "prog-sym links no debug file");
    assertFalse(
        Toolchain.run(build, List.of("readelf", "-n", symtab.toString())).contains("Build ID"),
        "prog-sym has no build ID");
    Set<String> libSections = sectionNames(lib);
    assertFalse(libSections.contains(".debug_info") || libSections.contains(".symtab"));
    assertTrue(
        Toolchain.run(build, List.of("readelf", "-n", lib.toString())).contains("Build ID"),
        "libmix.so has a build ID");

    // prog-g: hash_bytes by DWARF.
    Toolchain.NmSymbol hash = symbol(Toolchain.nm(build, withDwarf), "hash_bytes");
    add("prog-g", withDwarf, hash.value() + 4, 5, "dwarf", "hash_bytes", null, home);
    // prog-sym: hash_bytes by its .symtab symbol (nm: it holds the address).
    Toolchain.NmSymbol plain = symbol(Toolchain.nm(build, symtab), "hash_bytes");
    assertTrue(plain.size() > 4);
    add(
        "prog-sym",
        symtab,
        plain.value() + 4,
        3,
        "symtab",
        "hash_bytes",
        "no DWARF, no build ID (debuginfod cannot help) and no .gnu_debuglink: only an"
            + " unstripped build would give lines",
        home);
    // libmix.so: the exported function by .dynsym, the static one by its FDE alone.
    String libRemedy =
        "no DWARF: a debug file (.gnu_debuglink / build-id, under --binaries) or a debuginfod"
            + " server (DEBUGINFOD_URLS) would give lines";
    List<Toolchain.NmSymbol> dynamic = Toolchain.nm(build, lib, "-D");
    Toolchain.NmSymbol exported = symbol(dynamic, "mix_exported");
    add("libmix.so", lib, exported.value() + 2, 6, "dynsym", "mix_exported", libRemedy, home);
    Toolchain.NmSymbol hidden = symbol(Toolchain.nm(build, fullLib), "mix_static");
    assertTrue(hidden.size() > 6, "mix_static is " + hidden.size() + " bytes");
    TreeMap<Long, Long> fdes = Addr2line.fdes(lib, home);
    for (long at : new long[] {hidden.value() + 1, hidden.value() + 5}) {
      for (Toolchain.NmSymbol d : dynamic) {
        assertFalse(
            at >= d.value() && at < d.value() + Math.max(d.size(), 1),
            "no exported symbol holds mix_static's code: " + d);
      }
      Map.Entry<Long, Long> fde = fdes.floorEntry(at);
      assertTrue(fde != null && at < fde.getValue(), "an FDE holds mix_static's code");
      add(
          "libmix.so",
          lib,
          at,
          at == hidden.value() + 1 ? 2 : 1,
          "cfi",
          "libmix.so+0x" + Long.toHexString(fde.getKey()),
          libRemedy,
          home);
    }
    // libgone.so: no binary given.
    SAMPLED.add(
        new Sampled(
            OPT + "libgone.so", 0x1234, 4, null, null, "binary not found under --binaries"));

    for (Path p : List.of(withDwarf, symtab, lib)) {
      Files.copy(p, bins.resolve(p.getFileName()));
    }
    Path day = Files.createDirectories(tmp.resolve("in/date=" + DAY + "/host=h1"));
    Files.write(day.resolve("cpu.prof"), profile());
    out = tmp.resolve("out").toString();
    summary =
        FleetAggregate.run(
            spark,
            FleetAggregate.Args.parse(
                new String[] {
                  "--input",
                  tmp.resolve("in").toString(),
                  "--output",
                  out,
                  "--binaries",
                  bins.toString(),
                  "--no-module-paths",
                  "--pprof",
                  tmp.resolve("cpu.pb.gz").toString(),
                  "--folded",
                  tmp.resolve("cpu.folded").toString(),
                  "--flamegraph",
                  tmp.resolve("cpu.html").toString()
                }));
  }

  private static Set<String> sectionNames(Path bin) throws Exception {
    Set<String> out = new TreeSet<>();
    for (Toolchain.Section s : Toolchain.sections(tmp, bin)) {
      out.add(s.name());
    }
    return out;
  }

  private static Toolchain.NmSymbol symbol(List<Toolchain.NmSymbol> symbols, String name) {
    return symbols.stream()
        .filter(s -> s.name().equals(name) && s.size() > 0)
        .findFirst()
        .orElseThrow(() -> new AssertionError("nm lists no " + name + ": " + symbols));
  }

  /** A sample at {@code vaddr} of {@code bin}, at the file offset readelf's segments give. */
  private static void add(
      String name,
      Path bin,
      long vaddr,
      long count,
      String source,
      String function,
      String remedy,
      Path home)
      throws Exception {
    Long offset = Addr2line.fileOffset(Addr2line.loads(bin, home), vaddr);
    assertNotNull(offset, name + ": 0x" + Long.toHexString(vaddr) + " in no load segment");
    SAMPLED.add(new Sampled(OPT + name, offset, count, source, function, remedy));
  }

  /** Where each module is mapped in the profile: the whole file, from offset 0. */
  private static final Map<String, Long> BASES =
      Map.of(
          OPT + "prog-g", 0x560000000000L,
          OPT + "prog-sym", 0x561000000000L,
          OPT + "libmix.so", 0x7f0000000000L,
          OPT + "libgone.so", 0x7f1000000000L);

  /**
   * A gperftools CPU profile (64-bit slots, 100 Hz) with one single-frame record per sampled
   * address, as the profiler lays it out: header, records (count, depth, pc), trailer, maps text.
   */
  private static byte[] profile() {
    ByteBuffer b = ByteBuffer.allocate(8192).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0).putLong(3).putLong(0).putLong(PERIOD_MICROS).putLong(0);
    for (Sampled s : SAMPLED) {
      b.putLong(s.count()).putLong(1).putLong(BASES.get(s.module()) + s.offset());
    }
    b.putLong(0).putLong(1).putLong(0);
    StringBuilder maps = new StringBuilder();
    BASES.forEach(
        (module, base) ->
            maps.append(
                String.format("%x-%x r-xp 00000000 00:00 7 %s%n", base, base + 0x100000, module)));
    b.put(maps.toString().getBytes(StandardCharsets.US_ASCII));
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  @Test
  void eachLocationSaysWhereItsNameCameFrom() {
    Map<String, Row> byLocation = new HashMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/locations")
            .selectExpr("module", "offset", "name_source", "lines")
            .collectAsList()) {
      byLocation.put(r.getString(0) + "+" + r.getLong(1), r);
    }
    assertEquals(SAMPLED.size(), byLocation.size(), byLocation.keySet().toString());
    for (Sampled s : SAMPLED) {
      Row r = byLocation.get(s.module() + "+" + s.offset());
      assertNotNull(r, s.toString());
      assertEquals(s.source(), r.getString(2), s.toString());
      if (s.function() == null) {
        assertTrue(r.isNullAt(3), s + ": unnamed");
      } else {
        List<Row> lines = r.getList(3);
        // The out-of-line function is the chain's last entry.
        assertEquals(s.function(), lines.get(lines.size() - 1).getString(0), s.toString());
        boolean withLine = lines.stream().anyMatch(l -> !l.isNullAt(2));
        assertEquals(s.source().equals("dwarf"), withLine, s + ": only DWARF gives lines");
      }
    }
  }

  @Test
  void aFunctionHasTheSourceOfItsLocations() {
    Map<String, String> got = new TreeMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/functions")
            .selectExpr("module", "function", "name_source")
            .collectAsList()) {
      got.put(r.getString(0) + " | " + r.getString(1), r.getString(2));
    }
    Map<String, String> want = new TreeMap<>();
    for (Sampled s : SAMPLED) {
      want.put(s.module() + " | " + s.function(), s.source());
    }
    assertEquals(want, got);
  }

  /**
   * The order of trust (dwarf > profile > symtab > dynsym > cfi) decides a function whose locations
   * were named from different sources.
   */
  @Test
  void aFunctionNamedSeveralWaysHasTheMostTrustedSource() {
    org.apache.spark.sql.types.StructType frame =
        new org.apache.spark.sql.types.StructType().add("module", "string").add("offset", "long");
    org.apache.spark.sql.types.StructType stackType =
        new org.apache.spark.sql.types.StructType()
            .add("date", "date")
            .add("format", "string")
            .add("kind", "string")
            .add("measure", "string")
            .add("unit", "string")
            .add("frames", org.apache.spark.sql.types.DataTypes.createArrayType(frame))
            .add("count", "decimal(38,0)")
            .add("value", "decimal(38,0)");
    List<String> sources = List.of("cfi", "dynsym", "symtab", "profile", "dwarf");
    List<Row> stacks = new ArrayList<>();
    List<Row> symbols = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      for (int j = i; j < sources.size(); j++) {
        // Function f_i_j: named from source i at one offset and from source j at another.
        String module = "m" + i + "_" + j;
        for (int k : new int[] {i, j}) {
          long offset = 16L * k;
          stacks.add(
              org.apache.spark.sql.RowFactory.create(
                  java.sql.Date.valueOf(DAY),
                  "gperftools",
                  "sample",
                  "cpu",
                  "nanoseconds",
                  List.of(org.apache.spark.sql.RowFactory.create(module, offset)).toArray(),
                  BigDecimal.ONE,
                  BigDecimal.TEN));
          symbols.add(
              org.apache.spark.sql.RowFactory.create(
                  "gperftools",
                  module,
                  offset,
                  new Object[] {org.apache.spark.sql.RowFactory.create("f", null, null, "f")},
                  null,
                  sources.get(k),
                  null));
        }
      }
    }
    Map<String, String> got = new TreeMap<>();
    for (Row r :
        FleetStages.functions(
                spark.createDataFrame(stacks, stackType),
                spark.createDataFrame(symbols, Symbolization.SYMBOLIZED).dropDuplicates())
            .selectExpr("module", "name_source")
            .collectAsList()) {
      got.put(r.getString(0), r.getString(1));
    }
    Map<String, String> want = new TreeMap<>();
    for (int i = 0; i < sources.size(); i++) {
      for (int j = i; j < sources.size(); j++) {
        want.put("m" + i + "_" + j, sources.get(j)); // the later in the list is the more trusted
      }
    }
    assertEquals(want, got);
  }

  /**
   * The summary: per module, the share of its CPU time named from each source and what would name
   * the rest, all computed here from the counts written into the profile.
   */
  @Test
  void theSummarySaysHowMuchOfEachModuleIsNamedAndWhatWouldNameTheRest() {
    Map<String, Map<String, Long>> bySource = new LinkedHashMap<>();
    Map<String, String> remedies = new HashMap<>();
    long total = 0;
    for (Sampled s : SAMPLED) {
      bySource
          .computeIfAbsent(s.module(), m -> new LinkedHashMap<>())
          .merge(s.source() == null ? "none" : s.source(), s.count(), Long::sum);
      if (s.remedy() != null) {
        remedies.put(s.module(), s.remedy());
      }
      total += s.count();
    }
    String report = summary.symbolization();
    assertNotNull(report);
    List<String> order = List.of("dwarf", "profile", "symtab", "dynsym", "cfi", "none");
    for (Map.Entry<String, Map<String, Long>> m : bySource.entrySet()) {
      long moduleCount = m.getValue().values().stream().mapToLong(Long::longValue).sum();
      List<String> shares = new ArrayList<>();
      for (String source : order) {
        Long n = m.getValue().get(source);
        if (n != null) {
          shares.add(source + " " + percent(n, moduleCount));
        }
      }
      String want =
          "    "
              + m.getKey()
              + " "
              + BigDecimal.valueOf(moduleCount * NANOS_PER_SAMPLE)
                  .movePointLeft(9)
                  .setScale(3, RoundingMode.HALF_UP)
                  .toPlainString()
              + " s ("
              + percent(moduleCount, total)
              + "): "
              + String.join(", ", shares)
              + (remedies.containsKey(m.getKey()) && !debuginfodUrls()
                  ? "; " + remedies.get(m.getKey())
                  : "");
      assertTrue(
          report.lines().anyMatch(l -> l.equals(want)) || wantsDebuginfod(report, m.getKey()),
          "the summary has\n" + want + "\nin\n" + report);
    }
    long named = SAMPLED.stream().filter(s -> s.function() != null).count();
    assertTrue(
        report.startsWith("symbolized " + named + " of " + SAMPLED.size() + " locations"), report);
  }

  /** Whether this JVM's DEBUGINFOD_URLS names servers, which the job then asks. */
  private static boolean debuginfodUrls() {
    String urls = System.getenv("DEBUGINFOD_URLS");
    return urls != null && !urls.isBlank();
  }

  /**
   * With DEBUGINFOD_URLS set, the job asked its servers, and the remedy says how that went: only
   * the module's line is checked to be there.
   */
  private static boolean wantsDebuginfod(String report, String module) {
    return debuginfodUrls() && report.lines().anyMatch(l -> l.startsWith("    " + module + " "));
  }

  private static String percent(long part, long whole) {
    return BigDecimal.valueOf(part)
            .multiply(BigDecimal.valueOf(100))
            .divide(BigDecimal.valueOf(whole), 1, RoundingMode.HALF_UP)
            .toPlainString()
        + "%";
  }

  /**
   * pprof: the boundary-only name's location has its address and mapping but no function ({@code go
   * tool pprof -raw}); the names from symbols have theirs.
   */
  @Test
  void pprofShowsABoundaryOnlyNameAsAnAddress() throws Exception {
    PprofRaw raw = new GoPprof(tmp.resolve("home")).raw(tmp.resolve("cpu.pb.gz"));
    Map<String, PprofRaw.Location> byAddress = new HashMap<>();
    for (PprofRaw.Location l : raw.locations.values()) {
      if (l.mappingId() > 0) {
        byAddress.put(raw.mappings.get(l.mappingId()).file() + "+" + l.address(), l);
      }
    }
    int cfi = 0;
    for (Sampled s : SAMPLED) {
      PprofRaw.Location l = byAddress.get(s.module() + "+" + s.offset());
      assertNotNull(l, s + " in " + byAddress.keySet());
      if ("cfi".equals(s.source()) || s.source() == null) {
        assertEquals(List.of(), l.lines(), s + ": no function");
        cfi += "cfi".equals(s.source()) ? 1 : 0;
      } else {
        assertFalse(l.lines().isEmpty(), s.toString());
        assertEquals(s.function(), l.lines().get(l.lines().size() - 1).function(), s.toString());
      }
    }
    assertEquals(2, cfi);
  }

  /**
   * The flame graph marks the boundary-only name's box ({@code [cfi]}); folded stacks write it as
   * it is, each sample's value in nanoseconds.
   */
  @Test
  void theFlameGraphMarksTheGuessAndFoldedStacksKeepIt() throws Exception {
    String html = Files.readString(tmp.resolve("cpu.html"));
    List<String> folded = Files.readAllLines(tmp.resolve("cpu.folded"));
    for (Sampled s : SAMPLED) {
      if ("cfi".equals(s.source())) {
        assertTrue(html.contains("\"" + s.function() + " [cfi]\""), s + " marked in the page");
        assertTrue(
            folded.contains(s.function() + " " + s.count() * NANOS_PER_SAMPLE),
            s + " in " + folded);
      } else if (s.function() != null) {
        assertTrue(html.contains("\"" + s.function() + "\""), s + " in the page");
        assertFalse(html.contains(s.function() + " [cfi]"), s + " is no guess");
        assertTrue(folded.contains(s.function() + " " + s.count() * NANOS_PER_SAMPLE));
      }
    }
  }

  /** A pprof file's own names are {@code profile}: the functions go tool pprof -raw prints. */
  @Test
  void aPprofFilesOwnNamesAreProfile() throws Exception {
    Path pprof =
        SampleData.FLEET.resolve(
            SampleData.fleetProfile("2026-11-19", "edge-1", "gateway", "cpu.pprof"));
    Path dir = Files.createDirectories(tmp.resolve("pprof-in/date=" + DAY));
    Files.copy(pprof, dir.resolve("cpu.pprof"));
    String pprofOut = tmp.resolve("pprof-out").toString();
    FleetSummary s =
        FleetAggregate.run(
            spark,
            FleetAggregate.Args.parse(
                new String[] {
                  "--input",
                  tmp.resolve("pprof-in").toString(),
                  "--output",
                  pprofOut,
                  "--no-module-paths"
                }));
    PprofRaw raw = new GoPprof(tmp.resolve("home")).raw(pprof);
    Set<String> want = new TreeSet<>();
    for (PprofRaw.Location l : raw.locations.values()) {
      for (PprofRaw.Line line : l.lines()) {
        want.add(line.function());
      }
    }
    assertFalse(want.isEmpty());
    Set<String> got = new TreeSet<>();
    for (Row r :
        spark
            .read()
            .parquet(pprofOut + "/locations")
            .selectExpr("name_source", "lines IS NULL", "lines.function")
            .collectAsList()) {
      assertEquals(r.getBoolean(1) ? null : "profile", r.getString(0), r.toString());
      if (!r.getBoolean(1)) {
        got.addAll(r.getList(2));
      }
    }
    assertEquals(want, got);
    for (Row r :
        spark
            .read()
            .parquet(pprofOut + "/functions")
            .selectExpr("function", "name_source")
            .collectAsList()) {
      assertEquals(r.isNullAt(0) ? null : "profile", r.getString(1), r.toString());
    }
    assertTrue(
        s.symbolization()
            .lines()
            .anyMatch(l -> l.startsWith("    ") && l.endsWith(": profile 100.0%")),
        s.symbolization());

    // jobs/symbolize, with no binaries, keeps what the profile named.
    List<Row> before = namedLocations(pprofOut);
    SymbolizeOutput.run(
        spark,
        SymbolizeOutput.Args.parse(new String[] {"--output", pprofOut, "--no-module-paths"}));
    assertEquals(before, namedLocations(pprofOut));
  }

  private static List<Row> namedLocations(String output) throws Exception {
    return FleetOutput.read(spark, output, "locations")
        .selectExpr("format", "module", "offset", "name_source", "to_json(lines)")
        .orderBy("format", "module", "offset")
        .collectAsList();
  }
}
