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
 * A large DCPI profile (dcpiformat(4), {@code pdb-0.07}, byte offsets) streamed to disk: runs of
 * 64-511 instruction counts (one in eight zero) separated by cold gaps, and the footer. The
 * header's {@code tsize} must cover every chunk before any is written, so the chunk layout is drawn
 * twice from the same seed: once to size the text, once to write. The test suite's {@code
 * DcpiSampleGenerator} holds its files in memory and is sized for checked-in samples.
 */
final class LargeDcpi {
  private static final long TSTART = 0x120000000L;

  private LargeDcpi() {}

  /** Rows the source yields: addresses with a non-zero count; countSum is their sum. */
  static Written write(Path file, long targetBytes, long seed) throws IOException {
    long tsize = layout(targetBytes, seed, null);
    byte[] header = header(tsize);
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      Writer w = new Writer(ch, seed ^ 0x5deece66dL);
      w.buf.put(header);
      layout(targetBytes - header.length, seed, w);
      w.buf.putInt((int) w.rows).putInt((int) w.countSum);
      long bytes = w.written + LargeGmon.drain(ch, w.buf);
      return new Written(bytes, w.rows, w.countSum);
    }
  }

  /**
   * Walks the chunk layout for a binary part of about {@code bytes}; writes it when {@code out} is
   * not null. Returns a {@code tsize} covering every chunk.
   */
  private static long layout(long bytes, long seed, Writer out) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long offset = 0;
    long used = 8;
    while (true) {
      int number = 64 + rnd.nextInt(448);
      long gap = 4L * (1 + rnd.nextInt(512));
      if (used + 8 + 4L * number > bytes || offset + 4L * number + gap > 0xfffff000L) {
        return offset + 4096;
      }
      if (out != null) {
        out.chunk(offset, number);
      }
      used += 8 + 4L * number;
      offset += 4L * number + gap;
    }
  }

  private static byte[] header(long tsize) {
    String text =
        String.join(
            "\n",
            "version pdb-0.07",
            "image 3a5f0c1e9b7d2468",
            "epoch 9707151200",
            "platform alpha-osf1-v4.0",
            "event cycles",
            "period 62464",
            "tstart " + Long.toHexString(TSTART),
            "tsize " + tsize,
            "cpuspeed 500",
            "samples");
    // dcpiformat(4): pad the last line so the binary part starts 4-byte aligned.
    while ((text.length() + 1) % 4 != 0) {
      text += " ";
    }
    return (text + "\n").getBytes(StandardCharsets.US_ASCII);
  }

  private static final class Writer {
    final FileChannel ch;
    final SplittableRandom counts;
    final ByteBuffer buf = ByteBuffer.allocate(4 << 20).order(ByteOrder.LITTLE_ENDIAN);
    long written;
    long rows;
    long countSum;

    Writer(FileChannel ch, long seed) {
      this.ch = ch;
      this.counts = new SplittableRandom(seed);
    }

    void chunk(long offset, int number) throws IOException {
      if (buf.remaining() < 8 + 4 * number + 8) {
        written += LargeGmon.drain(ch, buf);
      }
      buf.putInt((int) offset).putInt(number);
      for (int i = 0; i < number; i++) {
        int v =
            counts.nextInt(8) == 0
                ? 0
                : counts.nextInt(10) < 8 ? 1 + counts.nextInt(20) : 1 + counts.nextInt(1_000_000);
        buf.putInt(v);
        if (v != 0) {
          rows++;
          countSum += v;
        }
      }
    }
  }
}
