package dev.fleetprof.symbols.dwarf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A bounds-checked read position in one section: every read past {@link #end} throws a {@link
 * DwarfFormatException} naming the section and the offset, so a lying length or a truncated section
 * can never read another structure's bytes or loop.
 */
final class Cursor {
  final ByteBuffer buf;
  final String section;
  final boolean little;
  int pos;
  int end;

  Cursor(ByteBuffer buf, String section, int pos, int end) {
    this.buf = buf;
    this.section = section;
    this.little = buf.order() == ByteOrder.LITTLE_ENDIAN;
    this.pos = pos;
    this.end = end;
  }

  static Cursor of(ByteBuffer buf, String section) {
    return new Cursor(buf, section, 0, buf.limit());
  }

  DwarfFormatException error(String problem) {
    return new DwarfFormatException(section, pos, problem);
  }

  DwarfFormatException error(long at, String problem) {
    return new DwarfFormatException(section, at, problem);
  }

  private void need(int n) throws DwarfFormatException {
    if (n < 0 || end - pos < n) {
      throw error("needs " + n + " more bytes, " + Math.max(0, end - pos) + " left before " + end);
    }
  }

  boolean hasMore() {
    return pos < end;
  }

  int remaining() {
    return end - pos;
  }

  void seek(long to) throws DwarfFormatException {
    if (to < 0 || to > end) {
      throw error("offset " + to + " is outside the data (ends at " + end + ")");
    }
    pos = (int) to;
  }

  void skip(long n) throws DwarfFormatException {
    if (n < 0 || n > end - pos) {
      throw error("skips " + Long.toUnsignedString(n) + " bytes, " + (end - pos) + " left");
    }
    pos += (int) n;
  }

  int u8() throws DwarfFormatException {
    need(1);
    return buf.get(pos++) & 0xff;
  }

  int u16() throws DwarfFormatException {
    need(2);
    int a = buf.get(pos) & 0xff;
    int b = buf.get(pos + 1) & 0xff;
    pos += 2;
    return little ? a | b << 8 : a << 8 | b;
  }

  int u24() throws DwarfFormatException {
    need(3);
    int a = buf.get(pos) & 0xff;
    int b = buf.get(pos + 1) & 0xff;
    int c = buf.get(pos + 2) & 0xff;
    pos += 3;
    return little ? a | b << 8 | c << 16 : a << 16 | b << 8 | c;
  }

  long u32() throws DwarfFormatException {
    need(4);
    int v = buf.getInt(pos);
    pos += 4;
    return v & 0xffffffffL;
  }

  long u64() throws DwarfFormatException {
    need(8);
    long v = buf.getLong(pos);
    pos += 8;
    return v;
  }

  /** An unsigned value of 1, 2, 3, 4 or 8 bytes (address and offset sizes). */
  long unsigned(int size) throws DwarfFormatException {
    switch (size) {
      case 1:
        return u8();
      case 2:
        return u16();
      case 3:
        return u24();
      case 4:
        return u32();
      case 8:
        return u64();
      default:
        throw error("unsupported value size " + size);
    }
  }

  /** ULEB128; bits past the 64th are dropped (as binutils does), never an endless read. */
  long uleb() throws DwarfFormatException {
    long result = 0;
    int shift = 0;
    while (true) {
      if (pos >= end) {
        throw error("LEB128 runs past the end (" + end + ")");
      }
      int b = buf.get(pos++);
      if (shift < 64) {
        result |= (long) (b & 0x7f) << shift;
      }
      shift += 7;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
  }

  long sleb() throws DwarfFormatException {
    long result = 0;
    int shift = 0;
    int b;
    do {
      if (pos >= end) {
        throw error("LEB128 runs past the end (" + end + ")");
      }
      b = buf.get(pos++);
      if (shift < 64) {
        result |= (long) (b & 0x7f) << shift;
      }
      shift += 7;
    } while ((b & 0x80) != 0);
    if (shift < 64 && (b & 0x40) != 0) {
      result |= -1L << shift;
    }
    return result;
  }

  /** A ULEB128 that must fit an int (counts, sizes): larger is malformed. */
  int ulebInt(String what) throws DwarfFormatException {
    int at = pos;
    long v = uleb();
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw error(at, what + " " + Long.toUnsignedString(v) + " is too large");
    }
    return (int) v;
  }

  /** Skips a NUL-terminated string, returning its start. */
  int skipCString() throws DwarfFormatException {
    int start = pos;
    int p = pos;
    while (true) {
      if (p >= end) {
        throw error(start, "string is not NUL-terminated before " + end);
      }
      if (buf.get(p++) == 0) {
        pos = p;
        return start;
      }
    }
  }
}
