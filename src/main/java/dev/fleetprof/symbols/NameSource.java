package dev.fleetprof.symbols;

/**
 * Where the name of a symbolized address came from, so that a reader can weigh it: a DWARF or
 * {@code .symtab} name is the compiler's or linker's own record of the function; a {@code .dynsym}
 * name is one of the few exported symbols a stripped binary keeps, trusted only for the bytes the
 * symbol covers; a {@code cfi} name is no name at all, only the boundary of the function the
 * address is in.
 */
public enum NameSource {
  /** DWARF debugging information (of the binary or of its separate debug file). */
  DWARF("dwarf"),
  /** The full ELF symbol table, {@code .symtab} (of the binary or of its debug file). */
  SYMTAB("symtab"),
  /** The dynamic symbol table, {@code .dynsym}: exported symbols only. */
  DYNSYM("dynsym"),
  /**
   * Call-frame information ({@code .eh_frame}/{@code .debug_frame}): a boundary-only name {@code
   * MODULE+0xSTART} for a function no symbol covers.
   */
  CFI("cfi"),
  /** Nothing knows the address. */
  NONE("none");

  private final String label;

  NameSource(String label) {
    this.label = label;
  }

  /** The lower-case word datasets and reports use: dwarf, symtab, dynsym, cfi or none. */
  public String label() {
    return label;
  }
}
