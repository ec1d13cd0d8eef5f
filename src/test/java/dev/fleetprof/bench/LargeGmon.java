package dev.fleetprof.bench;

import dev.fleetprof.bench.StackPoolProfiles.Written;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * A large GNU gmon.out (version 1, 64-bit little-endian, as glibc writes on x86-64), streamed to
 * disk: half the bytes one histogram (one bin in ten non-zero, as in a program whose hot code is a
 * small part of its text), half call arcs. The test suite's {@code GmonBuilder} builds files in
 * memory, which does not scale to the sizes measured here.
 */
final class LargeGmon {
  private static final long LOW_PC = 0x400000L;
  private static final int ARC_BYTES = 1 + 8 + 8 + 4;

  private LargeGmon() {}

  /** Rows the source yields: non-zero bins plus arcs; countSum is their counts' sum. */
  static Written write(Path file, long targetBytes, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long bins = Math.min(0xffffffffL, Math.max(1, targetBytes / 4));
    long rows = 0;
    long countSum = 0;
    long written = 0;
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(4 << 20).order(ByteOrder.LITTLE_ENDIAN);
      b.put("gmon".getBytes(StandardCharsets.US_ASCII)).putInt(1).put(new byte[12]);
      b.put((byte) 0).putLong(LOW_PC).putLong(LOW_PC + 4 * bins).putInt((int) bins).putInt(100);
      byte[] dimension = new byte[15];
      byte[] seconds = "seconds".getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(seconds, 0, dimension, 0, seconds.length);
      b.put(dimension).put((byte) 's');
      for (long i = 0; i < bins; i++) {
        if (b.remaining() < ARC_BYTES) {
          written += drain(ch, b);
        }
        int v = rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(2000) : 0;
        b.putShort((short) v);
        if (v != 0) {
          rows++;
          countSum += v;
        }
      }
      while (written + b.position() + ARC_BYTES <= targetBytes) {
        if (b.remaining() < ARC_BYTES) {
          written += drain(ch, b);
        }
        long count = 1 + rnd.nextInt(100_000);
        b.put((byte) 1)
            .putLong(LOW_PC + 4 * rnd.nextLong(bins))
            .putLong(LOW_PC + 4 * rnd.nextLong(bins))
            .putInt((int) count);
        rows++;
        countSum += count;
      }
      written += drain(ch, b);
    }
    return new Written(written, rows, countSum);
  }

  static long drain(FileChannel ch, ByteBuffer b) throws IOException {
    b.flip();
    long n = b.remaining();
    while (b.hasRemaining()) {
      ch.write(b);
    }
    b.clear();
    return n;
  }
}
