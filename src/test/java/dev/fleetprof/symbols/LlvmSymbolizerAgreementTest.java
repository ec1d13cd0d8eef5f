package dev.fleetprof.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.ElfSection;
import dev.fleetprof.symbols.elf.ElfSymbol;
import dev.fleetprof.symbols.elf.SymbolTable;
import dev.fleetprof.symbols.testing.ProfiledRun;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names from ELF symbol tables against {@code llvm-symbolizer} (LLVM 14) on the stripped binaries
 * Debian installs: real runs of xz (liblzma), gzip, sha256sum and wc, Debian's python3 compressing
 * with zlib (libz) and a C++ word count (libstdc++) are profiled with libprofiler, and every code
 * address of every sample in every module they loaded, plus a sweep over each module's code
 * sections and the first, last and past-the-end bytes of each of its function symbols, is looked up
 * by both. They must agree on the function name, or on there being none; the one kind of
 * disagreement the design chooses (a size-0 symbol ends with its section here) is counted and
 * printed apart.
 *
 * <p>llvm-symbolizer runs with {@code --debug-file-directory=/nonexistent}, so that where Debian
 * debug files are installed (libc6-dbg) it reads the same symbol table as this code, not DWARF.
 */
class LlvmSymbolizerAgreementTest {
  @TempDir static Path dir;

  /** Sampled file offsets, by module path, over all profiled runs. */
  static final Map<String, TreeSet<Long>> sampled = new TreeMap<>();

  /** Modules the workload must have sampled (file name prefixes). */
  static final List<String> EXPECTED =
      List.of(
          "liblzma.so.5", "libz.so.1", "libc.so.6", "libstdc++.so.6", "xz", "gzip", "sha256sum");

  private static final String WORD_COUNT =
      """
      #include <algorithm>
      #include <fstream>
      #include <iostream>
      #include <map>
      #include <sstream>
      #include <string>
      #include <vector>
      int main(int argc, char **argv) {
        std::map<std::string, long> counts;
        for (int pass = 0; pass < 3; pass++) {
          std::ifstream in(argv[1]);
          std::string line, word;
          while (std::getline(in, line)) {
            std::istringstream words(line);
            while (words >> word) counts[word + std::to_string(pass)]++;
          }
        }
        std::vector<std::pair<long, std::string>> byCount;
        for (auto &e : counts) byCount.emplace_back(e.second, e.first);
        std::sort(byCount.begin(), byCount.end());
        std::ofstream out(argv[2]);
        for (auto &e : byCount) out << e.second << ' ' << e.first << '\\n';
        return 0;
      }
      """;

  @BeforeAll
  static void profileRealPrograms() throws Exception {
    ExternalTool.require("llvm-symbolizer", "llvm");
    ExternalTool.require("xz", "xz-utils");
    ExternalTool.require("gzip", "gzip");
    ExternalTool.require("sha256sum", "coreutils");
    ExternalTool.require("g++", "g++");
    Toolchain.requireBinutils();
    ProfiledRun.requireLibprofiler();
    if (!Files.isExecutable(Path.of("/usr/bin/python3"))) {
      ExternalTool.require("/usr/bin/python3 (Debian's, linked with libz.so.1)", "python3");
    }
    // Text that compresses like text: lines of words drawn with a skewed distribution.
    Random random = new Random(29);
    String[] vocabulary = new String[5000];
    for (int i = 0; i < vocabulary.length; i++) {
      StringBuilder w = new StringBuilder();
      for (int k = 2 + random.nextInt(9); k > 0; k--) {
        w.append((char) ('a' + random.nextInt(26)));
      }
      vocabulary[i] = w.toString();
    }
    StringBuilder text = new StringBuilder();
    while (text.length() < 6_000_000) {
      for (int k = 4 + random.nextInt(12); k > 0; k--) {
        double u = random.nextDouble();
        text.append(vocabulary[(int) (u * u * u * vocabulary.length)]).append(' ');
      }
      text.append('\n');
    }
    Files.writeString(dir.resolve("input.txt"), text);
    Path wc = dir.resolve("wordcount.cpp");
    Files.writeString(wc, WORD_COUNT);
    Toolchain.run(
        dir, List.of("g++", "-O2", "-o", dir.resolve("wordcount").toString(), wc.toString()));

    List<Path> profiles =
        List.of(
            ProfiledRun.run(dir, "xz", List.of("xz", "-9", "-k", "-T1", "input.txt")),
            ProfiledRun.run(dir, "gzip", List.of("gzip", "-9", "-k", "input.txt")),
            // Not sort: it takes SIGPROF over for its temporary-file cleanup, and the profiler's
            // first tick then ends it.
            ProfiledRun.run(dir, "sha256sum", List.of("sha256sum", "input.txt")),
            ProfiledRun.run(dir, "wc", List.of("wc", "-w", "-l", "-m", "input.txt")),
            ProfiledRun.run(
                dir,
                "python3-zlib",
                List.of(
                    "/usr/bin/python3",
                    "-c",
                    "import zlib\n"
                        + "d = open('input.txt', 'rb').read()\n"
                        + "for level in (1, 6, 9):\n"
                        + "    assert zlib.decompress(zlib.compress(d, level)) == d\n")),
            ProfiledRun.run(dir, "wordcount", List.of("./wordcount", "input.txt", "counts.txt")));
    for (Path p : profiles) {
      ProfiledRun.sampledOffsets(p)
          .forEach((m, offs) -> sampled.computeIfAbsent(m, k -> new TreeSet<>()).addAll(offs));
    }
  }

