package dev.fleetprof.testing;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Writes large gperftools-format CPU profiles at test or benchmark time (nothing large is checked
 * in), shaped like real ones: 64-bit little-endian slots, a 100 Hz period, call chains of 1-254 PCs
 * (mostly short), leaf PCs inside executable mappings, some deeper PCs unmapped as unwinders leave
 * them, a JIT-like anonymous executable mapping, the trailer and a maps text.
 */
public final class SyntheticCpuProfile {
  public static final long EXE_START = 0x55d0c0a00000L;
  public static final long LIBC_START = 0x7f1234500000L;
  public static final long JIT_START = 0x7f2000000000L;
  private static final long SPAN = 0x100000L;

  public static final String MAPS =
      String.join(
          "\n",
          "55d0c09ff000-55d0c0a00000 r--p 00000000 00:00 131 /usr/bin/fleet-server",
          "55d0c0a00000-55d0c0b00000 r-xp 00001000 00:00 131 /usr/bin/fleet-server",
          "55d0c0b00000-55d0c0b10000 rw-p 00101000 00:00 131 /usr/bin/fleet-server",
          "7f1234500000-7f1234600000 r-xp 00028000 00:00 77 /usr/lib/x86_64-linux-gnu/libc.so.6",
          "7f2000000000-7f2000100000 rwxp 00000000 00:00 0 ",
          "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]",
          "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
          "");

  private SyntheticCpuProfile() {}

  /** Writes a profile of about {@code targetBytes} bytes; returns the number of records. */
  public static long write(Path file, long targetBytes, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long records = 0;
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      ByteBuffer b = ByteBuffer.allocate(8 * 260).order(ByteOrder.LITTLE_ENDIAN);
      b.putLong(0).putLong(3).putLong(0).putLong(10000).putLong(0);
      out.write(b.array(), 0, b.position());
      long written = b.position();
      long[] stack = new long[254];
      while (written < targetBytes) {
        int depth = depth(rnd);
        for (int i = 0; i < depth; i++) {
          stack[i] = pc(rnd, i == 0);
        }
        b.clear();
        b.putLong(1 + (rnd.nextInt(100) < 80 ? 0 : rnd.nextInt(50))).putLong(depth);
        for (int i = 0; i < depth; i++) {
          b.putLong(stack[i]);
        }
        out.write(b.array(), 0, b.position());
        written += b.position();
        records++;
      }
      b.clear();
      b.putLong(0).putLong(1).putLong(0);
      out.write(b.array(), 0, b.position());
      out.write(MAPS.getBytes(StandardCharsets.US_ASCII));
    }
    return records;
  }

  /**
   * A call-chain depth: mostly 4-33 frames, some shallow, one in ten deep (up to gperftools' 254).
   */
  public static int depth(SplittableRandom rnd) {
    int r = rnd.nextInt(100);
    if (r < 5) {
      return 1 + rnd.nextInt(3);
    }
    if (r < 90) {
      return 4 + rnd.nextInt(30);
    }
    return 34 + rnd.nextInt(221);
  }

  private static long pc(SplittableRandom rnd, boolean leaf) {
    int r = rnd.nextInt(100);
    if (!leaf && r < 2) {
      return 0x1000L + rnd.nextInt(0x10000); // garbage from a lost unwind: in no mapping
    }
    if (r < 55) {
      return EXE_START + rnd.nextLong(SPAN);
    }
    if (r < 90) {
      return LIBC_START + rnd.nextLong(SPAN);
    }
    return JIT_START + rnd.nextLong(SPAN);
  }
}
