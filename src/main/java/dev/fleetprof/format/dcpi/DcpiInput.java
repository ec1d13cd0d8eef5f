package dev.fleetprof.format.dcpi;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * A small buffered, position-tracking little-endian reader with lookahead. It never reads past
 * {@code limit} (the known file length, or {@link Long#MAX_VALUE} when unknown), so "end of input"
 * means the end of the file whether or not its length was known up front.
 */
final class DcpiInput implements Closeable {
  private final InputStream in;
  private final long limit;
  private final byte[] buf;
  private int pos;
  private int lim;
  private long bufStart;
  private boolean eof;

  DcpiInput(InputStream in, long start, long limit, int bufferSize) {
    this.in = in;
    this.limit = limit < 0 ? Long.MAX_VALUE : limit;
    this.buf = new byte[Math.max(16, bufferSize)];
    this.bufStart = start;
  }

  /** File offset of the next byte to be read. */
  long position() {
    return bufStart + pos;
  }

  /**
   * Makes at least {@code n} bytes available unless the input ends first; returns the number of
   * bytes available (at least {@code n}, or fewer exactly when the input ends within {@code n}
   * bytes).
   */
  int ensure(int n) throws IOException {
    if (n > buf.length) {
      throw new IllegalArgumentException("lookahead " + n + " exceeds buffer " + buf.length);
    }
    while (lim - pos < n && !eof) {
      if (pos > 0 && buf.length - pos < n) {
        System.arraycopy(buf, pos, buf, 0, lim - pos);
        bufStart += pos;
        lim -= pos;
        pos = 0;
      }
      long room = Math.min(buf.length - lim, limit - (bufStart + lim));
      if (room <= 0) {
        eof = true;
        break;
      }
      int r = in.read(buf, lim, (int) room);
      if (r == 0) {
        // a misbehaving stream: fall back to the blocking single-byte read instead of spinning
        int b = in.read();
        if (b >= 0) {
          buf[lim] = (byte) b;
          r = 1;
        } else {
          r = -1;
        }
      }
      if (r < 0) {
        eof = true;
      } else {
        lim += r;
      }
    }
    return lim - pos;
  }

  /** The next byte (0..255), or -1 at the end of the input. */
  int read() throws IOException {
    if (pos == lim && ensure(1) == 0) {
      return -1;
    }
    return buf[pos++] & 0xff;
  }

  /** The unsigned little-endian 32-bit value {@code delta} bytes ahead; the caller ensured it. */
  long peekU32(int delta) {
    int i = pos + delta;
    return (buf[i] & 0xffL)
        | (buf[i + 1] & 0xffL) << 8
        | (buf[i + 2] & 0xffL) << 16
        | (buf[i + 3] & 0xffL) << 24;
  }

  /** Reads an unsigned little-endian 32-bit value; the caller ensured 4 bytes are available. */
  long u32() {
    long v = peekU32(0);
    pos += 4;
    return v;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
