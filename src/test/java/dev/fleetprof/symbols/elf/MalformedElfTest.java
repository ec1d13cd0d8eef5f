package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.symbols.testing.Toolchain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Truncated and lying ELF files: each gives an ElfFormatException (or a clear IOException) naming
 * the file and an offset, quickly, without running out of memory. The base file is a real gcc
 * output with zlib-compressed DWARF and a .symtab; field positions come from readelf.
 */
class MalformedElfTest {
  @TempDir static Path dir;
  static Path base;
  static byte[] good;
  static List<Toolchain.Section> sections;
  static long shoff;

  @BeforeAll
  static void build() throws Exception {
    Toolchain.requireBinutils();
    base = TestPrograms.build(dir, "pie", "-g", "-gz=zlib");
    good = Files.readAllBytes(base);
    sections = Toolchain.sections(dir, base);
    String h = Toolchain.run(dir, List.of("readelf", "-hW", base.toString()));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("Start of section headers:\\s+(\\d+)").matcher(h);
    assertTrue(m.find());
    shoff = Long.parseLong(m.group(1));
    exercise(base); // the unmodified file reads without error
  }

  /** Everything the reader offers, so that no lazily read part escapes the test. */
  static void exercise(Path file) throws IOException {
    try (ElfFile elf = ElfFile.open(file)) {
      elf.segments();
      elf.buildId();
      elf.debugLink();
      for (ElfSection s : elf.sections()) {
        elf.sectionData(s);
      }
      SymbolTable t = SymbolTable.read(elf);
      CallFrameIndex frames = CallFrameIndex.read(elf);
      for (ElfSegment s : elf.segments()) {
        elf.fileOffsetToVaddr(s.offset());
        t.lookup(s.vaddr());
        t.containing(s.vaddr());
        frames.containing(s.vaddr());
      }
    }
  }

