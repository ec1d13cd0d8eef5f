package dev.fleetprof.symbols.elf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Decompression of ELF sections into exactly their declared size. The output array grows with the
 * data actually produced (up to the declared size), so a section that declares a large size but
 * holds little data costs no large allocation.
 */
final class Decompress {
  private static final int FIRST_CHUNK = 1 << 16;

  private Decompress() {}

  static byte[] inflate(ElfFile elf, ElfSection s, ByteBuffer in, long declared)
      throws IOException {
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(in);
      byte[] out = new byte[firstSize(declared, in.remaining())];
      int pos = 0;
      while (true) {
        if (pos == out.length) {
          if (pos == declared) {
            if (!inflater.finished() && inflater.inflate(new byte[1]) > 0) {
              throw tooLong(elf, s, declared);
            }
            if (!inflater.finished()) {
              throw elf.error(
                  s.offset(),
                  "zlib data of section "
                      + s.name()
                      + " does not end after its declared "
                      + declared
                      + " bytes");
            }
            return out;
          }
          out = Arrays.copyOf(out, (int) Math.min(declared, 2L * out.length));
        }
        int n = inflater.inflate(out, pos, out.length - pos);
        pos += n;
        if (inflater.finished()) {
          if (pos != declared) {
            throw tooShort(elf, s, declared, pos);
          }
          return out;
        }
        if (n == 0 && pos < out.length) {
          // Room left, nothing produced, not finished: the input ran out or needs a dictionary.
          throw elf.error(
              s.offset(),
              "zlib data of section "
                  + s.name()
                  + " is truncated after "
                  + pos
                  + " of its declared "
                  + declared
                  + " bytes");
        }
      }
    } catch (DataFormatException e) {
      throw elf.error(
          s.offset(), "corrupt zlib data in section " + s.name() + ": " + e.getMessage(), e);
    } finally {
      inflater.end();
    }
  }

  static byte[] zstd(ElfFile elf, ElfSection s, ByteBuffer in, long declared) throws IOException {
    try {
      return ZstdSection.decompress(elf, s, in, declared);
    } catch (NoClassDefFoundError e) {
      throw new IOException(
          elf.path()
              + ": section "
              + s.name()
              + " is zstd-compressed, which"
              + " needs com.github.luben:zstd-jni on the class path (Spark ships it)",
          e);
    }
  }

  /** Reads a zstd stream from {@code in} into exactly {@code declared} bytes. */
  static byte[] readExactly(
      ElfFile elf, ElfSection s, InputStream in, long declared, int compressedSize)
      throws IOException {
    byte[] out = new byte[firstSize(declared, compressedSize)];
    int pos = 0;
    while (true) {
      if (pos == out.length) {
        if (pos == declared) {
          if (in.read() >= 0) {
            throw tooLong(elf, s, declared);
          }
          return out;
        }
        out = Arrays.copyOf(out, (int) Math.min(declared, 2L * out.length));
      }
      int n = in.read(out, pos, out.length - pos);
      if (n < 0) {
        throw tooShort(elf, s, declared, pos);
      }
      pos += n;
    }
  }

  private static int firstSize(long declared, int compressed) {
    return (int) Math.min(declared, Math.max(FIRST_CHUNK, 4L * compressed));
  }

  private static ElfFormatException tooLong(ElfFile elf, ElfSection s, long declared) {
    return elf.error(
        s.offset(),
        "section " + s.name() + " decompresses to more than its declared " + declared + " bytes");
  }

  private static ElfFormatException tooShort(ElfFile elf, ElfSection s, long declared, int got) {
    return elf.error(
        s.offset(),
        "section " + s.name() + " decompresses to " + got + " bytes, not its declared " + declared);
  }

  /** An InputStream over a ByteBuffer (mapped file bytes), for stream decompressors. */
  static final class BufferInput extends InputStream {
    private final ByteBuffer buffer;

    BufferInput(ByteBuffer buffer) {
      this.buffer = buffer.duplicate();
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }
  }
}
