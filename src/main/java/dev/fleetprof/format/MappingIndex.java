package dev.fleetprof.format;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The executable mappings of one profile, sorted by start address, for finding the mapping that
 * holds a PC by binary search (the hot path of every {@code frames} column and of the split
 * boundary checker). Overlapping mappings (which real maps text never has) fall back to the first
 * listed: the index is then cut into disjoint segments, each owned by the first-listed mapping
 * covering it, so that a maps text of a million overlapping lines still costs one binary search per
 * PC.
 */
public final class MappingIndex implements Serializable {
  private static final long serialVersionUID = 3L;
  public static final MappingIndex EMPTY = new MappingIndex(List.of());

  private final Mapping[] mappings;
  // Disjoint segments [start, limit) held by mappings[owners[i]], their bounds XOR Long.MIN_VALUE
  // so
  // that signed comparison orders them as the unsigned addresses they are.
  private final long[] flippedStarts;
  private final long[] flippedLimits;
  private final int[] owners;

  public MappingIndex(List<Mapping> all) {
    List<Mapping> exec = new ArrayList<>();
    for (Mapping m : all) {
      if (m.executable() && Long.compareUnsigned(m.start(), m.limit()) < 0) {
        exec.add(m);
      }
    }
    List<Mapping> sorted = new ArrayList<>(exec);
    sorted.sort(Comparator.comparing(Mapping::start, Long::compareUnsigned));
    boolean overlap = false;
    for (int i = 1; i < sorted.size(); i++) {
      if (Long.compareUnsigned(sorted.get(i).start(), sorted.get(i - 1).limit()) < 0) {
        overlap = true;
      }
    }
    this.mappings = overlap ? exec.toArray(new Mapping[0]) : sorted.toArray(new Mapping[0]);
    int n = mappings.length;
    long[] s = new long[2 * n];
    long[] l = new long[2 * n];
    int[] o = new int[2 * n];
    int segs = 0;
    // Sweep the addresses in order; the active mapping listed first owns each stretch.
    Integer[] byStart = new Integer[n];
    Arrays.setAll(byStart, i -> i);
    Arrays.sort(byStart, (a, b) -> Long.compareUnsigned(mappings[a].start(), mappings[b].start()));
    PriorityQueue<Integer> active = new PriorityQueue<>();
    int next = 0;
    long at = 0;
    while (next < n || !active.isEmpty()) {
      if (active.isEmpty()) {
        at = mappings[byStart[next]].start();
      }
      while (next < n && mappings[byStart[next]].start() == at) {
        active.add(byStart[next++]);
      }
      while (!active.isEmpty() && Long.compareUnsigned(mappings[active.peek()].limit(), at) <= 0) {
        active.poll(); // ended (lazily: ones that ended under the owner go when they surface)
      }
      if (active.isEmpty()) {
        continue;
      }
      int owner = active.peek();
      long until = mappings[owner].limit();
      if (next < n && Long.compareUnsigned(mappings[byStart[next]].start(), until) < 0) {
        until = mappings[byStart[next]].start();
      }
      if (segs > 0 && o[segs - 1] == owner && l[segs - 1] == at) {
        l[segs - 1] = until;
      } else {
        s[segs] = at;
        l[segs] = until;
        o[segs++] = owner;
      }
      at = until;
    }
    this.flippedStarts = new long[segs];
    this.flippedLimits = new long[segs];
    for (int i = 0; i < segs; i++) {
      flippedStarts[i] = s[i] ^ Long.MIN_VALUE;
      flippedLimits[i] = l[i] ^ Long.MIN_VALUE;
    }
    this.owners = Arrays.copyOf(o, segs);
  }

  /**
   * Index of the executable mapping holding {@code pc}, or -1. A branch-free search (the comparison
   * picks the next base instead of steering a branch): frames of a call chain hop between modules
   * unpredictably, and a classic binary search mispredicted about half its branches, a third of an
   * all-columns read (measured with JFR on the scan benchmark).
   */
  public int find(long pc) {
    long[] s = flippedStarts;
    int len = s.length;
    if (len == 0) {
      return -1;
    }
    long key = pc ^ Long.MIN_VALUE;
    int base = 0;
    while (len > 1) { // the last segment whose start <= pc lies in [base, base + len)
      int half = len >>> 1;
      base = s[base + half] <= key ? base + half : base;
      len -= half;
    }
    return s[base] <= key && key < flippedLimits[base] ? owners[base] : -1;
  }

  public Mapping get(int index) {
    return mappings[index];
  }

  public int size() {
    return mappings.length;
  }

  public boolean isEmpty() {
    return mappings.length == 0;
  }
}