  /** What one module's comparison found. */
  static final class Tally {
    int sampledAddresses;
    int sweptAddresses;
    int agree;
    int agreeNamed;
    final Map<String, Integer> disagreements = new TreeMap<>();
    final List<String> unexplained = new ArrayList<>();
    final Map<NameSource, Integer> sampledSources = new TreeMap<>();
    int sampledNearestWouldMisname;
    int sampledNearestOtherAlias;

    void disagree(String category) {
      disagreements.merge(category, 1, Integer::sum);
    }
  }

  @Test
  void everySampledAndSweptAddressNamesWhatLlvmSymbolizerNames() throws Exception {
    List<String> failures = new ArrayList<>();
    int modules = 0;
    long checked = 0;
    long agreed = 0;
    for (Map.Entry<String, TreeSet<Long>> e : sampled.entrySet()) {
      Path module = Path.of(e.getKey());
      if (!Files.isRegularFile(module)) {
        continue;
      }
      String base = module.getFileName().toString();
      try (ElfFile elf = ElfFile.open(module);
          BinarySymbols symbols = new BinarySymbols(ElfFile.open(module), null, base)) {
        if (BinarySymbols.hasDwarf(elf)) {
          System.out.println(module + ": has DWARF, not a symbol-table comparison; skipped");
          continue;
        }
        Tally t = compare(elf, symbols, module, e.getValue());
        modules++;
        checked += t.sampledAddresses + t.sweptAddresses;
        agreed += t.agree;
        System.out.printf(
            "%s (%s): %d sampled + %d swept addresses; %d agree with llvm-symbolizer"
                + " (%d named, %d unnamed by both); disagreements %s;"
                + " sampled names from %s; the nearest preceding symbol (addr2line's rule) would"
                + " have named %d sampled addresses after a function that does not contain them"
                + " (and %d after another alias of their function)%n",
            base,
            SymbolTable.read(elf).source(),
            t.sampledAddresses,
            t.sweptAddresses,
            t.agree,
            t.agreeNamed,
            t.agree - t.agreeNamed,
            t.disagreements,
            t.sampledSources,
            t.sampledNearestWouldMisname,
            t.sampledNearestOtherAlias);
        if (!t.unexplained.isEmpty()) {
          failures.add(base + ": " + t.unexplained);
        }
        if (base.startsWith("liblzma")) {
          assertTrue(
              t.sampledSources.getOrDefault(NameSource.CFI, 0) > 0,
              "xz spends time in liblzma functions .dynsym does not name");
        }
      }
    }
    System.out.printf(
        "llvm-symbolizer agreement: %d modules, %d of %d addresses agree%n",
        modules, agreed, checked);
    for (String expected : EXPECTED) {
      // The libraries do the work; the programs themselves get only a few distinct addresses.
      int atLeast = expected.contains(".so") ? 10 : 1;
      assertTrue(
          sampled.entrySet().stream()
              .anyMatch(
                  m ->
                      Path.of(m.getKey()).getFileName().toString().startsWith(expected)
                          && m.getValue().size() >= atLeast),
          "the workload samples " + expected + " (" + sampled.keySet() + ")");
    }
    assertEquals(List.of(), failures);
  }

