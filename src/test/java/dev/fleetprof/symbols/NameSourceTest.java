package dev.fleetprof.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.Addr2line;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each answer of {@link BinarySymbols} says where its name came from: DWARF, {@code .symtab},
 * {@code .dynsym}, call-frame information (a boundary-only name whose start is the FDE readelf
 * prints) or nothing; on one program built four ways and on Debian's stripped liblzma.
 */
class NameSourceTest {
  @TempDir static Path dir;
  static String source;

  @BeforeAll
  static void tools() throws Exception {
    Toolchain.requireBinutils();
    try (InputStream in =
        NameSourceTest.class.getResourceAsStream("/dev/fleetprof/symbols/elf/cfi_prog.c")) {
      source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static SymbolizedAddress lookup(Path bin, long vaddr) throws Exception {
    try (BinarySymbols s = new BinarySymbols(ElfFile.open(bin), null)) {
      return s.lookupAddress(vaddr);
    }
  }

  @Test
  void dwarfSymtabCfiAndNothing() throws Exception {
    Path withDwarf = Toolchain.gcc(dir, "prog-g", source, "-O2", "-g");
    Path symbols = Toolchain.gcc(dir, "prog", source, "-O2", "-g0");
    Path stripped = dir.resolve("prog-stripped");
    Toolchain.run(dir, List.of("strip", "-o", stripped.toString(), symbols.toString()));
    Map<String, Long> nm = new TreeMap<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, symbols)) {
      nm.put(s.name(), s.value());
    }
    long hash = nm.get("hash_bytes");

    SymbolizedAddress dwarf =
        lookup(
            withDwarf,
            Toolchain.nm(dir, withDwarf).stream()
                    .filter(s -> s.name().equals("hash_bytes"))
                    .findFirst()
                    .orElseThrow()
                    .value()
                + 4);
    assertEquals(NameSource.DWARF, dwarf.source());
    assertEquals("hash_bytes", dwarf.lines().get(0).function());

    SymbolizedAddress symtab = lookup(symbols, hash + 4);
    assertEquals(NameSource.SYMTAB, symtab.source());
    assertEquals("hash_bytes", symtab.lines().get(0).function());

    // Stripped: hash_bytes keeps no symbol (a PIE exports none), only its FDE.
    SymbolizedAddress cfi = lookup(stripped, hash + 4);
    assertEquals(NameSource.CFI, cfi.source());
    long fdeStart = Addr2line.fdes(stripped, dir.resolve("home")).floorKey(hash + 4);
    assertEquals(hash, fdeStart, "the FDE starts where the unstripped symbol does");
    assertEquals(
        List.of(
            new SourceLine(
                "prog-stripped+0x" + Long.toHexString(fdeStart),
                "prog-stripped+0x" + Long.toHexString(fdeStart),
                null,
                0)),
        cfi.lines());

    SymbolizedAddress none = lookup(stripped, 0);
    assertEquals(NameSource.NONE, none.source());
    assertEquals(List.of(), none.lines());
  }

  /**
   * The case: in Debian's liblzma (.dynsym only), an exported function names its own bytes
   * (dynsym), and code 0x259 bytes past the end of the 26-byte lzma_mf_is_supported gets the
   * boundary of the FDE readelf prints there, not that function's name.
   */
  @Test
  void liblzmaPastAnExportedFunction() throws Exception {
    Path lib = Path.of("/usr/lib/x86_64-linux-gnu/liblzma.so.5");
    if (!Files.isReadable(lib)) {
      org.junit.jupiter.api.Assumptions.assumeTrue(false, "no " + lib + " (package liblzma5)");
    }
    lib = lib.toRealPath();
    Toolchain.NmSymbol f =
        Toolchain.nm(dir, lib, "-D").stream()
            .filter(s -> s.name().startsWith("lzma_mf_is_supported"))
            .findFirst()
            .orElseThrow();
    SymbolizedAddress own = lookup(lib, f.value());
    assertEquals(NameSource.DYNSYM, own.source());
    assertEquals("lzma_mf_is_supported", own.lines().get(0).symbol());

    long past = f.value() + f.size() + 0x259;
    SymbolizedAddress after = lookup(lib, past);
    Map.Entry<Long, Long> fde = Addr2line.fdes(lib, dir.resolve("home")).floorEntry(past);
    assertTrue(fde != null && past < fde.getValue(), "an FDE holds 0x" + Long.toHexString(past));
    assertNotEquals(NameSource.DYNSYM, after.source(), after.toString());
    assertEquals(NameSource.CFI, after.source());
    assertEquals(
        lib.getFileName() + "+0x" + Long.toHexString(fde.getKey()),
        after.lines().get(0).function());
  }
}
