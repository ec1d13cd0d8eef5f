package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** ElfFile's headers, segments, sections and build ID against what readelf prints. */
final class ReadelfAgreement {
  private ReadelfAgreement() {}

  /** Everything readelf -h, -l, -S and -n print that ElfFile exposes. */
  static void check(Path dir, Path bin) throws Exception {
    Toolchain.Header h = Toolchain.header(dir, bin);
    List<Toolchain.Segment> segs = Toolchain.segments(dir, bin);
    List<Toolchain.Section> secs = Toolchain.sections(dir, bin);
    String id = Toolchain.buildId(dir, bin);
    try (ElfFile elf = ElfFile.open(bin)) {
      assertEquals(h.is64(), elf.is64());
      assertEquals(h.littleEndian() ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN, elf.order());
      assertEquals(Map.of("REL", 1, "EXEC", 2, "DYN", 3).get(h.type()), elf.type(), h.type());
      if (h.machine().contains("X86-64")) {
        assertEquals(ElfFile.EM_X86_64, elf.machine());
      } else if (h.machine().contains("80386")) {
        assertEquals(ElfFile.EM_386, elf.machine());
      }

      assertEquals(segs.size(), elf.segments().size(), "segment count");
      for (int i = 0; i < segs.size(); i++) {
        Toolchain.Segment want = segs.get(i);
        ElfSegment got = elf.segments().get(i);
        String what = bin.getFileName() + " segment " + i + " " + want.typeName();
        assertEquals(want.type(), got.type(), what);
        assertEquals(want.flags(), got.flags(), what);
        assertEquals(want.offset(), got.offset(), what);
        assertEquals(want.vaddr(), got.vaddr(), what);
        assertEquals(want.filesz(), got.filesz(), what);
        assertEquals(want.memsz(), got.memsz(), what);
      }

      assertEquals(secs.size(), elf.sections().size(), "section count");
      for (int i = 0; i < secs.size(); i++) {
        Toolchain.Section want = secs.get(i);
        ElfSection got = elf.sections().get(i);
        String what = bin.getFileName() + " section " + i + " " + want.name();
        assertEquals(want.index(), got.index(), what);
        assertEquals(want.name(), got.name(), what);
        Integer type = Toolchain.SECTION_TYPES.get(want.typeName());
        assertNotNull(type, "readelf section type " + want.typeName());
        assertEquals(type, got.type(), what);
        assertEquals(want.addr(), got.addr(), what);
        assertEquals(want.offset(), got.offset(), what);
        assertEquals(want.size(), got.size(), what);
        assertEquals(want.flags(), got.flags(), what);
        assertEquals(want.link(), got.link(), what);
        assertEquals(want.info(), got.info(), what);
        assertEquals(want.align(), got.addralign(), what);
      }
      assertEquals(java.util.Optional.ofNullable(id), elf.buildId(), "build ID of " + bin);
    }
  }
}
