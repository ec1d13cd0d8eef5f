package dev.fleetprof.symbols;

/**
 * One entry of a symbolized code location's inline chain, as {@code addr2line -f -i -C} prints one
 * function/file:line pair. A location's chain is a list of these, INNERMOST FIRST (pprof's {@code
 * Location.Line} order): the first is the function the instruction belongs to after inlining (its
 * file and line are the instruction's), each next one is the function it was inlined into, with the
 * file and line of the call that was inlined.
 *
 * @param function the function as people read it: C++ names demangled as {@code c++filt} prints
 *     them, other names as they are; never null
 * @param symbol the raw name the binary stores (the DWARF linkage name or the ELF symbol, mangled),
 *     equal to {@code function} for C
 * @param file the source file as {@code addr2line} prints it (the directory joined to the name), or
 *     null when the binary has no line information for the address
 * @param line the 1-based source line, or 0 when unknown
 */
public record SourceLine(String function, String symbol, String file, long line) {
  public SourceLine {
    if (function == null) {
      throw new IllegalArgumentException("function is null");
    }
  }
}
