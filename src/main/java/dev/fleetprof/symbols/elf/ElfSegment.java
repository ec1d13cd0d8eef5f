package dev.fleetprof.symbols.elf;

/**
 * One program header (segment), as {@code readelf -lW} prints it. Addresses and sizes are unsigned
 * 64-bit values held in a {@code long} (32-bit files are zero-extended).
 *
 * @param type {@code p_type}, e.g. {@link #PT_LOAD}
 * @param flags {@code p_flags}: {@link #PF_X}, {@link #PF_W}, {@link #PF_R}
 * @param offset {@code p_offset}, the segment's first byte in the file
 * @param vaddr {@code p_vaddr}, the link-time virtual address of that byte
 * @param filesz {@code p_filesz}, the bytes the file holds (0 in {@code --only-keep-debug} files)
 * @param memsz {@code p_memsz}, the bytes the segment occupies in memory
 */
public record ElfSegment(int type, int flags, long offset, long vaddr, long filesz, long memsz) {
  public static final int PT_NULL = 0;
  public static final int PT_LOAD = 1;
  public static final int PT_DYNAMIC = 2;
  public static final int PT_INTERP = 3;
  public static final int PT_NOTE = 4;
  public static final int PT_PHDR = 6;
  public static final int PT_TLS = 7;

  public static final int PF_X = 1;
  public static final int PF_W = 2;
  public static final int PF_R = 4;

  public boolean isLoad() {
    return type == PT_LOAD;
  }

  public boolean isExecutable() {
    return (flags & PF_X) != 0;
  }

  /** Whether the file bytes {@code [offset, offset + filesz)} hold {@code fileOffset}. */
  public boolean holdsFileOffset(long fileOffset) {
    return filesz != 0
        && Long.compareUnsigned(fileOffset, offset) >= 0
        && Long.compareUnsigned(fileOffset - offset, filesz) < 0;
  }
}
