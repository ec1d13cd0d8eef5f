/**
 * Symbolization, plain Java with no Spark: from a module's file offset (or a link-time address) to
 * functions, source files and lines, inlined frames included. {@code elf/} reads ELF files (program
 * headers, sections, symbol tables, build IDs), {@code dwarf/} reads DWARF line tables and inlined
 * subroutines, {@code demangle/} turns Itanium C++ names into what {@code c++filt} prints.
 */
package dev.fleetprof.symbols;
