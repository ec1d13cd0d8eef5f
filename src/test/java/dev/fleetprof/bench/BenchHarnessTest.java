package dev.fleetprof.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fleetprof.bench.ReferenceDecode.Totals;
import dev.fleetprof.bench.StackPoolProfiles.Written;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import dev.fleetprof.format.gperftools.ProcMapsParser;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.TestSources;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark checks each row against what its generators say they wrote; these tests check the
 * generators and the reference loops themselves against the project's decoders (and pprof), so a
 * broken harness fails here rather than printing plausible numbers.
 */
class BenchHarnessTest {
  @TempDir Path dir;

  @Test
  void referenceLoopsReadWhatTheGeneratorWrote() throws Exception {
    Path file = dir.resolve("cpu.prof");
    // Past the read loop's 8 MiB buffer, so records straddle refills.
    Written w =
        new StackPoolProfiles(5_000, 1).write(file, 20L << 20, StackPoolProfiles.bases(2), 3);
    assertEquals(Files.size(file), w.bytes());
    Totals decoder = ReferenceDecode.projectDecoder(file);
    assertEquals(w.records(), decoder.records());
    assertEquals(w.countSum(), decoder.countSum());
    assertEquals(decoder, ReferenceDecode.readLoop(file));
    assertEquals(decoder, ReferenceDecode.mappedLoop(file));
  }

  @Test
  void gmonGeneratorMatchesTheDecoder() throws Exception {
    Path file = dir.resolve("gmon.out");
    Written w = LargeGmon.write(file, 3L << 20, 5);
    assertEquals(Files.size(file), w.bytes());
    long[] got = readAll(GmonFile.open(TestSources.file(file), GmonOptions.auto()));
    assertEquals(w.records(), got[0]);
    assertEquals(w.countSum(), got[1]);
  }

  @Test
  void dcpiGeneratorMatchesTheDecoder() throws Exception {
    Path file = dir.resolve("dcpi.prof");
    Written w = LargeDcpi.write(file, 3L << 20, 7);
    assertEquals(Files.size(file), w.bytes());
    // Reading to the end also checks the footer against the data.
    long[] got = readAll(DcpiProfileReader.open(TestSources.file(file)));
    assertEquals(w.records(), got[0]);
    assertEquals(w.countSum(), got[1]);
  }

  @Test
  void pprofGeneratorMatchesTheDecoderAndGoToolPprof() throws Exception {
    Path file = dir.resolve("large.pb");
    Written w = LargePprof.write(file, 6L << 20, 9);
    assertEquals(Files.size(file), w.bytes());
    long records = 0;
    long sum = 0;
    try (var r = dev.fleetprof.format.pprof.PprofReader.open(TestSources.file(file), null)) {
      while (r.next()) {
        records++;
        sum += r.count();
      }
    }
    assertEquals(w.records(), records);
    assertEquals(w.countSum(), sum);
    ExternalTool.require("go", "golang-go");
    ExternalTool.Result raw =
        ExternalTool.run(
            List.of("go", "tool", "pprof", "-raw", "-symbolize=none", file.toString()),
            dir.resolve("home"),
            Map.of(),
            300);
    assertEquals(0, raw.exit(), raw.stderr());
    assertEquals(w.countSum(), dev.fleetprof.testing.PprofRaw.parse(raw.stdout()).totalSamples());
  }

  /** The bench programs at a small scale, built once for the fleet tests. */
  @TempDir static Path programs;

  private static Map<String, BinaryCode> code;

  private static synchronized Map<String, BinaryCode> programs() throws Exception {
    if (code == null) {
      ExternalTool.require("gcc", "gcc");
      ExternalTool.require("g++", "g++");
      ExternalTool.require("objdump", "binutils");
      new BenchPrograms(41, 0.05).build(programs);
      Map<String, BinaryCode> m = new LinkedHashMap<>();
      for (BenchPrograms.Spec s : BenchPrograms.SPECS) {
        m.put(s.file(), BinaryCode.read(programs.resolve(s.file())));
      }
      code = m;
    }
    return code;
  }

