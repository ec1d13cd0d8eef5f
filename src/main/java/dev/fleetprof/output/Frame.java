package dev.fleetprof.output;

import dev.fleetprof.symbols.SourceLine;
import java.util.List;
import java.util.Objects;

/**
 * One frame of an aggregated stack, as the {@code frames} column stores it: the mapped file and the
 * pc's offset in it, so that the same code has the same frame on every host (ASLR-proof), and, once
 * the frame is symbolized, what source code that offset is.
 *
 * <p>Offsets follow pprof's convention: a caller frame of a CPU sample holds the return address
 * minus one (inside the call instruction), so its offset and its {@code lines} name the call, not
 * the instruction after it. The writers do not adjust offsets.
 *
 * @param module the mapped file; {@code ""} for an anonymous executable mapping (JIT code), null
 *     when no mapping held the pc (then {@code offset} is the pc itself)
 * @param offset the offset in {@code module} (or the pc), an unsigned 64-bit bit pattern
 * @param lines the location's inline chain, INNERMOST FIRST as pprof's {@code Location.line} (see
 *     {@link SourceLine}): the function the instruction belongs to, then each function it was
 *     inlined into; empty when the frame is not symbolized (e.g. its binary was not found). Never
 *     null; copied into an immutable list. Two frames at one location carry the same chain, so
 *     including it in {@code equals} changes nothing for well-formed input.
 * @param boundaryOnly whether the chain's one name is a guess: no symbol covers the address, and
 *     the name {@code MODULE+0xSTART} only says where the function it is in starts, from the
 *     call-frame information (the fleet job's {@code name_source = 'cfi'}). The outputs show it as
 *     such: pprof gets the address alone, the flame graph marks the box.
 */
public record Frame(String module, long offset, List<SourceLine> lines, boolean boundaryOnly) {
  /** How every output names the anonymous executable mapping ({@code module = ""}). */
  public static final String ANONYMOUS = "[anon]";

  public Frame {
    lines =
        List.copyOf(
            Objects.requireNonNull(
                lines, "lines is null; an unsymbolized frame has an empty chain (List.of())"));
    if (boundaryOnly && lines.size() != 1) {
      throw new IllegalArgumentException(
          "a boundary-only name is one function, not a chain of " + lines.size());
    }
  }

  /** A frame whose names, if any, are the binary's own (DWARF or a symbol table). */
  public Frame(String module, long offset, List<SourceLine> lines) {
    this(module, offset, lines, false);
  }

  /** An unsymbolized frame: an empty chain. */
  public Frame(String module, long offset) {
    this(module, offset, List.of());
  }

  /** Whether the frame has an inline chain (at least one function). */
  public boolean isSymbolized() {
    return !lines.isEmpty();
  }

  /** The innermost function of the chain (the one the instruction belongs to), or null. */
  public String function() {
    return lines.isEmpty() ? null : lines.get(0).function();
  }

  /** What a person reads for the frame: its {@link #function()}, else its {@link #label()}. */
  public String displayName() {
    return lines.isEmpty() ? label() : lines.get(0).function();
  }

  /** {@link #displayName()}, with {@link #shortLabel()} for an unsymbolized frame. */
  public String shortDisplayName() {
    return lines.isEmpty() ? shortLabel() : lines.get(0).function();
  }

  /**
   * {@code module+0xoffset} with the full module path, {@code [anon]+0xoffset} for an anonymous
   * mapping, {@code 0xpc} when no mapping held the pc; unescaped, for display. The address only,
   * symbolized or not.
   */
  public String label() {
    return module == null ? hex(offset) : displayModule() + "+" + hex(offset);
  }

  /** {@link #label()} with only the module's file name: what fits in a flame graph box. */
  public String shortLabel() {
    if (module == null) {
      return hex(offset);
    }
    String m = displayModule();
    return m.substring(m.lastIndexOf('/') + 1) + "+" + hex(offset);
  }

  /** The module as outputs show it: {@link #ANONYMOUS} for {@code ""}; null stays null. */
  public String displayModule() {
    return module == null ? null : module.isEmpty() ? ANONYMOUS : module;
  }

  static String hex(long v) {
    return "0x" + Long.toHexString(v);
  }
}
