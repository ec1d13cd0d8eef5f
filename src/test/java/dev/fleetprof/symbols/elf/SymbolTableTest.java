package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.testing.Toolchain;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SymbolTable.lookup against {@code addr2line -f} (binutils 2.40) on binaries without DWARF: every
 * byte of every code section of programs built here, and thousands of addresses in the system libc
 * (.dynsym only).
 */
class SymbolTableTest {
  @TempDir static Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
  }

  @ParameterizedTest
  @ValueSource(strings = {"pie", "nopie", "m32", "m32nopie", "lld", "shared", "object"})
  void everyCodeByteNamesTheFunctionAddr2lineNames(String variant) throws Exception {
    if (variant.equals("lld")) {
      ExternalTool.require("ld.lld", "lld");
    }
    Path bin = TestPrograms.build(dir, variant);
    List<Toolchain.Section> sections = Toolchain.sections(dir, bin);
    for (Toolchain.Section s : sections) {
      assertFalse(
          s.name().startsWith(".debug") || s.name().startsWith(".zdebug"),
          bin + " has DWARF (" + s.name() + "): addr2line would not use the symbols alone");
    }
    TreeSet<Long> addresses = new TreeSet<>();
    for (Toolchain.Section s : sections) {
      if ((s.flags() & ElfSection.SHF_EXECINSTR) != 0) {
        for (long a = s.addr(); a < s.addr() + s.size() + 16; a++) {
          addresses.add(a);
        }
      }
    }
    // Start, middle and last byte of every symbol nm lists in a code section. (In data sections
    // addr2line also names NOTYPE symbols such as data_start and __bss_start; SymbolTable leaves
    // them out by design, so data addresses are not compared.)
    int data = 0;
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, bin)) {
      boolean inCode =
          sections.stream()
              .anyMatch(
                  c ->
                      (c.flags() & ElfSection.SHF_EXECINSTR) != 0
                          && s.value() >= c.addr()
                          && s.value() < c.addr() + c.size());
      if (!inCode) {
        data++;
        continue;
      }
      addresses.add(s.value());
      addresses.add(s.value() + s.size() / 2);
      addresses.add(s.value() + Math.max(s.size(), 1) - 1);
    }
    Agreement a = compare(dir, bin, new ArrayList<>(addresses));
    System.out.println(
        "SymbolTable vs addr2line -f, "
            + variant
            + " ("
            + a.source
            + "): "
            + a.agree
            + " of "
            + a.total
            + " code addresses agree; "
            + a.named
            + " named; "
            + data
            + " symbols outside code sections not compared");
    assertEquals(a.total, a.agree, variant + ": " + a.firstDisagreements);
    assertTrue(a.named > a.total / 2, "most code bytes have a function");
    System.out.println(
        "  files (STT_FILE attribution): "
            + a.filesAgree
            + " of "
            + a.total
            + " agree; "
            + a.withFile
            + " with a file");
    assertEquals(a.total, a.filesAgree, variant + ": " + a.firstDisagreements);
    assertTrue(a.withFile > 0, "some code bytes have a file");
  }

  /**
   * {@link SymbolTable#containing} against llvm-symbolizer on every byte of every code section (and
   * 16 past each): the same name, or none, except where llvm-symbolizer lets a size-0 symbol run
   * past the end of its section (the size-0 {@code _init} over the PLT), which is counted.
   */
  @ParameterizedTest
  @ValueSource(strings = {"pie", "nopie", "m32", "lld", "shared"})
  void everyCodeByteIsContainedWhereLlvmSymbolizerSays(String variant) throws Exception {
    ExternalTool.require("llvm-symbolizer", "llvm");
    if (variant.equals("lld")) {
      ExternalTool.require("ld.lld", "lld");
    }
    Path bin = TestPrograms.build(dir, variant);
    List<Toolchain.Section> sections = Toolchain.sections(dir, bin);
    List<Long> addresses = new ArrayList<>();
    for (Toolchain.Section s : sections) {
      if ((s.flags() & ElfSection.SHF_EXECINSTR) != 0) {
        for (long a = s.addr(); a < s.addr() + s.size() + 16; a++) {
          addresses.add(a);
        }
      }
    }
    Map<Long, Long> sizeAt = new java.util.HashMap<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, bin)) {
      sizeAt.merge(s.value(), s.size(), Math::max);
    }
    List<Toolchain.LlvmName> llvm = Toolchain.llvmSymbolizerNames(dir, bin, addresses);
    int agree = 0;
    int named = 0;
    int pastSection = 0;
    List<String> wrong = new ArrayList<>();
    try (ElfFile elf = ElfFile.open(bin)) {
      SymbolTable t = SymbolTable.read(elf);
      for (int i = 0; i < addresses.size(); i++) {
        long a = addresses.get(i);
        String ours = t.containing(a).map(ElfSymbol::name).orElse(null);
        Toolchain.LlvmName theirs = llvm.get(i);
        if (java.util.Objects.equals(ours, theirs.name())) {
          agree++;
          named += ours == null ? 0 : 1;
        } else if (ours == null
            && sizeAt.getOrDefault(theirs.start(), -1L) == 0
            && !sameSection(sections, theirs.start(), a)) {
          pastSection++;
        } else if (wrong.size() < 10) {
          wrong.add("0x" + Long.toHexString(a) + ": ours " + ours + ", llvm " + theirs.name());
        }
      }
    }
    System.out.printf(
        "SymbolTable.containing vs llvm-symbolizer, %s: %d of %d code addresses agree (%d named);"
            + " %d where a size-0 symbol would run past its section%n",
        variant, agree, addresses.size(), named, pastSection);
    assertEquals(List.of(), wrong);
    assertEquals(addresses.size(), agree + pastSection);
    assertTrue(named > addresses.size() / 2, "most code bytes have a function");
  }

  private static Map<String, Toolchain.NmSymbol> nmByName(Path bin) throws Exception {
    Map<String, Toolchain.NmSymbol> nm = new java.util.HashMap<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, bin)) {
      nm.put(s.name(), s);
    }
    return nm;
  }

  private static boolean sameSection(List<Toolchain.Section> sections, long a, long b) {
    for (Toolchain.Section s : sections) {
      if ((s.flags() & ElfSection.SHF_ALLOC) != 0 && a >= s.addr() && a - s.addr() < s.size()) {
        return b >= s.addr() && b - s.addr() < s.size();
      }
    }
    return false;
  }

  @Test
  void sizedSymbolsNameOnlyTheirBytesAndSizeZeroOnesRunToTheNextSymbol() throws Exception {
    ExternalTool.require("llvm-symbolizer", "llvm");
    Path bin = TestPrograms.build(dir, "nopie");
    Map<String, Toolchain.NmSymbol> nm = nmByName(bin);
    try (ElfFile elf = ElfFile.open(bin)) {
      SymbolTable t = SymbolTable.read(elf);
      // A sized function: its last byte is its; the byte after it is not, unless another symbol
      // starts there (addr2line names helper_static for the padding after it).
      Toolchain.NmSymbol g = nm.get("helper_static");
      assertEquals("helper_static", t.containing(g.value() + g.size() - 1).orElseThrow().name());
      Optional<ElfSymbol> after = t.containing(g.value() + g.size());
      assertTrue(
          after.isEmpty() || after.get().value() == g.value() + g.size(),
          "past helper_static: " + after);
      // Aliases of one size: the last in the symbol table wins (llvm-symbolizer's stable sort).
      long alias = nm.get("global_fn").value();
      assertEquals(
          Toolchain.llvmSymbolizerNames(dir, bin, List.of(alias)).get(0).name(),
          t.containing(alias).orElseThrow().name());
      // A size-0 symbol covers the bytes up to the next symbol, and reports size 0.
      long nosize = nm.get("asm_nosize").value();
      assertEquals(
          new ElfSymbol("asm_nosize", nosize, 0, t.containing(nosize).orElseThrow().file()),
          t.containing(nosize + 1).orElseThrow());
      // .plt has no symbol: the size-0 _init before it stops at the end of .init.
      ElfSection plt = elf.section(".plt").orElseThrow();
      assertEquals(Optional.empty(), t.containing(plt.addr() + 1));
      assertEquals(Optional.empty(), t.containing(0));
    }
  }

  @Test
  void picksLikeBfdAmongAliasesSizeZeroAndLabels() throws Exception {
    Path bin = TestPrograms.build(dir, "nopie");
    Map<String, Toolchain.NmSymbol> nm = nmByName(bin);
    try (ElfFile elf = ElfFile.open(bin)) {
      SymbolTable t = SymbolTable.read(elf);
      assertEquals(".symtab", t.source());
      // global_fn and alias_fn: one address, the same size; the first in .symtab wins (addr2line).
      long g = nm.get("global_fn").value();
      String want = Toolchain.addr2lineFunctions(dir, bin, List.of(g)).get(g);
      assertEquals(want, t.lookup(g).orElseThrow().name());
      // The hidden local NOTYPE label is skipped: the code after it belongs to asm_notype.
      long label = nm.get("annobin_like").value();
      assertEquals("asm_notype", t.lookup(label).orElseThrow().name());
      // A symbol without size covers the bytes after it.
      long nosize = nm.get("asm_nosize").value();
      assertEquals(
          new ElfSymbol("asm_nosize", nosize, 0, null), t.lookup(nosize + 1).orElseThrow());
      // Inside asm_outer, from asm_inner on, the closer symbol wins.
      long inner = nm.get("asm_inner").value();
      assertEquals("asm_inner", t.lookup(inner + 1).orElseThrow().name());
      assertEquals("asm_outer", t.lookup(inner - 1).orElseThrow().name());
      // addr2line agrees when it sees the inner address first; after a lookup in asm_outer its
      // one-entry cache answers asm_outer for the whole of asm_outer's size (bfd 2.40's quirk,
      // which SymbolTable does not reproduce).
      long outer = nm.get("asm_outer").value();
      assertEquals(
          "asm_inner",
          Toolchain.addr2lineFunctions(dir, bin, List.of(inner + 1, outer)).get(inner + 1));
      assertEquals(
          "asm_outer",
          Toolchain.addr2lineFunctions(dir, bin, List.of(outer, inner + 1)).get(inner + 1));
      // .plt has no symbols: nothing, rather than the last function of the section before it.
      ElfSection plt = elf.section(".plt").orElseThrow();
      assertEquals(Optional.empty(), t.lookup(plt.addr() + 1));
      assertEquals(Optional.empty(), t.lookup(0));
    }
  }

  /**
   * The system libc: .dynsym only (Debian strips .symtab). libc6-dbg may be installed; so that
   * addr2line cannot find the debug file (by build ID or debug link) and use DWARF, it reads a copy
   * whose build ID and debug link are altered, which changes no symbol.
   */
  @Test
  void systemLibcDynsym() throws Exception {
    Path libc = Path.of("/usr/lib/x86_64-linux-gnu/libc.so.6");
    if (!Files.isReadable(libc)) {
      org.junit.jupiter.api.Assumptions.assumeTrue(false, "no " + libc + " (not x86-64 Debian)");
    }
    Path copy = dir.resolve("libc.so.6");
    Files.copy(libc, copy, StandardCopyOption.REPLACE_EXISTING);
    for (Toolchain.Section s : Toolchain.sections(dir, copy)) {
      if (s.name().equals(".gnu_debuglink")) {
        patch(copy, s.offset(), new byte[] {'X', 'Y'});
      } else if (s.name().equals(".note.gnu.build-id")) {
        patch(copy, s.offset() + 16, new byte[] {0x13, 0x57, (byte) 0x9b, (byte) 0xdf});
      }
    }
    List<Toolchain.Section> sections = Toolchain.sections(dir, copy);
    assertTrue(sections.stream().noneMatch(s -> s.name().equals(".symtab")), "libc has .symtab");
    TreeSet<Long> addresses = new TreeSet<>();
    int functions = 0;
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, copy, "-D")) {
      if ("TtWwi".indexOf(s.type()) >= 0) {
        functions++;
        addresses.add(s.value());
        addresses.add(s.value() + s.size() / 2);
        addresses.add(s.value() + Math.max(s.size(), 1) - 1);
        addresses.add(s.value() + s.size());
      }
    }
    Random random = new Random(42);
    List<Toolchain.Section> code =
        sections.stream().filter(s -> (s.flags() & ElfSection.SHF_EXECINSTR) != 0).toList();
    long codeBytes = code.stream().mapToLong(Toolchain.Section::size).sum();
    for (int i = 0; i < 3000; i++) {
      long r = (long) (random.nextDouble() * codeBytes);
      for (Toolchain.Section s : code) {
        if (r < s.size()) {
          addresses.add(s.addr() + r);
          break;
        }
        r -= s.size();
      }
    }
    Agreement a = compare(dir, copy, new ArrayList<>(addresses));
    System.out.println(
        "SymbolTable vs addr2line -f, libc.so.6 ("
            + a.source
            + ", "
            + functions
            + " function symbols): "
            + a.agree
            + " of "
            + a.total
            + " addresses agree; "
            + a.named
            + " named");
    assertEquals(".dynsym", a.source);
    assertTrue(a.total > 5000, a.total + " addresses");
    assertEquals(a.total, a.agree, a.firstDisagreements.toString());
    assertEquals(a.total, a.filesAgree, a.firstDisagreements.toString());
  }

  private static void patch(Path file, long at, byte[] bytes) throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes), at);
    }
  }

  static final class Agreement {
    int total;
    int agree;
    int named;
    int filesAgree;
    int withFile;
    String source;
    final List<String> firstDisagreements = new ArrayList<>();
  }

  /**
   * Looks every address up in both; addresses go to addr2line in descending order, where bfd's
   * one-entry cache of the last function cannot answer for a closer symbol (see SymbolTable).
   */
  static Agreement compare(Path dir, Path bin, List<Long> addresses) throws Exception {
    List<Long> descending = new ArrayList<>(addresses);
    descending.sort(Comparator.reverseOrder());
    Map<Long, Toolchain.Addr2lineName> want = Toolchain.addr2lineNames(dir, bin, descending);
    Agreement a = new Agreement();
    try (ElfFile elf = ElfFile.open(bin)) {
      SymbolTable t = SymbolTable.read(elf);
      a.source = t.source();
      for (long addr : descending) {
        String expected = want.get(addr).function();
        Optional<ElfSymbol> found = t.lookup(addr);
        String got = found.map(ElfSymbol::name).orElse("??");
        String expectedFile = want.get(addr).file();
        String gotFile = found.map(ElfSymbol::file).orElse(null);
        if (java.util.Objects.equals(expectedFile, gotFile)) {
          a.filesAgree++;
          a.withFile += gotFile == null ? 0 : 1;
        } else if (a.firstDisagreements.size() < 20) {
          a.firstDisagreements.add(
              "0x"
                  + Long.toHexString(addr)
                  + ": addr2line file "
                  + expectedFile
                  + ", SymbolTable "
                  + gotFile);
        }
        a.total++;
        if (expected.equals(got)) {
          a.agree++;
          a.named += got.equals("??") ? 0 : 1;
        } else if (a.firstDisagreements.size() < 20) {
          a.firstDisagreements.add(
              "0x" + Long.toHexString(addr) + ": addr2line " + expected + ", SymbolTable " + got);
        }
      }
    }
    return a;
  }

  /**
   * A million function symbols (a synthetic ELF): the table stays small (primitive arrays, no
   * object per symbol), lookups are right (against arithmetic and a sample against addr2line).
   */
  @Test
  void aMillionSymbolsStaySmall() throws Exception {
    int n = 1_000_000;
    long base = 0x400000;
    long textSize = 16L * n;
    Path file = writeMillion(n, base);

    long before = usedHeap();
    long start = System.nanoTime();
    SymbolTable t;
    try (ElfFile elf = ElfFile.open(file)) {
      t = SymbolTable.read(elf);
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    long after = usedHeap();
    long retained = after - before;
    System.out.printf(
        "1M symbols: read in %d ms, %d kept, ~%d MB retained (heap delta),"
            + " %d MB by the table's own count%n",
        ms, t.size(), retained >> 20, t.retainedBytes() >> 20);
    assertEquals(n, t.size());
    assertTrue(retained < 64L << 20, "retained " + retained + " bytes for 1M symbols");

    Random random = new Random(7);
    List<Long> sample = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      long addr = base + (long) (random.nextDouble() * textSize);
      int k = (int) ((addr - base) / 16);
      String want = k % 1000 == 0 ? "big_alias_" + k : "fn_" + k;
      assertEquals(want, t.lookup(addr).orElseThrow().name(), "0x" + Long.toHexString(addr));
      if (i < 200) {
        sample.add(addr);
      }
      if (i < 50) {
        sample.add(base + 16000L * random.nextInt(n / 1000) + random.nextInt(16));
      }
    }
    long lookups = System.nanoTime();
    for (int i = 0; i < 1_000_000; i++) {
      t.lookup(base + (long) (random.nextDouble() * textSize));
    }
    System.out.printf("1M lookups in %d ms%n", (System.nanoTime() - lookups) / 1_000_000);
    Agreement a = compare(dir, file, sample);
    System.out.println(
        "SymbolTable vs addr2line -f, 1M-symbol file: "
            + a.agree
            + " of "
            + a.total
            + " addresses agree");
    assertEquals(a.total, a.agree, a.firstDisagreements.toString());
    assertEquals(a.total, a.filesAgree, a.firstDisagreements.toString());
  }

  /** Writes the synthetic file in a method of its own, so that nothing of it stays reachable. */
  private static Path writeMillion(int n, long base) throws Exception {
    List<ElfBuilder.Sym> syms = new ArrayList<>(n + n / 1000);
    for (int i = 0; i < n; i++) {
      syms.add(new ElfBuilder.Sym("fn_" + i, base + 16L * i, 16, 2, 1, 0, 1));
      if (i % 1000 == 0) {
        // An alias with a larger size: bfd prefers it at this address.
        syms.add(new ElfBuilder.Sym("big_alias_" + i, base + 16L * i, 32, 2, 1, 0, 1));
      }
    }
    ElfBuilder b = new ElfBuilder(true, ByteOrder.LITTLE_ENDIAN, ElfFile.ET_EXEC);
    long textSize = 16L * n;
    b.section(
        ".text",
        ElfSection.SHT_PROGBITS,
        ElfSection.SHF_ALLOC | ElfSection.SHF_EXECINSTR,
        base,
        0x1000,
        textSize,
        null,
        0,
        0,
        16,
        0);
    b.symtab(syms, 0x1000 + textSize);
    Path file = dir.resolve("million.elf");
    b.write(file);
    return file;
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