  @Test
  void fleetIsLaidOutByDateAndHost() throws Exception {
    Written w = new BinaryFleet(programs(), 9).writeFleet(dir, 250, 11);
    List<Path> files = profiles(dir);
    assertEquals(250, files.size());
    assertTrue(
        files.stream()
            .allMatch(f -> f.toString().matches(".*/date=2026-11-1\\d/host=web\\d{3}/cpu\\.prof")),
        files.get(0).toString());
    assertEquals(2, files.stream().map(f -> f.getParent().getParent()).distinct().count());
    long records = 0;
    long counts = 0;
    for (Path f : files) {
      // 10-60 KB of records, plus the one that crosses the target, the trailer and the maps text.
      assertTrue(Files.size(f) >= 10_000 && Files.size(f) < 64_000, f + ": " + Files.size(f));
      Totals t = ReferenceDecode.projectDecoder(f);
      records += t.records();
      counts += t.countSum();
    }
    assertEquals(w.records(), records);
    assertEquals(w.countSum(), counts);
  }

  @Test
  void pprofMergeKeepsEveryProfile() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    assumeTrue(ci || ScanBenchmark.onPath("go"), "needs go (go tool pprof)");
    Written w = new BinaryFleet(programs(), 13).writeFleet(dir.resolve("fleet"), 4, 17);
    List<String> cmd = ScanBenchmark.pprofMerge(dir.resolve("merged.pb.gz"));
    profiles(dir.resolve("fleet")).forEach(f -> cmd.add(f.toString()));
    Processes.Outcome o =
        Processes.run(cmd, dir.resolve("pprof.log"), 300, ScanBenchmark.pprofEnv(dir));
    assertTrue(o.ok(), o.output());
    assertEquals(w.countSum(), ScanBenchmark.pprofSampleCount(dir.resolve("merged.pb.gz"), dir));
  }

  /**
   * The deep fleet is what gperftools' profiler wrote, with the deep chains it is for: go tool
   * pprof reads each file to the samples and the record count the generator reported (from {@link
   * ReferenceDecode}, no project code), with chains up to the profiler's cap (253 pcs in gperftools
   * 2.10).
   */
  @Test
  void deepFleetIsRealProfilesWithDeepChains() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    assumeTrue(ci || ScanBenchmark.onPath("go"), "needs go (go tool pprof)");
    assumeTrue(
        ci || Files.exists(Path.of("/usr/include/gperftools/profiler.h")),
        "needs libgoogle-perftools-dev (libprofiler)");
    Written w = DeepFleet.write(dir.resolve("fleet"), 6);
    List<Path> files = profiles(dir.resolve("fleet"));
    assertEquals(6, files.size());
    long samples = 0;
    long records = 0;
    int deepest = 0;
    for (Path f : files) {
      Processes.Outcome o =
          Processes.run(
              ScanBenchmark.pprofRaw(
                  dir.resolve("fleet/_bin/deep_service").toString(), f.toString()),
              dir.resolve("raw.txt"),
              300,
              ScanBenchmark.pprofEnv(dir));
      assertTrue(o.ok(), o.output());
      PprofRaw raw = PprofRaw.parse(o.output());
      assertEquals(1_000_000_000L / DeepFleet.FREQUENCY, raw.period, f.toString());
      samples += raw.totalSamples();
      records += raw.samples.size();
      for (PprofRaw.Sample s : raw.samples) {
        deepest = Math.max(deepest, s.locationIds().size());
      }
    }
    assertEquals(w.countSum(), samples);
    assertEquals(w.records(), records);
    assertTrue(samples >= 6 * 30, "samples: " + samples);
    assertEquals(253, deepest);
  }

  /**
   * The fleet's frames are code the binaries hold, checked with binutils and the project's maps
   * parser, not with the generator's own reading of them: through the maps text each pc of a bench
   * module is a file offset of that binary; a leaf is where objdump starts an instruction; a caller
   * is a return address, just after a call (objdump) of the function nm says holds the frame below.
   * Also the generator's count of distinct locations, which the bench holds the job's symbolizer
   * to.
   */
  @Test
  void fleetFramesAreCodeTheBinariesHold() throws Exception {
    Map<String, BinaryCode> code = programs();
    ExternalTool.require("nm", "binutils");
    BinaryFleet fleet = new BinaryFleet(code, 21);
    Written w = fleet.writeFleet(dir, 12, 23);
    Map<String, Listing> listings = new HashMap<>();
    Set<String> locations = new HashSet<>();
    long binaryFrames = 0;
    long callers = 0;
    for (Path f : profiles(dir)) {
      byte[] bytes = Files.readAllBytes(f);
      CpuProfileHeader h = CpuProfileHeader.parse(f.toString(), bytes, bytes.length, bytes.length);
      CpuProfileReader r =
          CpuProfileReader.wholeFile(
              f.toString(), h, new ByteArrayInputStream(bytes), bytes.length, true);
      List<long[]> chains = new ArrayList<>();
      while (r.next()) {
        chains.add(Arrays.copyOf(r.pcs(), r.depth()));
      }
      int mapsAt = (int) r.stopOffset() + 24;
      MappingIndex maps =
          new MappingIndex(
              ProcMapsParser.parse(
                  new String(bytes, mapsAt, bytes.length - mapsAt, StandardCharsets.US_ASCII)));
      for (long[] chain : chains) {
        Set<String> inner = null;
        for (int i = 0; i < chain.length; i++) {
          int m = maps.find(chain[i]);
          Mapping mapping = m < 0 ? null : maps.get(m);
          if (mapping == null || !mapping.path().startsWith("/opt/fleet/")) {
            assertTrue(mapping == null || mapping.path().isEmpty(), () -> String.valueOf(mapping));
            inner = null;
            continue;
          }
          assertTrue(mapping.executable(), mapping::toString);
          String base = mapping.path().substring(mapping.path().lastIndexOf('/') + 1);
          Listing l = listings.computeIfAbsent(base, b -> Listing.of(programs.resolve(b)));
          long offset = mapping.fileOffset(chain[i]);
          long vaddr;
          try (ElfFile elf = ElfFile.open(programs.resolve(base))) {
            vaddr = elf.fileOffsetToVaddr(offset).orElseThrow();
          }
          binaryFrames++;
          locations.add(mapping.path() + "+" + Long.toHexString(offset - (i > 0 ? 1 : 0)));
          if (i == 0) {
            assertTrue(
                l.instructions.containsKey(vaddr),
                base + ": leaf 0x" + Long.toHexString(vaddr) + " is no instruction boundary");
          } else {
            Map.Entry<Long, String> call = l.instructions.lowerEntry(vaddr);
            assertTrue(
                call.getValue().startsWith("call"),
                base
                    + ": 0x"
                    + Long.toHexString(vaddr)
                    + " follows "
                    + call.getValue()
                    + ", not a call");
            if (inner != null) {
              String target =
                  call.getValue().replaceAll(".*<([^>+]+)>.*", "$1").replace("@plt", "");
              assertTrue(
                  inner.contains(target),
                  base
                      + ": the call before 0x"
                      + Long.toHexString(vaddr)
                      + " calls "
                      + target
                      + ", the frame below is in "
                      + inner);
            }
            callers++;
          }
          // A .cold part is jumped to from its function: the call was to the function.
          inner = new HashSet<>();
          for (String fn : l.functionsAt(vaddr)) {
            inner.add(fn.contains(".cold") ? fn.substring(0, fn.indexOf(".cold")) : fn);
          }
        }
      }
    }
    assertTrue(binaryFrames > 1000 && callers > binaryFrames / 2, binaryFrames + " " + callers);
    assertEquals(locations.size(), w.binaryLocations());
  }

  /** A binary as binutils lists it: instructions by address, functions by start (nm -S). */
  private record Listing(
      TreeMap<Long, String> instructions, TreeMap<Long, Map.Entry<Long, Set<String>>> functions) {
    static Listing of(Path binary) {
      try {
        TreeMap<Long, String> insns = new TreeMap<>();
        for (String line :
            BinaryCode.run(
                List.of("objdump", "-d", "-w", "--no-show-raw-insn", binary.toString()))) {
          var m = java.util.regex.Pattern.compile("^\\s*([0-9a-f]+):\\s+(\\S.*)$").matcher(line);
          if (m.matches()) {
            insns.put(Long.parseLong(m.group(1), 16), m.group(2));
          }
        }
        // Start -> (size, every name at the start: aliases such as .localalias included).
        TreeMap<Long, Map.Entry<Long, Set<String>>> fns = new TreeMap<>();
        for (String line :
            BinaryCode.run(List.of("nm", "-S", "--defined-only", binary.toString()))) {
          String[] f = line.split(" ");
          if (f.length == 4 && "tTwW".contains(f[2])) {
            fns.computeIfAbsent(
                    Long.parseLong(f[0], 16),
                    k -> Map.entry(Long.parseLong(f[1], 16), new HashSet<>()))
                .getValue()
                .add(f[3]);
          }
        }
        return new Listing(insns, fns);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    Set<String> functionsAt(long vaddr) {
      Map.Entry<Long, Map.Entry<Long, Set<String>>> f = functions.floorEntry(vaddr);
      assertTrue(
          f != null && vaddr < f.getKey() + f.getValue().getKey(),
          "0x" + Long.toHexString(vaddr) + " is in no function");
      return f.getValue().getValue();
    }
  }

  /**
   * The symbolizer rows' parsers read what llvm-symbolizer and addr2line print, one answer per
   * address, and their answers are BinarySymbols' (a row comparing garbage would fail here).
   */
  @Test
  void symbolizerRowsReadTheToolsAnswers() throws Exception {
    Map<String, BinaryCode> code = programs();
    ExternalTool.require("llvm-symbolizer", "llvm");
    ExternalTool.require("addr2line", "binutils");
    SymbolizerBench b =
        new SymbolizerBench(new Inputs.Binaries(programs, code, "", 0), 2_000, dir, 5);
    assertEquals(2_000, b.addresses());
    Map<Path, List<List<String>>> java = new LinkedHashMap<>();
    b.javaIncludingTables(java);
    Map<Path, List<List<String>>> llvm = new LinkedHashMap<>();
    b.llvmSymbolizer(llvm);
    Map<Path, List<List<String>>> addr2line = new LinkedHashMap<>();
    b.addr2line(addr2line);
    long[] withLlvm = SymbolizerBench.agreement(java, llvm);
    long[] withAddr2line = SymbolizerBench.agreement(java, addr2line);
    assertEquals(2_000, withLlvm[3]); // every address named
    assertTrue(
        withLlvm[0] >= 1_980,
        () -> "llvm-symbolizer: " + Arrays.toString(withLlvm) + b.differences(java, llvm, 5));
    assertTrue(
        withAddr2line[2] >= 1_980,
        () -> "addr2line: " + Arrays.toString(withAddr2line) + b.differences(java, addr2line, 5));
    // Inlined frames are there to be compared: the helpers gcc inlined.
    assertTrue(SymbolizerBench.framesPerAddress(llvm) > 1.1);
  }

  private static List<Path> profiles(Path root) throws Exception {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> p.getFileName().toString().equals("cpu.prof")).sorted().toList();
    }
  }

  /** {rows, sum of counts}. */
  private static long[] readAll(ProfileRecordReader r) throws Exception {
    try (r) {
      long rows = 0;
      long counts = 0;
      while (r.next()) {
        rows++;
        counts += r.count();
      }
      return new long[] {rows, counts};
    }
  }
}
