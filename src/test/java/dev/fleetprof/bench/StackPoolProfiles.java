package dev.fleetprof.bench;

import dev.fleetprof.testing.SyntheticCpuProfile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * gperftools CPU profiles (64-bit little-endian slots, 100 Hz) whose records are drawn from a fixed
 * pool of call chains, as a real server's are: a bounded set of distinct stacks, a few of them hot.
 * A generator with unique random chains (like {@code testing/SyntheticCpuProfile}) would turn the
 * group-by and fleet rows into a benchmark of hash tables with one row per record, which no real
 * profile resembles. Frames are stored module-relative and each file gets its own mapping bases
 * (ASLR), so pcs differ between hosts while {@code frames} agree, as in a real fleet.
 *
 * <p>The pool is either synthetic (random offsets in three made-up modules: the large profile) or
 * given, with the maps text that places its modules ({@link BinaryFleet}: frames in real binaries).
 */
final class StackPoolProfiles {
  static final String EXE = "/usr/bin/fleet-server";
  static final String LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  private static final long SPAN = 0x100000L;

  /** Module index of a pc that is in no mapping (an unwinder's garbage): the offset is the pc. */
  static final byte UNMAPPED = -1;

  private static final int MAX_RECORD_BYTES = 8 * (2 + 254);

  private final byte[][] modules;
  private final long[][] offsets;
  private final Function<long[], String> maps;
  private final BitSet used;

  /**
   * What a write produced; {@code binaryLocations}: for a fleet in real binaries, the distinct
   * (module, offset) locations in them that its frames hold, as the fleet job counts locations
   * (callers at the return address minus one), else 0.
   */
  record Written(long bytes, long records, long countSum, long binaryLocations) {
    Written(long bytes, long records, long countSum) {
      this(bytes, records, countSum, 0);
    }
  }

  /**
   * A given pool: stack {@code s} has frames {@code offsets[s][i]} in module {@code modules[s][i]}
   * (leaf first), at {@code bases[module] + offset} in a process, or {@link #UNMAPPED}.
   *
   * @param maps the maps text of a process with the given bases
   */
  StackPoolProfiles(byte[][] modules, long[][] offsets, Function<long[], String> maps) {
    this.modules = modules;
    this.offsets = offsets;
    this.maps = maps;
    this.used = new BitSet(modules.length);
  }

  /** A synthetic pool of {@code stacks} random chains in {@link #maps(long[])}'s modules. */
  StackPoolProfiles(int stacks, long seed) {
    maps = StackPoolProfiles::maps;
    used = new BitSet(stacks);
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
      0x7f8000000000L + (rnd.nextLong(0x4000) << 20)
    };
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
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
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
        used.set(s);
        b.putLong(count).putLong(m.length);
        for (int i = 0; i < m.length; i++) {
          b.putLong(m[i] == UNMAPPED ? off[i] : bases[m[i]] + off[i]);
        }
        records++;
        countSum += count;
      } while (written + b.position() < targetBytes);
      b.putLong(0).putLong(1).putLong(0);
      written += LargeGmon.drain(ch, b);
      b.put(maps.apply(bases).getBytes(StandardCharsets.US_ASCII));
      written += LargeGmon.drain(ch, b);
    }
    return new Written(written, records, countSum);
  }

  /** The stacks some write has used so far. */
  BitSet used() {
    return (BitSet) used.clone();
  }

  int stacks() {
    return modules.length;
  }

  byte[] modules(int stack) {
    return modules[stack];
  }

  long[] offsets(int stack) {
    return offsets[stack];
  }

  /** The synthetic pool's maps text: what gperftools appends, /proc/self/maps of the process. */
  static String maps(long[] bases) {
    return String.join(
        "\n",
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
}
