/**
 * The DWARF layer of the symbolizer: from a virtual address to the inline chain {@code addr2line -f
 * -i} (binutils 2.40) prints, innermost first. {@link dev.fleetprof.symbols.dwarf.DwarfSections}
 * holds a binary's decompressed debug sections, {@link dev.fleetprof.symbols.dwarf.DwarfSymbolizer}
 * indexes them once and answers lookups from many threads, {@link
 * dev.fleetprof.symbols.dwarf.FunctionSymbols} supplies the ELF symbols addr2line falls back to.
 * Plain Java: no Spark, no native code.
 */
package dev.fleetprof.symbols.dwarf;
