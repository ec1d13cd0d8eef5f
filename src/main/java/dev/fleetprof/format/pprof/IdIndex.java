package dev.fleetprof.format.pprof;

import java.util.Arrays;

/**
 * Finds a table entry (mapping, location, function) by its id. Go numbers them 1, 2, 3... in table
 * order, which is looked up by arithmetic; any other numbering by binary search.
 */
final class IdIndex {
  private final boolean dense;
  private final int size;
  private final long[] sortedIds;
  private final int[] entryOf;

  private IdIndex(boolean dense, int size, long[] sortedIds, int[] entryOf) {
    this.dense = dense;
    this.size = size;
    this.sortedIds = sortedIds;
    this.entryOf = entryOf;
  }

  /**
   * The index of {@code ids} ({@code ids[i]} is entry i's id).
   *
   * @return the index, or null when an id is 0 or repeated: {@link #problem} says which
   */
  static IdIndex of(long[] ids, int n) {
    boolean dense = true;
    for (int i = 0; i < n && dense; i++) {
      dense = ids[i] == i + 1;
    }
    if (dense) {
      return new IdIndex(true, n, null, null);
    }
    Integer[] order = new Integer[n];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, (a, b) -> Long.compareUnsigned(ids[a], ids[b]));
    long[] sorted = new long[n];
    int[] entry = new int[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = ids[order[i]];
      entry[i] = order[i];
    }
    return new IdIndex(false, n, sorted, entry);
  }

  /** An id that is 0 or repeated, as a sentence, or null when every id is fine. */
  String problem(String what) {
    if (dense) {
      return null;
    }
    for (int i = 0; i < sortedIds.length; i++) {
      if (sortedIds[i] == 0) {
        return "a " + what + " has the reserved id 0";
      }
      if (i > 0 && sortedIds[i] == sortedIds[i - 1]) {
        return "several " + what + "s have the id " + Long.toUnsignedString(sortedIds[i]);
      }
    }
    return null;
  }

  /** The entry with {@code id}, or -1. */
  int find(long id) {
    if (dense) {
      return id >= 1 && id <= size ? (int) (id - 1) : -1;
    }
    int lo = 0;
    int hi = sortedIds.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = Long.compareUnsigned(sortedIds[mid], id);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return entryOf[mid];
      }
    }
    return -1;
  }
}
