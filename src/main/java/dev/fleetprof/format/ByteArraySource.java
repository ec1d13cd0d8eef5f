package dev.fleetprof.format;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

/**
 * A file already in memory, as a {@link ByteSource}: decoders open a file several times (its head
 * to tell the format, a CPU profile's tail for its mappings, then its records), which for a small
 * file costs more than reading it (each open of a Hadoop stream allocates its buffer and may look
 * for a checksum file). A small file is therefore read once and opened here.
 */
public final class ByteArraySource implements ByteSource {
  private final String name;
  private final byte[] bytes;
  private final int length;

  /** The file {@code name} whose bytes are {@code bytes[0..length)}; the array is not copied. */
  public ByteArraySource(String name, byte[] bytes, int length) {
    if (length < 0 || length > bytes.length) {
      throw new IllegalArgumentException(
          "length " + length + " of a " + bytes.length + "-byte array");
    }
    this.name = name;
    this.bytes = bytes;
    this.length = length;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public InputStream open(long offset) {
    int from = (int) Math.min(Math.max(0, offset), length);
    return new ByteArrayInputStream(bytes, from, length - from);
  }
}
