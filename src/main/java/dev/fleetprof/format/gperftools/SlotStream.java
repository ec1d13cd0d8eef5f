package dev.fleetprof.format.gperftools;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads 4- or 8-byte slots from a stream through one large buffer, tracking the absolute file
 * offset. Large sequential reads and no per-slot allocation keep decoding close to memory speed.
 */
final class SlotStream {
  /** The most bytes one {@link #ensure} may ask for: a record of 2 + 65536 slots of 8 bytes. */
  static final int MAX_ENSURE = (2 + CpuProfileReader.MAX_DEPTH) * 8;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

  private final InputStream in;
  private final int width;

  /**
   * The byte order, as a flag: the JIT turns reads through the static final VarHandles above into
   * plain loads, but not reads through a VarHandle held in a field (a profile showed 65-83% of
   * decoding in VarHandle's generic path).
   */
  private final boolean bigEndian;

  private byte[] buf;
  private int pos;
  private int lim;
  private long bufStart;
  private boolean eof;

  SlotStream(InputStream in, long startOffset, int width, boolean bigEndian, byte[] buffer) {
    this.in = in;
    this.width = width;
    this.bigEndian = bigEndian;
    this.buf = buffer != null && buffer.length >= 64 ? buffer : new byte[1 << 18];
    this.bufStart = startOffset;
  }

  long position() {
    return bufStart + pos;
  }

  byte[] buffer() {
    return buf;
  }

  /** Makes {@code n} bytes readable without refilling; false when the stream ends first. */
  boolean ensure(int n) throws IOException {
    if (lim - pos >= n) {
      return true;
    }
    if (n > buf.length) {
      byte[] bigger = new byte[Math.max(n, Math.min(MAX_ENSURE, buf.length * 2))];
      System.arraycopy(buf, pos, bigger, 0, lim - pos);
      bufStart += pos;
      lim -= pos;
      pos = 0;
      buf = bigger;
    } else if (pos > 0) {
      System.arraycopy(buf, pos, buf, 0, lim - pos);
      bufStart += pos;
      lim -= pos;
      pos = 0;
    }
    while (lim < n && !eof) {
      int r = in.read(buf, lim, buf.length - lim);
      if (r < 0) {
        eof = true;
      } else {
        lim += r;
      }
    }
    return lim - pos >= n;
  }

  /** Bytes readable now without refilling. */
  int buffered() {
    return lim - pos;
  }

  /** The next slot; call {@link #ensure} first. Unsigned values come back as their bit pattern. */
  long slot() {
    long v;
    if (width == 8) {
      v = bigEndian ? (long) LONG_BE.get(buf, pos) : (long) LONG_LE.get(buf, pos);
    } else {
      v = (bigEndian ? (int) INT_BE.get(buf, pos) : (int) INT_LE.get(buf, pos)) & 0xffffffffL;
    }
    pos += width;
    return v;
  }

  /** Reads {@code n} slots into {@code out}; call {@link #ensure} for {@code n * width} first. */
  void slots(long[] out, int n) {
    int p = pos;
    if (width == 8 && !bigEndian) {
      for (int i = 0; i < n; i++, p += 8) {
        out[i] = (long) LONG_LE.get(buf, p);
      }
    } else if (width == 8) {
      for (int i = 0; i < n; i++, p += 8) {
        out[i] = (long) LONG_BE.get(buf, p);
      }
    } else if (!bigEndian) {
      for (int i = 0; i < n; i++, p += 4) {
        out[i] = ((int) INT_LE.get(buf, p)) & 0xffffffffL;
      }
    } else {
      for (int i = 0; i < n; i++, p += 4) {
        out[i] = ((int) INT_BE.get(buf, p)) & 0xffffffffL;
      }
    }
    pos = p;
  }

  /** Skips {@code bytes}; false when the stream ends first (then everything left was skipped). */
  boolean skip(long bytes) throws IOException {
    while (bytes > 0) {
      if (pos == lim && !ensure(1)) {
        return false;
      }
      int step = (int) Math.min(bytes, lim - pos);
      pos += step;
      bytes -= step;
    }
    return true;
  }

  /** The rest of the stream, from {@link #position()} on (this stream is not used after). */
  InputStream remaining() {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        if (pos < lim) {
          int n = Math.min(len, lim - pos);
          System.arraycopy(buf, pos, b, off, n);
          pos += n;
          return n;
        }
        return eof ? -1 : in.read(b, off, len);
      }
    };
  }
}
