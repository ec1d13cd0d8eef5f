package dev.fleetprof.symbols.dwarf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The raw, already decompressed DWARF sections of one binary (or of its separate debug file), each
 * a {@link ByteBuffer} whose index 0 is the section's first byte, or null when the binary has no
 * such section. Address and offset sizes (32/64-bit addresses, 32/64-bit DWARF) come from the units
 * themselves; only the byte order is the file's.
 *
 * <p>Plugs into an ELF reader with {@code DwarfSections.read(elf::sectionData, elf.order(), 64)}.
 * .debug_aranges is kept but not used: addr2line 2.40 does not read it either.
 */
public final class DwarfSections {
  /** The section names read, in the order {@link #load} asks for them. */
  public static final String[] NAMES = {
    ".debug_info",
    ".debug_abbrev",
    ".debug_line",
    ".debug_str",
    ".debug_line_str",
    ".debug_str_offsets",
    ".debug_addr",
    ".debug_ranges",
    ".debug_rnglists",
    ".debug_aranges"
  };

  final ByteOrder order;
  final int elfClass;
  final ByteBuffer info;
  final ByteBuffer abbrev;
  final ByteBuffer line;
  final ByteBuffer str;
  final ByteBuffer lineStr;
  final ByteBuffer strOffsets;
  final ByteBuffer addr;
  final ByteBuffer ranges;
  final ByteBuffer rnglists;
  final ByteBuffer aranges;

  private DwarfSections(Function<String, ByteBuffer> sectionByName, ByteOrder order, int elfClass) {
    if (elfClass != 0 && elfClass != 32 && elfClass != 64) {
      throw new IllegalArgumentException("ELF class is 32 or 64 (or 0 if unknown): " + elfClass);
    }
    this.order = Objects.requireNonNull(order, "order");
    this.elfClass = elfClass;
    this.info = slice(sectionByName.apply(".debug_info"), order);
    this.abbrev = slice(sectionByName.apply(".debug_abbrev"), order);
    this.line = slice(sectionByName.apply(".debug_line"), order);
    this.str = slice(sectionByName.apply(".debug_str"), order);
    this.lineStr = slice(sectionByName.apply(".debug_line_str"), order);
    this.strOffsets = slice(sectionByName.apply(".debug_str_offsets"), order);
    this.addr = slice(sectionByName.apply(".debug_addr"), order);
    this.ranges = slice(sectionByName.apply(".debug_ranges"), order);
    this.rnglists = slice(sectionByName.apply(".debug_rnglists"), order);
    this.aranges = slice(sectionByName.apply(".debug_aranges"), order);
  }

  /**
   * Reads the sections through {@code sectionByName} (e.g. {@code ElfFile::sectionData}), which
   * returns a section's decompressed bytes from its position to its limit, or null when absent. The
   * buffers are not copied: they must not change while a symbolizer built on them is in use.
   */
  public static DwarfSections load(Function<String, ByteBuffer> sectionByName, ByteOrder order) {
    return load(sectionByName, order, 0);
  }

  /**
   * As {@link #load(Function, ByteOrder)}, with the ELF class (32 or 64; 0 if unknown): for a
   * 32-bit binary lookups use the low 32 bits of the address, as addr2line does.
   */
  public static DwarfSections load(
      Function<String, ByteBuffer> sectionByName, ByteOrder order, int elfClass) {
    return new DwarfSections(
        Objects.requireNonNull(sectionByName, "sectionByName"), order, elfClass);
  }

  /** Reads a section's decompressed bytes by name, or returns null when it is absent. */
  @FunctionalInterface
  public interface SectionReader {
    ByteBuffer read(String name) throws IOException;
  }

  /**
   * As {@link #load(Function, ByteOrder, int)} through a reader that may fail, e.g. {@code
   * DwarfSections.read(elf::sectionData, elf.order(), elf.is64() ? 64 : 32)}.
   *
   * @throws IOException the first error the reader throws
   */
  public static DwarfSections read(SectionReader reader, ByteOrder order, int elfClass)
      throws IOException {
    Objects.requireNonNull(reader, "reader");
    Map<String, ByteBuffer> read = new HashMap<>();
    for (String name : NAMES) {
      ByteBuffer b = reader.read(name);
      if (b != null) {
        read.put(name, b);
      }
    }
    return new DwarfSections(read::get, order, elfClass);
  }

  /** The same from a map of section name to bytes; missing names are absent sections. */
  public static DwarfSections of(Map<String, ByteBuffer> sections, ByteOrder order) {
    Objects.requireNonNull(sections, "sections");
    return new DwarfSections(sections::get, order, 0);
  }

  /** The ELF class given to {@link #load(Function, ByteOrder, int)}: 32, 64, or 0 if unknown. */
  public int elfClass() {
    return elfClass;
  }

  /** The byte order multi-byte values are read in. */
  public ByteOrder order() {
    return order;
  }

  /** A section's bytes (a read-only view, index 0 = first byte), or null when absent. */
  public ByteBuffer section(String name) {
    ByteBuffer b =
        switch (name) {
          case ".debug_info" -> info;
          case ".debug_abbrev" -> abbrev;
          case ".debug_line" -> line;
          case ".debug_str" -> str;
          case ".debug_line_str" -> lineStr;
          case ".debug_str_offsets" -> strOffsets;
          case ".debug_addr" -> addr;
          case ".debug_ranges" -> ranges;
          case ".debug_rnglists" -> rnglists;
          case ".debug_aranges" -> aranges;
          default -> throw new IllegalArgumentException("not a section this reader uses: " + name);
        };
    return b == null ? null : b.duplicate().order(order);
  }

  private static ByteBuffer slice(ByteBuffer b, ByteOrder order) {
    return b == null ? null : b.slice().asReadOnlyBuffer().order(order);
  }
}
