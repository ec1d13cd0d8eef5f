package dev.fleetprof.bench;

import dev.fleetprof.testing.SyntheticCpuProfile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * gperftools CPU profiles (64-bit little-endian slots, 100 Hz) whose records are drawn from a fixed
 * pool of call chains, as a real server's are: a bounded set of distinct stacks, a few of them hot.
 * A generator with unique random chains (like {@code testing/SyntheticCpuProfile}) would turn the
 * group-by and fleet rows into a benchmark of hash tables with one row per record, which no real
 * profile resembles. Frames are stored module-relative and each file gets its own mapping bases
 * (ASLR), so pcs differ between hosts while {@code frames} agree, as in a real fleet.
 */
final class StackPoolProfiles {
  static final String EXE = "/usr/bin/fleet-server";
  static final String LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  private static final long SPAN = 0x100000L;
  /** Module index of a pc that is in no mapping (an unwinder's garbage). */
  private static final byte UNMAPPED = 3;
  private static final int MAX_RECORD_BYTES = 8 * (2 + 254);

  private final byte[][] modules;
  private final long[][] offsets;

  /** What a write produced. */
  record Written(long bytes, long records, long countSum) {}

  StackPoolProfiles(int stacks, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    modules = new byte[stacks][];
    offsets = new long[stacks][];
    for (int s = 0; s < stacks; s++) {
      int depth = SyntheticCpuProfile.depth(rnd);
      modules[s] = new byte[depth];
      offsets[s] = new long[depth];
      for (int i = 0; i < depth; i++) {
        int r = rnd.nextInt(100);
        if (i > 0 && r < 2) {
          modules[s][i] = UNMAPPED;
          offsets[s][i] = 0x1000L + rnd.nextInt(0x10000);
        } else {
          modules[s][i] = (byte) (r < 55 ? 0 : r < 90 ? 1 : 2);
          offsets[s][i] = rnd.nextLong(SPAN);
        }
      }
    }
  }

  /** Mapping bases of one process: exe, libc, an anonymous JIT region; page-aligned, per-host. */
  static long[] bases(long processSeed) {
    SplittableRandom rnd = new SplittableRandom(processSeed);
    return new long[] {
        0x550000000000L + (rnd.nextLong(0x8000) << 20),
        0x7f0000000000L + (rnd.nextLong(0x4000) << 20),
        0x7f8000000000L + (rnd.nextLong(0x4000) << 20)};
  }

  /**
   * Writes a profile of about {@code targetBytes} (at least one record) with the given bases;
   * records pick stacks with a heavy skew toward the first ones of the pool.
   */
  Written write(Path file, long targetBytes, long[] bases, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long records = 0;
    long countSum = 0;
    long written = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      int cap = (int) Math.min(4 << 20, Math.max(64 << 10, targetBytes + MAX_RECORD_BYTES));
      ByteBuffer b = ByteBuffer.allocate(cap).order(ByteOrder.LITTLE_ENDIAN);
      b.putLong(0).putLong(3).putLong(0).putLong(10000).putLong(0);
      do {
        if (b.remaining() < MAX_RECORD_BYTES) {
          written += LargeGmon.drain(ch, b);
        }
        double u = rnd.nextDouble();
        int s = (int) (modules.length * u * u * u);
        long count = rnd.nextInt(100) < 80 ? 1 : 1 + rnd.nextInt(50);
        byte[] m = modules[s];
        long[] off = offsets[s];
        b.putLong(count).putLong(m.length);
        for (int i = 0; i < m.length; i++) {
          b.putLong(m[i] == UNMAPPED ? off[i] : bases[m[i]] + off[i]);
        }
        records++;
        countSum += count;
      } while (written + b.position() < targetBytes);
      b.putLong(0).putLong(1).putLong(0);
      written += LargeGmon.drain(ch, b);
      b.put(maps(bases).getBytes(StandardCharsets.US_ASCII));
      written += LargeGmon.drain(ch, b);
    }
    return new Written(written, records, countSum);
  }

  /** The maps text gperftools appends: /proc/self/maps of the process. */
  static String maps(long[] bases) {
    return String.join("\n",
        line(bases[0] - 0x1000, bases[0], "r--p", 0, "131 " + EXE),
        line(bases[0], bases[0] + SPAN, "r-xp", 0x1000, "131 " + EXE),
        line(bases[0] + SPAN, bases[0] + SPAN + 0x10000, "rw-p", 0x101000, "131 " + EXE),
        line(bases[1], bases[1] + SPAN, "r-xp", 0x28000, "77 " + LIBC),
        line(bases[2], bases[2] + SPAN, "rwxp", 0, "0 "),
        "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]",
        "");
  }

  private static String line(long start, long end, String perms, long offset, String rest) {
    return String.format("%x-%x %s %08x 00:00 %s", start, end, perms, offset, rest);
  }

  /** Where a fleet's profiles live: {@code date=2026-11-1D/host=webNNN/cpu.prof}. */
  static Path fleetFile(Path root, int index, int dates) {
    int date = index % dates;
    int host = index / dates;
    return root.resolve("date=2026-11-" + (10 + date)).resolve(String.format("host=web%03d", host))
        .resolve("cpu.prof");
  }

  /** Dates in a fleet of {@code files} profiles: 10 (one file per host and date), fewer if small. */
  static int fleetDates(int files) {
    return files >= 1000 ? 10 : Math.max(1, files / 100);
  }

  /**
   * Writes {@code files} profiles of 10-60 KB (one per host and date, each process with its own
   * bases) under {@code root}; returns the totals.
   */
  Written writeFleet(Path root, int files, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    int dates = fleetDates(files);
    long bytes = 0;
    long records = 0;
    long counts = 0;
    for (int i = 0; i < files; i++) {
      Path f = fleetFile(root, i, dates);
      Files.createDirectories(f.getParent());
      Written w = write(f, 10_000 + rnd.nextInt(50_000), bases(rnd.nextLong()), rnd.nextLong());
      bytes += w.bytes();
      records += w.records();
      counts += w.countSum();
    }
    return new Written(bytes, records, counts);
  }
}
