package dev.fleetprof.symbols.elf;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * zstd decoding with zstd-jni, in a class of its own so that {@link ElfFile} loads (and reads
 * everything but zstd sections) when zstd-jni, a {@code provided} dependency, is absent.
 */
final class ZstdSection {
  private ZstdSection() {}

  static byte[] decompress(ElfFile elf, ElfSection s, ByteBuffer in, long declared)
      throws IOException {
    int compressedSize = in.remaining();
    try (ZstdInputStreamNoFinalizer zin =
        new ZstdInputStreamNoFinalizer(new Decompress.BufferInput(in))) {
      return Decompress.readExactly(elf, s, zin, declared, compressedSize);
    } catch (ElfFormatException e) {
      throw e;
    } catch (IOException e) {
      throw elf.error(
          s.offset(), "corrupt zstd data in section " + s.name() + ": " + e.getMessage(), e);
    }
  }
}
