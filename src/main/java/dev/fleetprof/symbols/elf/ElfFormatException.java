package dev.fleetprof.symbols.elf;

import java.io.IOException;
import java.nio.file.Path;

/**
 * An ELF file that is malformed, truncated or lies about its own layout. The message names the file
 * and the byte offset (from the start of the file) of the field or the data that is wrong, so that
 * a bad binary in a fleet-wide job can be found and inspected with {@code readelf} or {@code xxd}.
 */
public class ElfFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long offset;

  /**
   * @param file the ELF file
   * @param offset the byte offset in {@code file} of the offending field or data
   * @param detail what is wrong there
   */
  public ElfFormatException(Path file, long offset, String detail) {
    this(file, offset, detail, null);
  }

  public ElfFormatException(Path file, long offset, String detail, Throwable cause) {
    super(
        file + ": at byte offset " + offset + " (0x" + Long.toHexString(offset) + "): " + detail,
        cause);
    this.file = file;
    this.offset = offset;
  }

  /** The ELF file that is malformed. */
  public Path file() {
    return file;
  }

  /** The byte offset in {@link #file()} of the offending field or data. */
  public long offset() {
    return offset;
  }
}
