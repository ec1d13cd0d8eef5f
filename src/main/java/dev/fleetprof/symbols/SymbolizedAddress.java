package dev.fleetprof.symbols;

import java.util.List;

/**
 * What {@link BinarySymbols} knows about one address: its inline chain and where the names in it
 * came from.
 *
 * @param lines the inline chain, innermost first (see {@link SourceLine}); empty when {@code
 *     source} is {@link NameSource#NONE}
 * @param source where the names came from; one source for the whole chain
 */
public record SymbolizedAddress(List<SourceLine> lines, NameSource source) {
  static final SymbolizedAddress NONE = new SymbolizedAddress(List.of(), NameSource.NONE);

  public SymbolizedAddress {
    lines = List.copyOf(lines);
    if (lines.isEmpty() != (source == NameSource.NONE)) {
      throw new IllegalArgumentException(source + " with " + lines.size() + " lines");
    }
  }
}
