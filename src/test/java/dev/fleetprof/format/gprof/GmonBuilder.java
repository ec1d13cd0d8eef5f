package dev.fleetprof.format.gprof;

import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Writes small gmon files byte by byte for the cases real tools no longer produce. */
final class GmonBuilder {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteOrder order;
  private final int p;

  GmonBuilder(ByteOrder order, int pointerSize) {
    this.order = order;
    this.p = pointerSize;
  }

  int size() {
    return out.size();
  }

  GmonBuilder num(long v, int width) {
    for (int i = 0; i < width; i++) {
      int shift = order == ByteOrder.LITTLE_ENDIAN ? 8 * i : 8 * (width - 1 - i);
      out.write((int) (v >>> shift) & 0xff);
    }
    return this;
  }

  GmonBuilder ptr(long v) {
    return num(v, p);
  }

  GmonBuilder raw(byte[] bytes) {
    out.writeBytes(bytes);
    return this;
  }

  GmonBuilder raw(int... bytes) {
    for (int b : bytes) {
      out.write(b);
    }
    return this;
  }

  /** GNU header; the spare bytes are deliberately not zero (readers must not validate them). */
  GmonBuilder gnuHeader(int version) {
    out.writeBytes("gmon".getBytes(StandardCharsets.US_ASCII));
    num(version, 4);
    for (int i = 0; i < 12; i++) {
      out.write(0xa0 + i);
    }
    return this;
  }

  GmonBuilder hist(long low, long high, int rate, String dim, char abbrev, int... bins) {
    raw(0).ptr(low).ptr(high).num(bins.length, 4).num(rate, 4);
    byte[] d = new byte[15];
    byte[] s = dim.getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(s, 0, d, 0, s.length);
    out.writeBytes(d);
    out.write(abbrev);
    for (int b : bins) {
      num(b, 2);
    }
    return this;
  }

  GmonBuilder arc(long from, long self, long count) {
    return raw(1).ptr(from).ptr(self).num(count, 4);
  }

  /** Basic-block record with an {@code ncountsWidth}-byte count, then (address, count) pairs. */
  GmonBuilder bb(int ncountsWidth, long... addrCountPairs) {
    raw(2).num(addrCountPairs.length / 2, ncountsWidth);
    for (long v : addrCountPairs) {
      ptr(v);
    }
    return this;
  }

  byte[] bytes() {
    return out.toByteArray();
  }
}
