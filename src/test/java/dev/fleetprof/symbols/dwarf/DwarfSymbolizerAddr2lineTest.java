package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.SymbolTable;
import dev.fleetprof.symbols.testing.Toolchain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds real C and C++ programs with gcc/g++ and checks, for thousands of addresses each (every
 * instruction start and the byte before it), that {@link DwarfSymbolizer#lookup} gives the very
 * inline chain {@code addr2line -a -f -i} prints: the same number of entries, functions, files and
 * lines.
 */
class DwarfSymbolizerAddr2lineTest {
  private static final String[] C_SOURCES = {"main.c", "util.c", "include/helpers.h"};
  private static final String[] CPP_SOURCES = {"main.cpp", "include/shapes.hpp"};

  @TempDir Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
    ExternalTool.require("g++", "g++");
  }

  /** addr2line's ELF symbol choice, as production wires it in: the project's ELF reader's. */
  static FunctionSymbols functionSymbols(Path bin) throws IOException {
    try (ElfFile elf = ElfFile.open(bin)) {
      return SymbolTable.read(elf).functionSymbols();
    }
  }

  /**
   * The chain addr2line prints for {@code a}: the symbolizer's, or where no unit covers the
   * address, the ELF symbol's name and file without a line ("??" where there is no symbol).
   */
  static List<SourceLine> addr2lineChain(DwarfSymbolizer sym, FunctionSymbols symbols, long a) {
    List<SourceLine> chain = sym.lookup(a);
    if (!chain.isEmpty()) {
      return chain;
    }
    FunctionSymbols.Symbol s = symbols.nearest(a);
    String f = s == null ? "??" : s.name();
    return List.of(new SourceLine(f, f, s == null ? null : s.file(), 0));
  }

  /** Compiles the C program from relative paths (comp_dir joining) with extra options. */
  private Path c(String name, String... options) throws Exception {
    return compile("gcc", "c", C_SOURCES, List.of("c/main.c", "c/util.c"), name, options);
  }

  private Path cpp(String name, String... options) throws Exception {
    return compile("g++", "cpp", CPP_SOURCES, List.of("cpp/main.cpp"), name, options);
  }

  private Path compile(
      String compiler,
      String lang,
      String[] sources,
      List<String> units,
      String name,
      String... options)
      throws Exception {
    Path src = dir.resolve(lang);
    if (!Files.exists(src)) {
      Toolchain.copyResources("dwarf/" + lang, src, sources);
    }
    Path out = dir.resolve(name);
    List<String> cmd = new ArrayList<>(List.of(compiler));
    cmd.addAll(List.of(options));
    cmd.add("-I" + lang + "/include");
    cmd.addAll(units);
    cmd.add("-o");
    cmd.add(out.toString());
    List<String> inDir = List.of("sh", "-c", "cd \"$0\" && exec \"$@\"", dir.toString());
    List<String> full = new ArrayList<>(inDir);
    full.addAll(cmd);
    Toolchain.run(dir, full);
    return out;
  }

  /** Compares every address; prints the agreement and the first disagreements; asserts 100%. */
  private void agree(String name, Path bin) throws Exception {
    agree(name, bin, null);
  }

  /**
   * As {@link #agree(String, Path)}; when addr2line reports DWARF errors for {@code bin} (binutils
   * 2.40 reads a 32-bit .debug_line's DW_FORM_line_strp with the 64-bit unit's offset size, so it
   * cannot read -gdwarf64 output and falls back to symbols), {@code reference} (the same code with
   * 32-bit DWARF, checked against addr2line itself) must give the same chains instead.
   */
  private void agree(String name, Path bin, Path reference) throws Exception {
    DwarfSections sections = Toolchain.dwarfSections(dir, bin);
    FunctionSymbols symbols = functionSymbols(bin);
    DwarfSymbolizer sym = DwarfSymbolizer.build(sections, symbols);
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 2000);
    StringBuilder stderr = new StringBuilder();
    List<Toolchain.Answer> answers = Toolchain.addr2lineChains(dir, bin, addrs, stderr);
    if (reference != null && stderr.toString().contains("DWARF error")) {
      String firstError = stderr.toString().lines().findFirst().orElse("");
      DwarfSymbolizer ref =
          DwarfSymbolizer.build(
              Toolchain.dwarfSections(dir, reference), functionSymbols(reference));
      agree(name + " (reference build with 32-bit DWARF)", reference);
      int same = 0;
      int inlined = 0;
      List<String> problems = new ArrayList<>();
      for (long a : addrs) {
        List<SourceLine> got = sym.lookup(a);
        List<SourceLine> want = ref.lookup(a);
        inlined += got.size() > 1 ? 1 : 0;
        if (got.equals(want)) {
          same++;
        } else if (problems.size() < 15) {
          problems.add(
              "0x"
                  + Long.toHexString(a)
                  + "\n  32-bit DWARF: "
                  + show(want)
                  + "\n  64-bit DWARF: "
                  + show(got));
        }
      }
      System.out.printf(
          "%s: addr2line cannot read it (\"%s\"); %d of %d addresses give the same"
              + " chain as the 32-bit DWARF build (%d with inlined frames)%n",
          name, firstError, same, addrs.size(), inlined);
      problems.forEach(System.out::println);
      assertEquals(addrs.size(), same, String.join("\n", problems));
      assertTrue(inlined > 0, "inlined frames are compared");
      return;
    }
    int agree = 0;
    int inlined = 0;
    int selfInconsistent = 0;
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < addrs.size(); i++) {
      long a = addrs.get(i);
      List<SourceLine> want = answers.get(i).lines();
      if (answers.get(i).firstDiffered()) {
        selfInconsistent++;
      }
      // Where no unit covers it, addr2line falls back to the ELF symbol table.
      List<SourceLine> got = addr2lineChain(sym, symbols, a);
      if (got.size() > 1) {
        inlined++;
      }
      if (got.equals(want)) {
        agree++;
      } else if (problems.size() < 15) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + "\n  addr2line: "
                + show(want)
                + "\n  ours:      "
                + show(got));
      }
    }
    System.out.printf(
        "%s: %d of %d addresses agree (%d with inlined frames; %d units, %d"
            + " functions; addr2line's first answer differed from its second for %d)%n",
        name, agree, addrs.size(), inlined, sym.unitCount(), sym.functionCount(), selfInconsistent);
    problems.forEach(System.out::println);
    for (int i = 0, shown = 0; i < addrs.size() && shown < 3; i++) {
      if (answers.get(i).firstDiffered()) {
        shown++;
        System.out.println(
            "  addr2line's first answer for 0x"
                + Long.toHexString(addrs.get(i))
                + ": "
                + show(answers.get(i).first())
                + "; then: "
                + show(answers.get(i).lines()));
      }
    }
    assertTrue(addrs.size() >= 2000, "at least 2000 addresses");
    assertEquals(addrs.size(), agree, name + ": disagreements:\n" + String.join("\n", problems));
  }

  static String show(List<SourceLine> chain) {
    StringBuilder b = new StringBuilder();
    for (SourceLine l : chain) {
      b.append(b.length() == 0 ? "" : " <- ")
          .append(l.function())
          .append(' ')
          .append(l.file() == null ? "??" : l.file())
          .append(':')
          .append(l.line());
    }
    return b.toString();
  }

  @Test
  void cO0() throws Exception {
    agree("c -O0", c("c-O0", "-O0", "-g"));
  }

  @Test
  void cO2() throws Exception {
    agree("c -O2", c("c-O2", "-O2", "-g"));
  }

  @Test
  void cO3Dwarf4() throws Exception {
    agree("c -O3 -gdwarf-4", c("c-O3-d4", "-O3", "-gdwarf-4"));
  }

  @Test
  void cO2Dwarf3And2() throws Exception {
    agree("c -O2 -gdwarf-3", c("c-O2-d3", "-O2", "-gdwarf-3"));
    agree("c -O2 -gdwarf-2", c("c-O2-d2", "-O2", "-gdwarf-2", "-gstrict-dwarf"));
  }

  @Test
  void cO2Dwarf64() throws Exception {
    agree("c -O2 -gdwarf64", c("c-O2-d64", "-O2", "-g", "-gdwarf64"), c("c-O2", "-O2", "-g"));
    agree(
        "c -O2 -gdwarf-4 -gdwarf64",
        c("c-O2-d4-64", "-O2", "-gdwarf-4", "-gdwarf64"),
        c("c-O2-d4", "-O2", "-gdwarf-4"));
  }

  @Test
  void cM32() throws Exception {
    agree("c -m32 -O2", c("c-m32", "-m32", "-O2", "-g"));
    agree("c -m32 -O0 -gdwarf-4", c("c-m32-O0", "-m32", "-O0", "-gdwarf-4"));
  }

  @Test
  void cCompressed() throws Exception {
    agree("c -O2 -gz=zlib", c("c-gz", "-O2", "-g", "-gz=zlib"));
  }

  @Test
  void cSharedLibrary() throws Exception {
    agree("c shared -O2", c("libc-shared.so", "-O2", "-g", "-fPIC", "-shared"));
  }

  @Test
  void cSplitFunctions() throws Exception {
    agree(
        "c -O2 -ffunction-sections -freorder-blocks-and-partition",
        c(
            "c-split",
            "-O2",
            "-g",
            "-ffunction-sections",
            "-Wl,--gc-sections",
            "-freorder-blocks-and-partition"));
  }

  @Test
  void cppO0() throws Exception {
    agree("c++ -O0", cpp("cpp-O0", "-O0", "-g"));
  }

  @Test
  void cppO2() throws Exception {
    agree("c++ -O2", cpp("cpp-O2", "-O2", "-g"));
  }

  @Test
  void cppO2Dwarf4() throws Exception {
    agree("c++ -O2 -gdwarf-4", cpp("cpp-O2-d4", "-O2", "-gdwarf-4"));
  }

  @Test
  void cppO2Dwarf64() throws Exception {
    agree(
        "c++ -O2 -gdwarf64",
        cpp("cpp-O2-d64", "-O2", "-g", "-gdwarf64"),
        cpp("cpp-O2", "-O2", "-g"));
  }

  @Test
  void cppM32() throws Exception {
    agree("c++ -m32 -O2", cpp("cpp-m32", "-m32", "-O2", "-g"));
  }

  @Test
  void cppSplitFunctions() throws Exception {
    agree(
        "c++ -O2 -ffunction-sections -freorder-blocks-and-partition",
        cpp(
            "cpp-split",
            "-O2",
            "-g",
            "-ffunction-sections",
            "-Wl,--gc-sections",
            "-freorder-blocks-and-partition"));
  }

  @Test
  void cppCompressedShared() throws Exception {
    agree("c++ shared -O2 -gz=zlib", cpp("libcpp.so", "-O2", "-g", "-gz=zlib", "-fPIC", "-shared"));
  }

  @Test
  void cLinkTimeOptimization() throws Exception {
    // LTO: the inlined instances refer to abstract origins in other units (DW_FORM_ref_addr).
    agree("c -flto -O2", c("c-lto", "-flto", "-O2", "-g"));
  }

  @Test
  void cppLinkTimeOptimization() throws Exception {
    agree("c++ -flto -O2", cpp("cpp-lto", "-flto", "-O2", "-g"));
  }

  @Test
  void cSplitDwarf() throws Exception {
    // Skeleton units (DW_UT_skeleton, DW_AT_addr_base, DW_AT_ranges in .debug_rnglists): the
    // functions are in the .dwo files, which this layer does not read, so an address gets its
    // line from the line table and its name from the ELF symbol table. binutils 2.40's addr2line
    // finds no unit at all in such binaries (it prints "main / ??:?"), so the expectation is
    // derived from the same code built without -gsplit-dwarf, itself checked against addr2line:
    // the same innermost file and line, the ELF symbol's name, no inlined frames.
    Path reference = c("c-split-ref", "-O2", "-g");
    agree("c -O2 (reference for -gsplit-dwarf)", reference);
    Path bin = c("c-split-dwarf", "-O2", "-g", "-gsplit-dwarf");
    DwarfSymbolizer split =
        DwarfSymbolizer.build(Toolchain.dwarfSections(dir, bin), functionSymbols(bin));
    DwarfSymbolizer ref = DwarfSymbolizer.build(Toolchain.dwarfSections(dir, reference));
    FunctionSymbols symbols = functionSymbols(bin);
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 2000);
    int same = 0;
    List<String> problems = new ArrayList<>();
    for (long a : addrs) {
      List<SourceLine> r = ref.lookup(a);
      List<SourceLine> want = List.of();
      if (!r.isEmpty() && r.get(0).file() != null) {
        FunctionSymbols.Symbol s = symbols.nearest(a);
        String f = s == null ? "??" : s.name();
        want = List.of(new SourceLine(f, f, r.get(0).file(), r.get(0).line()));
      }
      List<SourceLine> got = split.lookup(a);
      if (got.equals(want)) {
        same++;
      } else if (problems.size() < 15) {
        problems.add("0x" + Long.toHexString(a) + ": want " + show(want) + ", got " + show(got));
      }
    }
    System.out.printf(
        "c -O2 -gsplit-dwarf: %d of %d addresses as expected from the reference" + " build%n",
        same, addrs.size());
    problems.forEach(System.out::println);
    assertEquals(addrs.size(), same, String.join("\n", problems));
  }

  @Test
  void cppTypeUnits() throws Exception {
    // DWARF 4 type units are in .debug_types, which neither addr2line nor this reads.
    agree(
        "c++ -O2 -gdwarf-4 -fdebug-types-section",
        cpp("cpp-types4", "-O2", "-gdwarf-4", "-fdebug-types-section"));
    // DWARF 5 type units are in .debug_info (DW_UT_type). binutils 2.40 reads them as if they
    // were compile units: they share the line table but have no DW_AT_comp_dir and no
    // functions, and the first one found claims every address. Its answers are then the ELF
    // symbol's name with the line table's file not joined to the compilation directory. This
    // skips type units, so it must answer what the same code built without type units answers
    // (checked against addr2line), and each of addr2line's differing answers must be that one.
    Path reference = cpp("cpp-types-ref", "-O2", "-g");
    agree("c++ -O2 (reference for -fdebug-types-section)", reference);
    Path bin = cpp("cpp-types5", "-O2", "-g", "-fdebug-types-section");
    FunctionSymbols symbols = functionSymbols(bin);
    DwarfSymbolizer typed = DwarfSymbolizer.build(Toolchain.dwarfSections(dir, bin), symbols);
    DwarfSymbolizer ref =
        DwarfSymbolizer.build(Toolchain.dwarfSections(dir, reference), functionSymbols(reference));
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 2000);
    List<Toolchain.Answer> answers = Toolchain.addr2lineChains(dir, bin, addrs);
    int same = 0;
    int addr2lineAgrees = 0;
    int explained = 0;
    List<String> problems = new ArrayList<>();
    String prefix = dir.toString() + "/";
    for (int i = 0; i < addrs.size(); i++) {
      long a = addrs.get(i);
      List<SourceLine> got = typed.lookup(a);
      if (got.equals(ref.lookup(a))) {
        same++;
      } else if (problems.size() < 15) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + ": reference "
                + show(ref.lookup(a))
                + ", got "
                + show(got));
      }
      List<SourceLine> want = answers.get(i).lines();
      if (got.isEmpty() || got.equals(want)) {
        addr2lineAgrees++;
        continue;
      }
      FunctionSymbols.Symbol s = symbols.nearest(a);
      String f = s == null ? "??" : s.name();
      String file = got.get(0).file() == null ? null : got.get(0).file().replace(prefix, "");
      if (want.equals(List.of(new SourceLine(f, f, file, got.get(0).line())))) {
        explained++;
      } else if (problems.size() < 15) {
        problems.add(
            "0x" + Long.toHexString(a) + ": addr2line " + show(want) + ", got " + show(got));
      }
    }
    System.out.printf(
        "c++ -O2 -fdebug-types-section: %d of %d addresses give the reference"
            + " build's chain; addr2line agrees on %d and answers from a type unit on %d%n",
        same, addrs.size(), addr2lineAgrees, explained);
    problems.forEach(System.out::println);
    assertEquals(addrs.size(), same, String.join("\n", problems));
    assertEquals(addrs.size(), addr2lineAgrees + explained, String.join("\n", problems));
  }

  @Test
  void compilerWrittenLineTables() throws Exception {
    // gcc writes .debug_line itself instead of the assembler (other opcodes and header forms).
    agree("c -O2 -gno-as-loc-support", c("c-gcc-lines", "-O2", "-g", "-gno-as-loc-support"));
    agree(
        "c++ -O2 -gdwarf-4 -gno-as-loc-support",
        cpp("cpp-gcc-lines", "-O2", "-gdwarf-4", "-gno-as-loc-support"));
  }

  @Test
  void concurrentLookupsFromColdGiveTheSequentialAnswers() throws Exception {
    Path bin = cpp("cpp-threads", "-O2", "-g");
    DwarfSections sections = Toolchain.dwarfSections(dir, bin);
    FunctionSymbols symbols = functionSymbols(bin);
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 0);
    DwarfSymbolizer sequential = DwarfSymbolizer.build(sections, symbols);
    List<List<SourceLine>> want = new ArrayList<>();
    for (long a : addrs) {
      want.add(sequential.lookup(a));
    }
    for (int round = 0; round < 3; round++) {
      // A fresh index each round: every thread races to decode the line tables.
      DwarfSymbolizer shared = DwarfSymbolizer.build(sections, symbols);
      int threads = 4;
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      List<java.util.concurrent.Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t * 997;
        results.add(
            pool.submit(
                () -> {
                  int wrong = 0;
                  for (int i = 0; i < addrs.size(); i++) {
                    int k = (i + offset) % addrs.size();
                    if (!shared.lookup(addrs.get(k)).equals(want.get(k))) {
                      wrong++;
                    }
                  }
                  return wrong;
                }));
      }
      for (java.util.concurrent.Future<Integer> f : results) {
        assertEquals(0, f.get());
      }
      pool.shutdown();
    }
  }

  @Test
  void clang() throws Exception {
    boolean present = Toolchain.onPath("clang");
    if (!present) {
      System.out.println("clang: not installed (clang --version fails), clang binaries skipped");
    }
    Assumptions.assumeTrue(present, "clang is not installed");
    agreeWithLlvm(
        "clang -O2",
        compile(
            "clang", "c", C_SOURCES, List.of("c/main.c", "c/util.c"), "clang-c-O2", "-O2", "-g"));
    agreeWithLlvm(
        "clang++ -O2 -gdwarf-4",
        compile(
            "clang++",
            "cpp",
            CPP_SOURCES,
            List.of("cpp/main.cpp"),
            "clang-cpp-O2",
            "-O2",
            "-gdwarf-4"));
  }

  /**
   * clang's output is checked against llvm-symbolizer, LLVM's own reader of what clang writes:
   * binutils 2.40 drops the inlined subroutines whose ranges clang 14 writes with {@code
   * DW_FORM_rnglistx} (addr2line then prints {@code mix_all} where the code is {@code clamp_int}
   * inlined into it; llvm-symbolizer and this reader agree on the inner frame). Every address some
   * unit covers (llvm-symbolizer prints a file for it) must have the same chain, raw names on both
   * sides; llvm-symbolizer names the outermost frame after the ELF symbol, as {@link
   * DwarfFormsTest} explains.
   */
  private void agreeWithLlvm(String name, Path bin) throws Exception {
    ExternalTool.require("llvm-symbolizer", "llvm");
    FunctionSymbols symbols = functionSymbols(bin);
    DwarfSymbolizer sym = DwarfSymbolizer.build(Toolchain.dwarfSections(dir, bin), symbols);
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 2000);
    Path list = Toolchain.addressFile(dir, addrs);
    List<List<SourceLine>> llvm =
        Toolchain.parseChains(
            Toolchain.sh(
                dir,
                "llvm-symbolizer --output-style=GNU --no-demangle -a -f -i --obj="
                    + Toolchain.q(bin)
                    + " < "
                    + Toolchain.q(list)));
    assertEquals(addrs.size(), llvm.size());
    int covered = 0;
    int agree = 0;
    int inlined = 0;
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < addrs.size(); i++) {
      List<SourceLine> want = llvm.get(i);
      long a = addrs.get(i);
      List<SourceLine> got = new ArrayList<>(sym.lookup(a));
      if (want.isEmpty()
          || want.get(0).file() == null
          || (got.isEmpty() && want.size() == 1 && want.get(0).line() == 0)) {
        // No unit covers it: the ELF fallback, where llvm-symbolizer also prints the STT_FILE
        // name (crtstuff.c:0) and addr2line does not.
        continue;
      }
      covered++;
      inlined += got.size() > 1 ? 1 : 0;
      FunctionSymbols.Symbol elf = symbols.nearest(a);
      if (!got.isEmpty() && elf != null) {
        SourceLine last = got.get(got.size() - 1);
        got.set(got.size() - 1, new SourceLine(elf.name(), elf.name(), last.file(), last.line()));
        // Code the line table covers but no subprogram does: llvm-symbolizer names no function
        // ("??"), addr2line and this reader the ELF symbol around it.
        SourceLine outer = want.get(want.size() - 1);
        if (outer.function().equals("??")) {
          want = new ArrayList<>(want);
          want.set(
              want.size() - 1, new SourceLine(elf.name(), elf.name(), outer.file(), outer.line()));
        }
      }
      if (got.equals(want)) {
        agree++;
      } else if (problems.size() < 15) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + "\n  llvm-symbolizer: "
                + show(want)
                + "\n  ours:            "
                + show(got));
      }
    }
    System.out.printf(
        "%s: %d of %d addresses with DWARF agree with llvm-symbolizer (%d with"
            + " inlined frames; %d addresses in all)%n",
        name, agree, covered, inlined, addrs.size());
    problems.forEach(System.out::println);
    assertTrue(covered >= 1000 && inlined > 0, name + ": " + covered + " covered, " + inlined);
    assertEquals(covered, agree, name + ": disagreements:\n" + String.join("\n", problems));
  }
}
