package dev.fleetprof.output;

/**
 * One frame of an aggregated stack, as the {@code frames} column stores it: the mapped file and the
 * pc's offset in it, so that the same code has the same frame on every host (ASLR-proof).
 *
 * @param module the mapped file; {@code ""} for an anonymous executable mapping (JIT code), null when
 *     no mapping held the pc (then {@code offset} is the pc itself)
 * @param offset the offset in {@code module} (or the pc), an unsigned 64-bit bit pattern
 */
public record Frame(String module, long offset) {
  /** How every output names the anonymous executable mapping ({@code module = ""}). */
  public static final String ANONYMOUS = "[anon]";

  /**
   * {@code module+0xoffset} with the full module path, {@code [anon]+0xoffset} for an anonymous
   * mapping, {@code 0xpc} when no mapping held the pc; unescaped, for display.
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
