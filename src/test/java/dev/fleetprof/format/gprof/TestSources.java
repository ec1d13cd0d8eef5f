package dev.fleetprof.format.gprof;

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

/** ByteSource implementations for tests: local files, byte arrays, and streams of unknown length. */
final class TestSources {
  private TestSources() {}

  /** A local file: known length, seekable. */
  static ByteSource file(Path path) {
    return new ByteSource() {
      @Override
      public String name() {
        return path.toString();
      }

      @Override
      public long length() throws IOException {
        return Files.size(path);
      }

      @Override
      public InputStream open(long offset) throws IOException {
        InputStream in = Files.newInputStream(path);
        in.skipNBytes(offset);
        return in;
      }
    };
  }

  /** Bytes in memory with a known length. */
  static ByteSource bytes(String name, byte[] data) {
    return new ByteSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long length() {
        return data.length;
      }

      @Override
      public InputStream open(long offset) {
        return new ByteArrayInputStream(data, (int) offset, data.length - (int) offset);
      }
    };
  }

  /**
   * Bytes stored gzip-compressed, as the Spark layer sees a {@code .gz} file: length -1, only offset 0,
   * and the stream returns short reads.
   */
  static ByteSource gzip(String name, byte[] data) {
    byte[] compressed = compress(data);
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
          throw new IOException("unknown-length source opened at " + offset);
        }
        return new GZIPInputStream(new ByteArrayInputStream(compressed), 512);
      }
    };
  }

  static byte[] compress(byte[] data) {
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
