package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ElfFile against readelf, objcopy, nm and addr2line on programs gcc builds here: headers,
 * segments, sections, build IDs, debug links, (compressed) section bytes and file offsets.
 */
class ElfFileTest {
  @TempDir static Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"pie", "nopie", "m32", "m32nopie", "lld", "sha1", "noid", "shared", "object"})
  void headersSegmentsSectionsAndBuildIdMatchReadelf(String variant) throws Exception {
    if (variant.equals("lld")) {
      ExternalTool.require("ld.lld", "lld");
    }
    Path bin = TestPrograms.build(dir, variant);
    checkAgainstReadelf(bin);
    String id = Toolchain.buildId(dir, bin);
    if (variant.equals("noid") || variant.equals("object")) {
      assertNull(id, "readelf -n found a build ID in " + variant);
    }
    if (variant.equals("sha1")) {
      assertEquals(40, id.length(), "sha1 build ID: " + id);
    }
  }

  static void checkAgainstReadelf(Path bin) throws Exception {
    ReadelfAgreement.check(dir, bin);
  }

  @Test
  void compressedDebugSectionsDecompressAsObjcopyDoes() throws Exception {
    String[][] ways = {{"zlib", "-gz=zlib"}, {"zlib-gnu", "-gz=zlib-gnu"}, {"zstd", null}};
    for (String[] way : ways) {
      String flag = way[1];
      if (way[0].equals("zstd")) {
        flag = zstdFlag();
        if (flag == null) {
          System.out.println(
              "SKIPPED zstd-compressed sections: neither gcc -gz=zstd nor ld"
                  + " --compress-debug-sections=zstd works with this toolchain");
          continue;
        }
      }
      Path bin = TestPrograms.build(dir, "pie", "-g3", flag);
      checkAgainstReadelf(bin);
      boolean anyCompressed = false;
      for (Toolchain.Section s : Toolchain.sections(dir, bin)) {
        anyCompressed |=
            (s.flags() & ElfSection.SHF_COMPRESSED) != 0 || s.name().startsWith(".zdebug");
      }
      assertTrue(anyCompressed, way[0] + ": gcc " + flag + " compressed no section");
      int compared = compareDebugSections(bin, way[0]);
      System.out.println(
          way[0]
              + " ("
              + flag
              + "): "
              + compared
              + " debug sections equal to objcopy --decompress-debug-sections byte for byte");
    }
  }

  /** How this toolchain makes zstd-compressed debug sections, or null. */
  static String zstdFlag() throws Exception {
    Path probe = dir.resolve("zstd-probe.c");
    Files.writeString(probe, "int main(void) { return 0; }\n");
    for (String flag : new String[] {"-gz=zstd", "-Wl,--compress-debug-sections=zstd"}) {
      ExternalTool.Result r =
          Toolchain.tryRun(
              dir,
              List.of(
                  "gcc", "-g", flag, "-o", dir.resolve("zstd-probe").toString(), probe.toString()));
      if (r.exit() == 0) {
        if (flag.startsWith("-Wl")) {
          System.out.println("gcc 12 has no -gz=zstd; using ld's " + flag);
        }
        return flag;
      }
    }
    return null;
  }

  /** Compares every debug section's bytes with objcopy's decompressed dump; returns the count. */
  static int compareDebugSections(Path bin, String label) throws Exception {
    return compareDebugSections(dir, bin, label, List.of());
  }

  static int compareDebugSections(Path dir, Path bin, String label, List<String> objcopyInput)
      throws Exception {
    Map<String, byte[]> dumps =
        Toolchain.decompressedSections(dir, bin, objcopyInput, name -> name.startsWith(".debug_"));
    int compared = 0;
    try (ElfFile elf = ElfFile.open(bin)) {
      for (Map.Entry<String, byte[]> dump : dumps.entrySet()) {
        String name = dump.getKey();
        ByteBuffer data = elf.sectionData(name);
        assertNotNull(data, label + ": sectionData(" + name + ")");
        assertTrue(data.isReadOnly(), label + " " + name + " read-only");
        assertEquals(0, data.position());
        assertEquals(elf.order(), data.order(), label + " " + name + " byte order");
        byte[] got = new byte[data.remaining()];
        data.get(got);
        assertArrayEquals(dump.getValue(), got, label + ": bytes of " + name);
        compared++;
      }
    }
    assertTrue(compared > 0, label + ": no debug sections compared");
    return compared;
  }

  @Test
  void strippedBinaryDebugFileAndDebugLink() throws Exception {
    Path full = TestPrograms.build(dir, "pie", "-g");
    Path debug = dir.resolve("prog.debug");
    Path stripped = dir.resolve("prog.stripped");
    Path linked = dir.resolve("prog");
    Path allStripped = dir.resolve("prog.allstripped");
    Toolchain.run(dir, List.of("objcopy", "--only-keep-debug", full.toString(), debug.toString()));
    Toolchain.run(
        dir, List.of("strip", "--strip-debug", "-o", stripped.toString(), full.toString()));
    Toolchain.run(
        dir, List.of("strip", "--strip-all", "-o", allStripped.toString(), full.toString()));
    Toolchain.run(
        dir,
        List.of("objcopy", "--add-gnu-debuglink=" + debug, stripped.toString(), linked.toString()));

    for (Path p : List.of(full, debug, stripped, linked, allStripped)) {
      checkAgainstReadelf(p);
    }
    String id = Toolchain.buildId(dir, full);
    assertNotNull(id);
    try (ElfFile d = ElfFile.open(debug);
        ElfFile l = ElfFile.open(linked);
        ElfFile f = ElfFile.open(full)) {
      assertEquals(id, d.buildId().orElseThrow(), "debug file keeps the build ID");
      assertEquals(id, l.buildId().orElseThrow());
      // The debug link: name from readelf's hex dump, CRC computed here over the debug file.
      byte[] link = Toolchain.hexDump(dir, linked, ".gnu_debuglink");
      int nul = 0;
      while (link[nul] != 0) {
        nul++;
      }
      CRC32 crc = new CRC32();
      crc.update(Files.readAllBytes(debug));
      assertEquals(
          new DebugLink(
              new String(link, 0, nul, java.nio.charset.StandardCharsets.UTF_8), crc.getValue()),
          l.debugLink().orElseThrow());
      assertEquals("prog.debug", l.debugLink().get().fileName());
      assertTrue(f.debugLink().isEmpty());
      assertTrue(d.debugLink().isEmpty());
      // Code is NOBITS in the debug file, DWARF is there.
      assertNull(d.sectionData(".text"));
      assertNull(d.sectionData(".no_such_section"));
      assertNotNull(d.sectionData(".debug_info"));
      assertNull(l.sectionData(".debug_info"));
      // Its load segments have no file bytes: file offsets are resolved with the runtime binary.
      long text = f.section(".text").orElseThrow().offset();
      assertTrue(d.fileOffsetToVaddr(text).isEmpty(), "debug file: no PT_LOAD holds an offset");
      assertEquals(f.fileOffsetToVaddr(text), l.fileOffsetToVaddr(text));
    }
    compareDebugSections(debug, "only-keep-debug file");
  }

  @ParameterizedTest
  @ValueSource(strings = {"pie", "nopie", "m32", "m32nopie", "lld", "shared", "object"})
  void fileOffsetsOfFunctionsGoBackToTheirAddresses(String variant) throws Exception {
    if (variant.equals("lld")) {
      ExternalTool.require("ld.lld", "lld");
    }
    Path bin = TestPrograms.build(dir, variant);
    List<Toolchain.Segment> segs = Toolchain.segments(dir, bin);
    List<Toolchain.NmSymbol> functions = new ArrayList<>();
    List<Toolchain.Section> code = new ArrayList<>();
    for (Toolchain.Section s : Toolchain.sections(dir, bin)) {
      if ((s.flags() & ElfSection.SHF_EXECINSTR) != 0) {
        code.add(s);
      }
    }
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, bin)) {
      // Sized symbols in code sections (per readelf): functions, not labels or data.
      boolean inCode =
          code.stream().anyMatch(c -> s.value() >= c.addr() && s.value() < c.addr() + c.size());
      if ("TtWi".indexOf(s.type()) >= 0 && s.size() > 0 && inCode) {
        functions.add(s);
      }
    }
    assertTrue(functions.size() > 300, "nm found " + functions.size() + " functions");
    List<Long> addrs = new ArrayList<>();
    int checked = 0;
    int differ = 0;
    try (ElfFile elf = ElfFile.open(bin)) {
      for (Toolchain.NmSymbol s : functions) {
        long offset = s.value();
        if (!segs.isEmpty()) {
          Toolchain.Segment text = null;
          for (Toolchain.Segment seg : segs) {
            if (seg.type() == 1
                && (seg.flags() & 1) != 0
                && s.value() >= seg.vaddr()
                && s.value() < seg.vaddr() + seg.filesz()) {
              text = seg;
            }
          }
          assertNotNull(text, s + ": in no executable PT_LOAD per readelf");
          offset = s.value() - text.vaddr() + text.offset();
        }
        differ += offset != s.value() ? 1 : 0;
        assertEquals(
            OptionalLong.of(s.value()),
            elf.fileOffsetToVaddr(offset),
            bin.getFileName() + " " + s.name() + " at file offset 0x" + Long.toHexString(offset));
        addrs.add(s.value());
        checked++;
      }
      // Every file offset (and a few past the end) against the rule applied to readelf's segments.
      for (long f = 0; f < elf.fileSize() + 64; f++) {
        assertEquals(
            expectedVaddr(segs, f),
            elf.fileOffsetToVaddr(f),
            bin.getFileName() + " file offset 0x" + Long.toHexString(f));
      }
    }
    if (variant.contains("nopie") || variant.equals("lld")) {
      assertTrue(differ > 0, variant + ": expected text file offsets != addresses");
    }
    // addr2line names the function at each address the offsets came back to.
    if (!variant.equals("object")) {
      Map<Long, String> names = Toolchain.addr2lineFunctions(dir, bin, addrs);
      for (Toolchain.NmSymbol s : functions) {
        Set<String> here = new HashSet<>();
        for (Toolchain.NmSymbol o : functions) {
          if (o.value() == s.value()) {
            here.add(o.name());
          }
        }
        assertTrue(
            here.contains(names.get(s.value())),
            variant
                + ": addr2line at 0x"
                + Long.toHexString(s.value())
                + " printed "
                + names.get(s.value())
                + ", nm has "
                + here);
      }
    }
    System.out.println(
        variant
            + ": "
            + checked
            + " functions' file offsets back to their nm"
            + " addresses ("
            + differ
            + " with offset != address)");
  }

  /** pprof's rule, applied to what readelf printed. */
  private static OptionalLong expectedVaddr(List<Toolchain.Segment> segs, long f) {
    boolean anyLoad = false;
    Toolchain.Segment other = null;
    for (Toolchain.Segment s : segs) {
      if (s.type() != 1) {
        continue;
      }
      anyLoad = true;
      if (s.filesz() > 0 && f >= s.offset() && f < s.offset() + s.filesz()) {
        if ((s.flags() & 1) != 0) {
          return OptionalLong.of(f - s.offset() + s.vaddr());
        }
        if (other == null) {
          other = s;
        }
      }
    }
    if (other != null) {
      return OptionalLong.of(f - other.offset() + other.vaddr());
    }
    return anyLoad ? OptionalLong.empty() : OptionalLong.of(f);
  }

  @Test
  void sectionDataIsTheFileBytes() throws Exception {
    Path bin = TestPrograms.build(dir, "nopie");
    byte[] file = Files.readAllBytes(bin);
    try (ElfFile elf = ElfFile.open(bin)) {
      int checked = 0;
      for (ElfSection s : elf.sections()) {
        ByteBuffer b = elf.sectionData(s);
        if (s.isNobits() || s.index() == 0) {
          assertNull(b, s.name());
          continue;
        }
        Path dump = dir.resolve("nopie" + s.name() + ".dump");
        // objcopy has no bfd section for the symbol and string tables: file bytes only there.
        ExternalTool.Result r =
            Toolchain.tryRun(
                dir,
                List.of(
                    "objcopy",
                    "--dump-section",
                    s.name() + "=" + dump,
                    bin.toString(),
                    dir.resolve("scratch2").toString()));
        byte[] got = new byte[b.remaining()];
        b.get(got);
        if (r.exit() == 0 && Files.exists(dump)) {
          assertArrayEquals(Files.readAllBytes(dump), got, s.name());
        } else {
          assertTrue(
              s.type() == ElfSection.SHT_SYMTAB || s.type() == ElfSection.SHT_STRTAB,
              s.name() + ": " + r.stderr());
        }
        assertArrayEquals(
            java.util.Arrays.copyOfRange(file, (int) s.offset(), (int) (s.offset() + s.size())),
            got,
            s.name());
        checked++;
      }
      assertTrue(checked > 20, checked + " sections");
      assertFalse(elf.section(".text").isEmpty());
    }
  }
}
