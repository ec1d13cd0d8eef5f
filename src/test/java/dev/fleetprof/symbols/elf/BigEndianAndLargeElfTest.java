package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.testing.Toolchain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeSet;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files gcc cannot make here: big-endian ELF (binutils' generic elf64-big/elf32-big targets via
 * {@code objcopy -I binary}, and hand-made ones with program headers) and a sparse file over 4 GiB.
 * Expected values come from readelf, objcopy and addr2line.
 */
class BigEndianAndLargeElfTest {
  @TempDir static Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
  }

  /**
   * A big-endian relocatable object built by objcopy from raw bytes, with function symbols, a
   * build-ID note section, DWARF-named sections compressed with zlib or zstd, and a debug link.
   */
  @ParameterizedTest
  @ValueSource(strings = {"elf64-big", "elf32-big"})
  void bigEndianObjectFromObjcopy(String target) throws Exception {
    Random random = new Random(target.hashCode());
    byte[] code = new byte[4096];
    random.nextBytes(code);
    Path blob = dir.resolve(target + ".bin");
    Files.write(blob, code);
    StringBuilder dwarf = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      dwarf.append("not really DWARF, line ").append(i).append(", compressible\n");
    }
    Path debugInfo = dir.resolve(target + ".info");
    Files.writeString(debugInfo, dwarf);
    Path debugStr = dir.resolve(target + ".str");
    Files.writeString(debugStr, dwarf.toString().toUpperCase());
    ElfBuilder layout = new ElfBuilder(target.startsWith("elf64"), ByteOrder.BIG_ENDIAN, 1);
    byte[] id = new byte[20];
    random.nextBytes(id);
    Path note = dir.resolve(target + ".note");
    Files.write(note, layout.buildIdNote(id));

    Path step1 = dir.resolve(target + "-1.o");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "objcopy",
                "-I",
                "binary",
                "-O",
                target,
                "--rename-section",
                ".data=.text,alloc,load,readonly,code,contents"));
    // fn_80 and alias_80 share an address and have no size: the first in the table wins.
    String[][] symbols = {
      {"fn_10", "0x10"},
      {"fn_80", "0x80"},
      {"alias_80", "0x80"},
      {"fn_200", "0x200"},
      {"fn_7f0", "0x7f0"},
      {"fn_c00", "0xc00"}
    };
    for (String[] sym : symbols) {
      cmd.add("--add-symbol");
      cmd.add(sym[0] + "=.text:" + sym[1] + ",function,global");
    }
    cmd.addAll(List.of(blob.toString(), step1.toString()));
    Toolchain.run(dir, cmd);
    Path step2 = dir.resolve(target + "-2.o");
    Toolchain.run(
        dir,
        List.of(
            "objcopy",
            "-I",
            target,
            "--add-section",
            ".debug_info=" + debugInfo,
            "--add-section",
            ".debug_str=" + debugStr,
            "--add-section",
            ".note.gnu.build-id=" + note,
            step1.toString(),
            step2.toString()));

    for (String compression : new String[] {"zlib", "zstd"}) {
      Path compressed = dir.resolve(target + "-" + compression + ".o");
      Toolchain.run(
          dir,
          List.of(
              "objcopy",
              "-I",
              target,
              "--compress-debug-sections=" + compression,
              step2.toString(),
              compressed.toString()));
      Path linked = dir.resolve(target + "-" + compression + "-linked.o");
      Toolchain.run(
          dir,
          List.of(
              "objcopy",
              "-I",
              target,
              "--add-gnu-debuglink=" + debugInfo,
              compressed.toString(),
              linked.toString()));

      ReadelfAgreement.check(dir, linked);
      boolean anyCompressed =
          Toolchain.sections(dir, linked).stream()
              .anyMatch(s -> (s.flags() & ElfSection.SHF_COMPRESSED) != 0);
      assertTrue(anyCompressed, target + " " + compression + ": objcopy compressed nothing");
      ElfFileTest.compareDebugSections(
          dir, linked, target + " " + compression, List.of("-I", target));
      try (ElfFile elf = ElfFile.open(linked)) {
        assertEquals(ByteOrder.BIG_ENDIAN, elf.order());
        assertEquals(target.startsWith("elf64"), elf.is64());
        assertEquals(ElfFile.ET_REL, elf.type());
        assertEquals(Toolchain.buildId(dir, linked), elf.buildId().orElseThrow());
        byte[] link = Toolchain.hexDump(dir, linked, ".gnu_debuglink");
        int nul = 0;
        while (link[nul] != 0) {
          nul++;
        }
        CRC32 crc = new CRC32();
        crc.update(Files.readAllBytes(debugInfo));
        assertEquals(
            new DebugLink(new String(link, 0, nul, StandardCharsets.UTF_8), crc.getValue()),
            elf.debugLink().orElseThrow());
        // No program headers: a relocatable object's offsets are its addresses.
        assertEquals(OptionalLong.of(0x123), elf.fileOffsetToVaddr(0x123));
      }
      // Symbols: every byte of .text against addr2line.
      TreeSet<Long> addresses = new TreeSet<>();
      for (long a = 0; a < code.length + 8; a++) {
        addresses.add(a);
      }
      SymbolTableTest.Agreement a =
          SymbolTableTest.compare(dir, linked, new ArrayList<>(addresses));
      System.out.println(
          target
              + " "
              + compression
              + ": SymbolTable vs addr2line "
              + a.agree
              + " of "
              + a.total
              + " addresses agree; "
              + a.named
              + " named");
      assertEquals(a.total, a.agree, a.firstDisagreements.toString());
      assertTrue(a.named > 4000);
    }
  }

  /**
   * Hand-made executables with program headers (and two sections), in both byte orders and classes:
   * segments against readelf -lW, the build ID from the PT_NOTE segment against readelf -n, file
   * offsets against pprof's rule applied to readelf's segments.
   */
  @ParameterizedTest
  @CsvSource({"true,BIG", "false,BIG", "true,LITTLE", "false,LITTLE"})
  void programHeadersInEitherByteOrder(boolean is64, String orderName) throws Exception {
    ByteOrder order = orderName.equals("BIG") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    ElfBuilder b = new ElfBuilder(is64, order, ElfFile.ET_EXEC);
    byte[] id = new byte[16];
    new Random(3).nextBytes(id);
    byte[] note = b.buildIdNote(id);
    // Text: file 0x1000..0x3000 at 0x10200000 (offset != address); data: 0x3000..0x3800; note.
    b.segment(ElfSegment.PT_LOAD, ElfSegment.PF_R, 0, 0x10000000, 0x800, 0x800, 0x1000);
    b.segment(
        ElfSegment.PT_LOAD,
        ElfSegment.PF_R | ElfSegment.PF_X,
        0x1000,
        0x10200000,
        0x2000,
        0x2000,
        0x1000);
    b.segment(
        ElfSegment.PT_LOAD,
        ElfSegment.PF_R | ElfSegment.PF_W,
        0x3000,
        0x10403000,
        0x800,
        0x1000,
        0x1000);
    b.segment(ElfSegment.PT_NOTE, ElfSegment.PF_R, 0x400, 0x10000400, note.length, note.length, 4);
    b.segment(0x6474e551, ElfSegment.PF_R | ElfSegment.PF_W, 0, 0, 0, 0, 16);
    b.section(".filler", ElfSection.SHT_PROGBITS, 0, 0, 0x400, note.length, note, 0, 0, 4, 0);
    b.section(
        ".data",
        ElfSection.SHT_PROGBITS,
        ElfSection.SHF_ALLOC | ElfSection.SHF_WRITE,
        0x10403000,
        0x3000,
        0x800,
        new byte[0x800],
        0,
        0,
        8,
        0);
    Path file = dir.resolve("handmade-" + is64 + "-" + orderName);
    b.write(file);

    ReadelfAgreement.check(dir, file);
    List<Toolchain.Segment> segs = Toolchain.segments(dir, file);
    assertEquals(5, segs.size());
    try (ElfFile elf = ElfFile.open(file)) {
      assertEquals(order, elf.order());
      assertEquals(is64, elf.is64());
      assertEquals(Toolchain.buildId(dir, file), elf.buildId().orElseThrow());
      for (long f = 0; f < elf.fileSize() + 16; f++) {
        OptionalLong want = OptionalLong.empty();
        Toolchain.Segment other = null;
        for (Toolchain.Segment s : segs) {
          if (s.type() == 1 && s.filesz() > 0 && f >= s.offset() && f < s.offset() + s.filesz()) {
            if ((s.flags() & 1) != 0) {
              want = OptionalLong.of(f - s.offset() + s.vaddr());
              break;
            }
            other = other == null ? s : other;
          }
        }
        if (want.isEmpty() && other != null) {
          want = OptionalLong.of(f - other.offset() + other.vaddr());
        }
        assertEquals(want, elf.fileOffsetToVaddr(f), "offset 0x" + Long.toHexString(f));
      }
      // The text segment holds 0x1000..0x2fff; 0x0..0x7ff only the read-only one.
      assertEquals(OptionalLong.of(0x10200010), elf.fileOffsetToVaddr(0x1010));
      assertEquals(OptionalLong.of(0x10000010), elf.fileOffsetToVaddr(0x10));
      assertEquals(OptionalLong.empty(), elf.fileOffsetToVaddr(0x900));
    }
  }

  /**
   * A sparse file of over 5 GiB: a section at offset 5 GiB reads back (mapping only it), the
   * section header table after it is found, and a 2.5 GiB section is refused clearly (one section
   * over 2 GiB), without reading it.
   */
  @Test
  void sparseFileOverFourGiB() throws Exception {
    ElfBuilder b = new ElfBuilder(true, ByteOrder.LITTLE_ENDIAN, ElfFile.ET_EXEC);
    byte[] far = new byte[8192];
    new Random(11).nextBytes(far);
    long farOffset = 5L << 30;
    long hugeSize = 5L << 29;
    b.section(".huge", ElfSection.SHT_PROGBITS, 0, 0, 1L << 30, hugeSize, null, 0, 0, 1, 0);
    b.section(".far", ElfSection.SHT_PROGBITS, 0, 0, farOffset, far.length, far, 0, 0, 1, 0);
    Path file = dir.resolve("sparse.elf");
    b.write(file);
    assertTrue(Files.size(file) > farOffset);

    ReadelfAgreement.check(dir, file);
    try (ElfFile elf = ElfFile.open(file)) {
      ByteBuffer got = elf.sectionData(".far");
      byte[] bytes = new byte[got.remaining()];
      got.get(bytes);
      assertArrayEquals(far, bytes);
      long start = System.nanoTime();
      IOException e = assertThrows(IOException.class, () -> elf.sectionData(".huge"));
      assertFalse(e instanceof ElfFormatException, "a limit, not a malformed file");
      assertTrue(
          e.getMessage().contains("over 2 GiB") && e.getMessage().contains(".huge"),
          e.getMessage());
      assertTrue(System.nanoTime() - start < 1_000_000_000L, "refused without reading");
    }
  }
}
