package dev.fleetprof.symbols.dwarf;

/**
 * The binary's ELF function symbols, as addr2line consults them next to DWARF: for an address a
 * unit's line table covers but no DWARF function does, and for a function DWARF names without a
 * linkage name in a language that mangles (C++ {@code main}, {@code extern "C"} functions, some
 * template clones), addr2line prints the ELF symbol's name. Implementations must be safe for
 * concurrent calls. The ELF reader supplies the one addr2line uses ({@code
 * dev.fleetprof.symbols.elf.SymbolTable#functionSymbols()}); this package does not depend on it.
 */
@FunctionalInterface
public interface FunctionSymbols {
  /**
   * The symbol binutils' {@code _bfd_elf_find_function} picks for the code address {@code vaddr}:
   * among the function symbols of the section that holds {@code vaddr}, the one with the greatest
   * address at or below it (its size is not checked; on equal addresses the larger size, size 0
   * counting as 1, then the first in the table), or null when there is none.
   */
  Symbol nearest(long vaddr);

  /**
   * One ELF symbol as {@link #nearest} returns it.
   *
   * @param name the raw symbol name
   * @param address its value (virtual address)
   * @param file the name of the STT_FILE symbol binutils attributes it to (the last FILE symbol
   *     before it when it is local, or before any non-FILE symbol when global), or null
   */
  record Symbol(String name, long address, String file) {}
}
