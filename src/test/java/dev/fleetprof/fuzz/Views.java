package dev.fleetprof.fuzz;

import dev.fleetprof.format.ByteSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Byte sources over the first {@code len} bytes of an array, without copying it: checking every
 * prefix of a 300 KB file must not copy 300 KB per prefix.
 */
final class Views {
  private Views() {}

  /** Length known, any offset: a local or HDFS file. */
  static ByteSource known(String name, byte[] data, int len) {
    return new ByteSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long length() {
        return len;
      }

      @Override
      public InputStream open(long offset) {
        int from = (int) Math.min(offset, len);
        return new ByteArrayInputStream(data, from, len - from);
      }
    };
  }

  /**
   * Length unknown (-1), offset 0 only, 1 to 7 bytes per read: a decompressing stream at its most
   * awkward, so that every refill path of a decoder runs.
   */
  static ByteSource unknown(String name, byte[] data, int len) {
    return unknown(name, data, len, true);
  }

  /** Length unknown (-1), offset 0 only; {@code trickle}: 1 to 7 bytes per read, else all at once. */
  static ByteSource unknown(String name, byte[] data, int len, boolean trickle) {
    return new ByteSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long length() {
        return -1;
      }

      @Override
      public InputStream open(long offset) throws IOException {
        if (offset != 0) {
          throw new IOException(name + ": a stream of unknown length opens at 0 only, not " + offset);
        }
        return trickle ? new Trickle(data, len) : new ByteArrayInputStream(data, 0, len);
      }
    };
  }

  private static final class Trickle extends InputStream {
    private final byte[] data;
    private final int len;
    private int pos;
    private int step;

    Trickle(byte[] data, int len) {
      this.data = data;
      this.len = len;
    }

    @Override
    public int read() {
      return pos < len ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int n) {
      if (n == 0) {
        return 0;
      }
      if (pos >= len) {
        return -1;
      }
      step = step % 7 + 1;
      int k = Math.min(Math.min(n, step), len - pos);
      System.arraycopy(data, pos, b, off, k);
      pos += k;
      return k;
    }
  }
}
