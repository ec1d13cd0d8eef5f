package dev.fleetprof.symbols.elf;

/**
 * A function-like ELF symbol, as {@link SymbolTable#lookup(long)} returns it.
 *
 * @param name the symbol's name as the binary stores it (mangled for C++, no version suffix)
 * @param value {@code st_value}: the link-time address of the symbol's first byte (for relocatable
 *     objects, the offset in its section)
 * @param size {@code st_size}, 0 when the symbol does not say (hand-written assembly)
 */
public record ElfSymbol(String name, long value, long size) {}
