package dev.fleetprof.symbols.elf;

/**
 * One section header, as {@code readelf -SW} prints it. Addresses, offsets and sizes are unsigned
 * 64-bit values held in a {@code long} (32-bit files are zero-extended). For a compressed section
 * ({@link #isCompressed()}) {@code size} is the compressed size in the file, as readelf prints it;
 * {@link ElfFile#sectionData(String)} returns the decompressed bytes.
 *
 * @param index the section's index in the section header table (0 is the null section)
 * @param name the name from the section header string table ({@code ""} when there is none)
 * @param type {@code sh_type}, e.g. {@link #SHT_PROGBITS}
 * @param flags {@code sh_flags}, e.g. {@link #SHF_ALLOC}
 * @param addr {@code sh_addr}, the link-time address (0 for sections not loaded)
 * @param offset {@code sh_offset}, where the bytes start in the file
 * @param size {@code sh_size}
 * @param link {@code sh_link} (for symbol tables: the index of their string table)
 * @param info {@code sh_info}
 * @param addralign {@code sh_addralign}
 * @param entsize {@code sh_entsize}
 */
public record ElfSection(
    int index,
    String name,
    int type,
    long flags,
    long addr,
    long offset,
    long size,
    int link,
    int info,
    long addralign,
    long entsize) {
  public static final int SHT_NULL = 0;
  public static final int SHT_PROGBITS = 1;
  public static final int SHT_SYMTAB = 2;
  public static final int SHT_STRTAB = 3;
  public static final int SHT_RELA = 4;
  public static final int SHT_NOTE = 7;
  public static final int SHT_NOBITS = 8;
  public static final int SHT_DYNSYM = 11;
  public static final int SHT_SYMTAB_SHNDX = 18;

  public static final long SHF_WRITE = 0x1;
  public static final long SHF_ALLOC = 0x2;
  public static final long SHF_EXECINSTR = 0x4;
  public static final long SHF_TLS = 0x400;
  public static final long SHF_COMPRESSED = 0x800;

  public boolean isAlloc() {
    return (flags & SHF_ALLOC) != 0;
  }

  public boolean isExecutable() {
    return (flags & SHF_EXECINSTR) != 0;
  }

  public boolean isCompressed() {
    return (flags & SHF_COMPRESSED) != 0;
  }

  /** Whether the section occupies no bytes in the file ({@code SHT_NOBITS}, e.g. {@code .bss}). */
  public boolean isNobits() {
    return type == SHT_NOBITS;
  }

  /** Whether the section's addresses {@code [addr, addr + size)} hold {@code vaddr}. */
  public boolean holdsAddress(long vaddr) {
    return size != 0
        && Long.compareUnsigned(vaddr, addr) >= 0
        && Long.compareUnsigned(vaddr - addr, size) < 0;
  }
}
