package dev.fleetprof.testing;

import dev.fleetprof.format.ByteArraySource;
import dev.fleetprof.format.ByteSource;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** ByteSources for tests: known length, unknown length (trickling), gzip. */
public final class TestSources {
  private TestSources() {}

  /** Opens a stream at an offset: the one part in which the test sources differ. */
  private interface Opener {
    InputStream open(long offset) throws IOException;
  }

  /** The size of a source that is only known by asking (a file's, say). */
  private interface Length {
    long get() throws IOException;
  }

  private static ByteSource source(String name, Length length, Opener opener) {
    return new ByteSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long length() throws IOException {
        return length.get();
      }

      @Override
      public InputStream open(long offset) throws IOException {
        return opener.open(offset);
      }
    };
  }

  /** The bytes of a local file, length known, any offset. */
  public static ByteSource file(Path path) {
    return source(
        path.toString(),
        () -> Files.size(path),
        offset -> {
          InputStream in = Files.newInputStream(path);
          in.skipNBytes(offset);
          return in;
        });
  }

  /** In-memory bytes, length known, any offset. */
  public static ByteSource bytes(String name, byte[] data) {
    return bytes(name, data, data.length);
  }

  /**
   * The first {@code len} bytes of {@code data}, without copying them (checking every prefix of a
   * 300 KB file must not copy 300 KB per prefix); length known, any offset.
   */
  public static ByteSource bytes(String name, byte[] data, int len) {
    return new ByteArraySource(name, data, len);
  }

  /** In-memory bytes of unknown length (-1), offset 0 only, delivered 1 to 7 bytes per read. */
  public static ByteSource unknownLength(String name, byte[] data) {
    return unknownLength(name, data, data.length, true);
  }

  /**
   * The first {@code len} bytes of {@code data} as a stream of unknown length (-1), offset 0 only,
   * as a decompressing stream is; {@code trickle}: 1 to 7 bytes per read, so that every refill path
   * of a decoder runs, else all at once.
   */
  public static ByteSource unknownLength(String name, byte[] data, int len, boolean trickle) {
    return source(
        name,
        () -> -1,
        offset -> {
          if (offset != 0) {
            throw new IOException(
                name + ": a stream of unknown length opens at 0 only, not " + offset);
          }
          return trickle ? new TrickleStream(data, len) : new ByteArrayInputStream(data, 0, len);
        });
  }

  /** Gzip-compressed in memory; the stream decompresses; length -1 like a compressed file. */
  public static ByteSource gzip(String name, byte[] data) {
    byte[] packed = compress(data);
    return source(
        name,
        () -> -1,
        offset -> {
          if (offset != 0) {
            throw new IOException("gzip source opened at " + offset + ": offset 0 only");
          }
          return new GZIPInputStream(new ByteArrayInputStream(packed));
        });
  }

  private static final class TrickleStream extends InputStream {
    private final byte[] data;
    private final int len;
    private int pos;
    private int step;

    TrickleStream(byte[] data, int len) {
      this.data = data;
      this.len = len;
    }

    @Override
    public int read() {
      return pos < len ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (pos >= this.len) {
        return -1;
      }
      step = step % 7 + 1;
      int n = Math.min(Math.min(len, step), this.len - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  /** {@code data} gzip-compressed. */
  public static byte[] compress(byte[] data) {
    try {
      ByteArrayOutputStream bo = new ByteArrayOutputStream();
      try (GZIPOutputStream gz = new GZIPOutputStream(bo)) {
        gz.write(data);
      }
      return bo.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
