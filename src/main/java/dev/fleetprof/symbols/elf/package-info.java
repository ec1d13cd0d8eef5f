/**
 * ELF files read with our own code (no ELF library): {@link dev.fleetprof.symbols.elf.ElfFile}
 * (headers, program headers, sections with zlib/zstd/{@code .zdebug} decompression, GNU build ID,
 * {@code .gnu_debuglink}, file offset to link-time address), {@link
 * dev.fleetprof.symbols.elf.SymbolTable} (when there is no DWARF: the function symbol that contains
 * an address, as {@code llvm-symbolizer} decides it, and the one {@code addr2line -f} names) and
 * {@link dev.fleetprof.symbols.elf.CallFrameIndex} (function boundaries from {@code .eh_frame} and
 * {@code .debug_frame}). 32- and 64-bit, either byte order; files of any size (only headers and the
 * sections asked for are read or mapped); malformed files give {@link
 * dev.fleetprof.symbols.elf.ElfFormatException} with the file and byte offset.
 *
 * <p>Typical use for one frame of a profile (a file offset in a mapping): open the runtime binary,
 * convert with {@code fileOffsetToVaddr}, then look the address up in the DWARF of the binary or of
 * its debug file (found by {@code buildId()} or {@code debugLink()}), falling back to {@code
 * SymbolTable.containing}, then to {@code CallFrameIndex.containing} for a boundary without a name
 * ({@code SymbolTable.functionSymbols()} hands addr2line's choice to the DWARF symbolizer, for
 * addresses DWARF covers). Program headers must come from the runtime binary: in {@code objcopy
 * --only-keep-debug} files the load segments hold no file bytes.
 */
package dev.fleetprof.symbols.elf;
