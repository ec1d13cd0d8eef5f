package dev.fleetprof.spark.read;

import java.util.Arrays;
import org.apache.spark.unsafe.Platform;

/**
 * The groups of a partial aggregation: an open-addressing hash table keyed on a context id (the
 * values of the group columns a file determines) and a raw call chain, holding per group the row
 * count and the sum, minimum and maximum of the records' counts. The chain is read straight from
 * the memory of the row's {@code pcs} value and copied only when a group is new; profiles repeat a
 * few thousand chains, so nearly every record is a lookup that allocates nothing.
 */
final class GroupTable {
  private static final long[] NO_CHAIN = new long[0];

  /**
   * What one group costs besides its chain: its slot in the hash index (two ints at the highest
   * load), the parallel arrays' entries and the chain array's header.
   */
  static final int GROUP_BYTES = 8 + 4 + 4 + 8 + 4 * 8 + 16;

  private final boolean exactSums;
  private int[] slots = new int[1024]; // group index + 1; 0 is empty
  private int size;
  private int[] contexts = new int[512];
  private int[] hashes = new int[512];
  private long[][] chains = new long[512][];
  private long[] counts = new long[512];
  private long[] sums = new long[512];
  private long[] mins = new long[512];
  private long[] maxs = new long[512];
  private long bytes;
  private int probeAt;
  private int probeHash;

  /**
   * @param exactSums whether a sum that overflows 64 bits fails (Spark's ANSI mode) rather than
   *     wraps
   */
  GroupTable(boolean exactSums) {
    this.exactSums = exactSums;
  }

  int size() {
    return size;
  }

  /** An estimate of the heap the groups take. */
  long bytes() {
    return bytes;
  }

  /**
   * The group of {@code context} and the chain of {@code depth} longs at {@code base + offset}
   * (Spark's {@link Platform} addressing), or -1 when there is none yet: then {@link #insert} adds
   * it.
   */
  int find(int context, Object base, long offset, int depth) {
    int h = hash(context, base, offset, depth);
    int mask = slots.length - 1;
    int at = h & mask;
    while (true) {
      int g = slots[at] - 1;
      if (g < 0) {
        probeAt = at;
        probeHash = h;
        return -1;
      }
      if (hashes[g] == h && contexts[g] == context && sameChain(chains[g], base, offset, depth)) {
        return g;
      }
      at = (at + 1) & mask;
    }
  }

  /** Adds the group the last {@link #find} did not find, with no rows yet. */
  int insert(int context, Object base, long offset, int depth) {
    return add(probeAt, probeHash, context, base, offset, depth);
  }

  /** Adds a row with {@code count} to group {@code g}. */
  void add(int g, long count) {
    long n = counts[g]++;
    if (n == 0) {
      sums[g] = count;
      mins[g] = count;
      maxs[g] = count;
      return;
    }
    sums[g] = exactSums ? Math.addExact(sums[g], count) : sums[g] + count;
    if (count < mins[g]) {
      mins[g] = count;
    }
    if (count > maxs[g]) {
      maxs[g] = count;
    }
  }

  int context(int g) {
    return contexts[g];
  }

  long[] chain(int g) {
    return chains[g];
  }

  long count(int g) {
    return counts[g];
  }

  long sum(int g) {
    return sums[g];
  }

  long min(int g) {
    return mins[g];
  }

  long max(int g) {
    return maxs[g];
  }

  /** Forgets every group (after they were emitted), keeping the arrays for the next ones. */
  void clear() {
    Arrays.fill(slots, 0);
    Arrays.fill(chains, 0, size, null);
    size = 0;
    bytes = 0;
  }

  private int add(int at, int h, int context, Object base, long offset, int depth) {
    if (size == contexts.length) {
      int n = size * 2;
      contexts = Arrays.copyOf(contexts, n);
      hashes = Arrays.copyOf(hashes, n);
      chains = Arrays.copyOf(chains, n);
      counts = Arrays.copyOf(counts, n);
      sums = Arrays.copyOf(sums, n);
      mins = Arrays.copyOf(mins, n);
      maxs = Arrays.copyOf(maxs, n);
    }
    int g = size++;
    long[] chain = NO_CHAIN;
    if (depth > 0) {
      chain = new long[depth];
      Platform.copyMemory(base, offset, chain, Platform.LONG_ARRAY_OFFSET, depth * 8L);
    }
    contexts[g] = context;
    hashes[g] = h;
    chains[g] = chain;
    counts[g] = 0;
    slots[at] = g + 1;
    bytes += GROUP_BYTES + 8L * depth;
    if (size * 2 > slots.length) {
      rehash(slots.length * 2);
    }
    return g;
  }

  private void rehash(int capacity) {
    int[] grown = new int[capacity];
    int mask = capacity - 1;
    for (int g = 0; g < size; g++) {
      int at = hashes[g] & mask;
      while (grown[at] != 0) {
        at = (at + 1) & mask;
      }
      grown[at] = g + 1;
    }
    slots = grown;
  }

  private static boolean sameChain(long[] chain, Object base, long offset, int depth) {
    if (chain.length != depth) {
      return false;
    }
    for (int i = 0; i < depth; i++) {
      if (chain[i] != Platform.getLong(base, offset + 8L * i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every pc is multiplied into the state and its high bits folded down, so that chains differing
   * in one frame, or only in the order of frames, land in unrelated slots; the final mix spreads
   * the state over the low bits the index uses.
   */
  private static int hash(int context, Object base, long offset, int depth) {
    long h = context * 0x9E3779B97F4A7C15L + depth;
    for (int i = 0; i < depth; i++) {
      h = (h ^ Platform.getLong(base, offset + 8L * i)) * 0xFF51AFD7ED558CCDL;
      h ^= h >>> 29;
    }
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return (int) h;
  }
}
