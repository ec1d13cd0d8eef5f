package dev.fleetprof.format;

import java.util.Map;

/**
 * What a caller wants from a decoder: the format options the user set (under their documented
 * names), whether call chains and the file's mappings are needed at all (a reader that only sums
 * counts skips both, which is most of the work), and an optional read buffer to reuse across files.
 */
public record DecodeOptions(
    Map<String, String> formatOptions, boolean needsChains, boolean needsMappings, byte[] buffer) {

  /** Everything decoded, no format options: what tests and tools that read one file want. */
  public static final DecodeOptions ALL = new DecodeOptions(Map.of(), true, true, null);

  public DecodeOptions {
    formatOptions = Map.copyOf(formatOptions);
  }

  /** The option's value, or {@code fallback} when unset. */
  public String option(String name, String fallback) {
    return formatOptions.getOrDefault(name, fallback);
  }
}
