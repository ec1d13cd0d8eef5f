package dev.fleetprof.symbols.dwarf;

import java.io.IOException;

/**
 * DWARF data that does not follow the format: names the debug section and the byte offset inside
 * that (decompressed) section where the problem was found, so that a job over many binaries can say
 * which binary is bad and where.
 */
public class DwarfFormatException extends IOException {
  private final String section;
  private final long offset;
  private final String problem;

  public DwarfFormatException(String section, long offset, String problem) {
    super(section + ": at byte offset " + offset + ": " + problem);
    this.section = section;
    this.offset = offset;
    this.problem = problem;
  }

  /** The section, e.g. {@code .debug_info}. */
  public String section() {
    return section;
  }

  /** Byte offset inside the decompressed section. */
  public long offset() {
    return offset;
  }

  /** What is wrong, without the section and offset. */
  public String problem() {
    return problem;
  }
}
