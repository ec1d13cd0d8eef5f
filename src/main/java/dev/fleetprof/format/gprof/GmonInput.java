package dev.fleetprof.format.gprof;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;

/**
 * A forward-only buffered reader over one gmon file that knows its absolute byte position. Memory
 * is one fixed buffer, whatever the file size. Skipping is done by reading, so the end of file is
 * found exactly even on streams whose {@code skip} runs past it.
 */
final class GmonInput implements Closeable {
  private static final int BUFFER = 64 * 1024;

  private final InputStream in;
  private final byte[] buf = new byte[BUFFER];
  private final boolean little;
  private int pos;
  private int lim;
  private long base; // file offset of buf[0]
  private boolean eof;

  GmonInput(InputStream in, long startOffset, ByteOrder order) {
    this.in = in;
    this.base = startOffset;
    this.little = order == ByteOrder.LITTLE_ENDIAN;
  }

  /** Absolute offset of the next unread byte. */
  long position() {
    return base + pos;
  }

  /** Tries to have at least {@code n} (at most the buffer size) unread bytes buffered. */
  boolean ensure(int n) throws IOException {
    if (lim - pos >= n) {
      return true;
    }
    if (eof) {
      return false;
    }
    if (pos > 0) {
      int left = lim - pos;
      System.arraycopy(buf, pos, buf, 0, left);
      base += pos;
      pos = 0;
      lim = left;
    }
    while (lim < n) {
      int r = in.read(buf, lim, buf.length - lim);
      if (r < 0) {
        eof = true;
        return false;
      }
      lim += r;
    }
    return true;
  }

  /** True when no byte is left. */
  boolean atEnd() throws IOException {
    return !ensure(1);
  }

  /** Bytes buffered and not yet consumed. */
  int buffered() {
    return lim - pos;
  }

  /** Reads one byte; the caller has checked {@link #ensure}. */
  int u8() {
    return buf[pos++] & 0xff;
  }

  int u16() {
    int a = buf[pos] & 0xff;
    int b = buf[pos + 1] & 0xff;
    pos += 2;
    return little ? (a | b << 8) : (a << 8 | b);
  }

  long u32() {
    long v = 0;
    if (little) {
      for (int i = 3; i >= 0; i--) {
        v = v << 8 | (buf[pos + i] & 0xff);
      }
    } else {
      for (int i = 0; i < 4; i++) {
        v = v << 8 | (buf[pos + i] & 0xff);
      }
    }
    pos += 4;
    return v;
  }

  long u64() {
    long v = 0;
    if (little) {
      for (int i = 7; i >= 0; i--) {
        v = v << 8 | (buf[pos + i] & 0xff);
      }
    } else {
      for (int i = 0; i < 8; i++) {
        v = v << 8 | (buf[pos + i] & 0xff);
      }
    }
    pos += 8;
    return v;
  }

  /** Reads an unsigned value of {@code width} (4 or 8) bytes. */
  long word(int width) {
    return width == 8 ? u64() : u32();
  }

  /** Copies {@code n} buffered bytes into {@code dst}. */
  void bytes(byte[] dst, int n) {
    System.arraycopy(buf, pos, dst, 0, n);
    pos += n;
  }

  /**
   * Skips up to {@code n} bytes by reading; returns how many were skipped (fewer only at end of
   * file).
   */
  long skip(long n) throws IOException {
    long done = 0;
    while (done < n) {
      if (pos == lim && !ensure(1)) {
        break;
      }
      int step = (int) Math.min(lim - pos, n - done);
      pos += step;
      done += step;
    }
    return done;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