  private static Tally compare(
      ElfFile elf, BinarySymbols symbols, Path module, TreeSet<Long> offsets) throws Exception {
    Tally t = new Tally();
    TreeSet<Long> sampledVaddrs = new TreeSet<>();
    for (long off : offsets) {
      elf.fileOffsetToVaddr(off).ifPresent(sampledVaddrs::add);
    }
    TreeSet<Long> all = new TreeSet<>(sampledVaddrs);
    List<ElfSection> code =
        elf.sections().stream()
            .filter(s -> s.isAlloc() && s.isExecutable() && !s.isNobits() && s.size() > 0)
            .toList();
    long codeBytes = code.stream().mapToLong(ElfSection::size).sum();
    long step = Math.max(1, codeBytes / 40_000);
    for (ElfSection s : code) {
      for (long a = s.addr(); a < s.addr() + s.size(); a += step) {
        all.add(a);
      }
    }
    // Symbol edges, from nm (the dynamic table when there is no other).
    boolean hasSymtab = elf.sections().stream().anyMatch(s -> s.name().equals(".symtab"));
    List<Toolchain.NmSymbol> nm =
        hasSymtab ? Toolchain.nm(dir, module) : Toolchain.nm(dir, module, "-D");
    Map<Long, Long> sizeAt = new TreeMap<>();
    for (Toolchain.NmSymbol s : nm) {
      sizeAt.merge(s.value(), s.size(), Math::max);
      if ("TtWwi".indexOf(s.type()) >= 0) {
        for (long a :
            new long[] {
              s.value() - 1,
              s.value(),
              s.value() + Math.max(s.size(), 1) - 1,
              s.value() + s.size(),
              s.value() + s.size() + 1
            }) {
          all.add(a);
        }
      }
    }
    List<Long> addresses = new ArrayList<>(all);
    List<Toolchain.LlvmName> llvm = Toolchain.llvmSymbolizerNames(dir, module, addresses);
    SymbolTable table = SymbolTable.read(elf);
    for (int i = 0; i < addresses.size(); i++) {
      long a = addresses.get(i);
      boolean isSampled = sampledVaddrs.contains(a);
      if (isSampled) {
        t.sampledAddresses++;
      } else {
        t.sweptAddresses++;
      }
      SymbolizedAddress got = symbols.lookupAddress(a);
      String ours =
          got.source() == NameSource.SYMTAB || got.source() == NameSource.DYNSYM
              ? got.lines().get(0).symbol()
              : null;
      if (isSampled) {
        t.sampledSources.merge(got.source(), 1, Integer::sum);
        Optional<ElfSymbol> nearest = table.lookup(a);
        if (nearest.isPresent() && !nearest.get().name().equals(ours)) {
          if (ours == null) {
            t.sampledNearestWouldMisname++;
          } else {
            t.sampledNearestOtherAlias++; // bfd takes the first of equal aliases, llvm the last
          }
        }
      }
      Toolchain.LlvmName theirs = llvm.get(i);
      if (java.util.Objects.equals(ours, theirs.name())) {
        t.agree++;
        t.agreeNamed += ours != null ? 1 : 0;
        continue;
      }
      // llvm-symbolizer lets a size-0 symbol run on to the next symbol across a section's end
      // (e.g. _init over .plt); SymbolTable stops it at the end of its section.
      if (ours == null
          && theirs.start() != null
          && sizeAt.getOrDefault(theirs.start(), -1L) == 0
          && !sameSection(code, theirs.start(), a)) {
        t.disagree("size-0 symbol past its section's end");
        continue;
      }
      t.disagree("unexplained");
      if (t.unexplained.size() < 20) {
        t.unexplained.add(
            "0x"
                + Long.toHexString(a)
                + ": ours "
                + ours
                + " ("
                + got.source().label()
                + "), llvm-symbolizer "
                + theirs.name());
      }
    }
    return t;
  }

  private static boolean sameSection(List<ElfSection> code, long a, long b) {
    for (ElfSection s : code) {
      if (s.holdsAddress(a)) {
        return s.holdsAddress(b);
      }
    }
    return false;
  }
}