  static Path write(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  static void assertRejected(String what, Path file) {
    ElfFormatException e =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10),
            () -> assertThrows(ElfFormatException.class, () -> exercise(file), what));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("at byte offset"), e.getMessage());
    assertEquals(file, e.file());
    assertTrue(e.offset() >= 0, what + ": offset " + e.offset());
  }

  @Test
  void everyTruncationIsRejected() throws Exception {
    int n = 0;
    for (int len = 0; len < good.length; len += len < 4096 ? 1 : 61) {
      Path p = write("truncated", Arrays.copyOf(good, len));
      assertRejected("truncated to " + len + " bytes", p);
      n++;
    }
    System.out.println(n + " truncations of a " + good.length + "-byte file rejected");
  }

  static Toolchain.Section section(String name) {
    return sections.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  static int sectionIndex(String name) {
    return section(name).index();
  }

  static Path mutate(String name, Consumer<ByteBuffer> change) throws IOException {
    byte[] copy = good.clone();
    change.accept(ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN));
    return write(name, copy);
  }

  static int sh(int index, int field) {
    return (int) (shoff + 64L * index + field);
  }

  @Test
  void lyingHeadersAreRejected() throws Exception {
    assertRejected("e_shoff past the end", mutate("shoff", b -> b.putLong(40, 1L << 40)));
    assertRejected("e_shoff negative", mutate("shoffneg", b -> b.putLong(40, -64)));
    assertRejected("e_shnum too large", mutate("shnum", b -> b.putShort(60, (short) 0xfff0)));
    assertRejected("e_shentsize too small", mutate("shentsize", b -> b.putShort(58, (short) 8)));
    assertRejected(
        "e_shstrndx out of range",
        mutate("shstrndx", b -> b.putShort(62, (short) (sections.size() + 5))));
    assertRejected("e_phoff past the end", mutate("phoff", b -> b.putLong(32, 1L << 50)));
    assertRejected("e_phnum too large", mutate("phnum", b -> b.putShort(56, (short) 0x7000)));
    assertRejected("e_phentsize too small", mutate("phentsize", b -> b.putShort(54, (short) 4)));
    assertRejected("bad class", mutate("class", b -> b.put(4, (byte) 9)));
    assertRejected("bad data encoding", mutate("data", b -> b.put(5, (byte) 0)));
    assertRejected("not ELF", mutate("magic", b -> b.put(1, (byte) 'X')));
    // Extended numbering: e_shnum 0 sends the reader to section 0's sh_size.
    assertRejected(
        "extended section count of 2^40",
        mutate(
            "xshnum",
            b -> {
              b.putShort(60, (short) 0);
              b.putLong(sh(0, 32), 1L << 40);
            }));
    assertRejected(
        "extended e_shstrndx out of range",
        mutate(
            "xshstrndx",
            b -> {
              b.putShort(62, (short) 0xffff);
              b.putInt(sh(0, 40), 1_000_000);
            }));
    // A PT_LOAD that claims one file byte more than there are (index from readelf -lW).
    List<Toolchain.Segment> segs = Toolchain.segments(dir, base);
    int load = 0;
    while (segs.get(load).type() != ElfSegment.PT_LOAD || segs.get(load).offset() == 0) {
      load++;
    }
    long loadOffset = segs.get(load).offset();
    int loadAt = 64 + 56 * load;
    assertRejected(
        "segment past the end",
        mutate("segsize", b -> b.putLong(loadAt + 32, good.length - loadOffset + 1)));
  }

  @Test
  void lyingSectionsAreRejected() throws Exception {
    int text = sectionIndex(".text");
    assertRejected(
        "section size past the end", mutate("secsize", b -> b.putLong(sh(text, 32), good.length)));
    assertRejected(
        "section size 2^62", mutate("secsize62", b -> b.putLong(sh(text, 32), 1L << 62)));
    assertRejected(
        "section offset past the end",
        mutate("secoff", b -> b.putLong(sh(text, 24), good.length - 1)));
    assertRejected(
        "section name offset outside .shstrtab",
        mutate("secname", b -> b.putInt(sh(text, 0), 0x7fffff00)));
    int shstrtab = sectionIndex(".shstrtab");
    assertRejected(
        ".shstrtab without a NUL at its end",
        mutate(
            "shstrnul",
            b -> {
              Toolchain.Section s = sections.get(shstrtab);
              b.put((int) (s.offset() + s.size() - 1), (byte) 'x');
            }));
    int symtab = sectionIndex(".symtab");
    assertRejected(
        ".symtab's sh_link out of range", mutate("symlink", b -> b.putInt(sh(symtab, 40), 999)));
    assertRejected(
        "symbol name offset outside .strtab",
        mutate(
            "symname",
            b -> {
              Toolchain.Section s = sections.get(symtab);
              for (int i = 1; i < s.size() / 24; i++) {
                int at = (int) (s.offset() + 24L * i);
                if ((b.get(at + 4) & 0xf) == 2) { // the first STT_FUNC
                  b.putInt(at, 0x7ffffff0);
                  return;
                }
              }
              fail("no function symbol");
            }));
    assertRejected(
        "file symbol name offset outside .strtab",
        mutate(
            "filename",
            b -> {
              // The FILE symbol a local function after it is attributed to (crtstuff.c's, say).
              Toolchain.Section s = sections.get(symtab);
              int file = -1;
              for (int i = 1; i < s.size() / 24; i++) {
                int at = (int) (s.offset() + 24L * i);
                int info = b.get(at + 4);
                if ((info & 0xf) == 4) {
                  file = at;
                } else if ((info & 0xf) == 2 && (info & 0xf0) == 0 && file >= 0) {
                  b.putInt(file, 0x7ffffff0);
                  return;
                }
              }
              fail("no local function symbol after a file symbol");
            }));
    Toolchain.Section note = section(".note.gnu.build-id");
    assertRejected(
        "build-ID note claiming a huge descriptor",
        mutate("notesize", b -> b.putInt((int) note.offset() + 4, 0x7fffffff)));
  }

  @Test
  void lyingCompressedSectionsAreRejected() throws Exception {
    Toolchain.Section info = section(".debug_info");
    assertTrue((info.flags() & ElfSection.SHF_COMPRESSED) != 0, "gcc -gz=zlib compressed it");
    int at = (int) info.offset();
    long size = ByteBuffer.wrap(good).order(ByteOrder.LITTLE_ENDIAN).getLong(at + 8);
    assertRejected("declares 2^40 bytes", mutate("z40", b -> b.putLong(at + 8, 1L << 40)));
    assertRejected("declares a negative size", mutate("zneg", b -> b.putLong(at + 8, -1)));
    assertRejected("declares 1 GiB + 1", mutate("z1g", b -> b.putLong(at + 8, (1L << 30) + 1)));
    assertRejected("declares one byte more", mutate("zmore", b -> b.putLong(at + 8, size + 1)));
    assertRejected("declares one byte less", mutate("zless", b -> b.putLong(at + 8, size - 1)));
    assertRejected(
        "declares 1 GiB with little data (no large allocation either)",
        mutate("zgig", b -> b.putLong(at + 8, 1L << 30)));
    assertRejected("unknown compression type", mutate("ztype", b -> b.putInt(at, 7)));
    assertRejected(
        "corrupt zlib stream",
        mutate(
            "zdata",
            b -> {
              for (int i = 0; i < 8; i++) {
                b.put(at + 24 + i, (byte) 0xff);
              }
            }));
    int shIndex = info.index();
    assertRejected(
        "compressed section shorter than its header",
        mutate("zshort", b -> b.putLong(sh(shIndex, 32), 10)));
  }

  /** Random byte changes anywhere: any outcome but success or an IOException is a failure. */
  @Test
  void randomCorruptionNeverEscapesAsAnotherException() throws Exception {
    Random random = new Random(20261122);
    int rejected = 0;
    int runs = 1500;
    for (int i = 0; i < runs; i++) {
      byte[] copy = good.clone();
      int changes = 1 + random.nextInt(8);
      for (int c = 0; c < changes; c++) {
        // Mostly the header, program headers and section headers, where the layout is described.
        int pos =
            switch (random.nextInt(3)) {
              case 0 -> random.nextInt(64 + 56 * 13);
              case 1 -> (int) shoff + random.nextInt(good.length - (int) shoff);
              default -> random.nextInt(good.length);
            };
        copy[pos] = (byte) random.nextInt(256);
      }
      Path p = write("corrupt", copy);
      try {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> exercise(p));
      } catch (Throwable t) {
        if (t instanceof IOException) {
          rejected++;
          continue;
        }
        Files.write(dir.resolve("failing-corruption-" + i), copy);
        throw new AssertionError("corruption run " + i + " escaped as " + t, t);
      }
    }
    System.out.println(
        runs
            + " random corruptions: "
            + rejected
            + " rejected with an"
            + " IOException, the rest read; none escaped otherwise");
  }
}
