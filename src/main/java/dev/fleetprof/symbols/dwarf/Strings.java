package dev.fleetprof.symbols.dwarf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * NUL-terminated strings of one section, decoded once per offset. Not thread-safe: used while
 * building and, for line tables, under the owning unit's lock.
 */
final class Strings {
  private final ByteBuffer buf;
  private final Map<Integer, String> cache = new HashMap<>();

  Strings(ByteBuffer buf) {
    this.buf = buf;
  }

  /**
   * The string at {@code offset}, or null when the section is absent, the offset is outside it or
   * the string is empty (binutils treats an empty name as no name).
   */
  String at(long offset) {
    if (buf == null || offset < 0 || offset >= buf.limit()) {
      return null;
    }
    int start = (int) offset;
    String s = cache.get(start);
    if (s == null && !cache.containsKey(start)) {
      s = decode(buf, start, buf.limit());
      cache.put(start, s);
    }
    return s;
  }

  /** Decodes the string at {@code start} (ending at a NUL or at {@code end}); null if empty. */
  static String decode(ByteBuffer buf, int start, int end) {
    int p = start;
    while (p < end && buf.get(p) != 0) {
      p++;
    }
    if (p == start) {
      return null;
    }
    byte[] bytes = new byte[p - start];
    buf.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
