package dev.fleetprof.symbols.elf;

/**
 * A function-like ELF symbol, as {@link SymbolTable#lookup(long)} returns it.
 *
 * @param name the symbol's name as the binary stores it (mangled for C++, no version suffix)
 * @param value {@code st_value}: the link-time address of the symbol's first byte (for relocatable
 *     objects, the offset in its section)
 * @param size {@code st_size}, 0 when the symbol does not say (hand-written assembly)
 * @param file the name of the {@code STT_FILE} symbol binutils attributes the symbol to, which
 *     {@code addr2line} prints as the file when no DWARF knows the address: the last FILE symbol
 *     before it in the table, for a global symbol only while no FILE symbol has followed another
 *     symbol (linkers put one, often named "", between the locals and the globals); null when none
 */
public record ElfSymbol(String name, long value, long size, String file) {}
