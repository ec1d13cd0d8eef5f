package dev.fleetprof.symbols.dwarf;

import java.util.Arrays;

/**
 * Addresses -> the units that may hold them, in .debug_info order, each with the function addr2line
 * picks there: of the unit's functions with a range holding the address, the one whose range is
 * shortest (the later DIE on a tie), which is the innermost inlined instance. Stored as sorted
 * interval starts with a candidate list per interval, so a lookup is one binary search.
 */
final class AddressIndex {
  /** At most this many units are tried for one address (overlaps only come from broken links). */
  static final int MAX_CANDIDATES = 16;

  final long[] starts;
  final int[] candidateStart;
  final int[] candidateUnit;
  final int[] candidateFunction;

  private AddressIndex(
      long[] starts, int[] candidateStart, int[] candidateUnit, int[] candidateFunction) {
    this.starts = starts;
    this.candidateStart = candidateStart;
    this.candidateUnit = candidateUnit;
    this.candidateFunction = candidateFunction;
  }

  /** The interval holding {@code addr}, or -1. */
  int interval(long addr) {
    int lo = 0;
    int hi = starts.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(starts[mid], addr) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** A binary heap of range ids per unit: shortest range first, later function on ties. */
  private static final class Heap {
    int[] a = new int[8];
    int n;
  }

  static AddressIndex build(long[] low, long[] high, int[] unit, int[] func, int count, int units) {
    // All boundaries, sorted and distinct.
    long[] bounds = new long[count * 2];
    for (int i = 0; i < count; i++) {
      bounds[2 * i] = low[i] ^ Long.MIN_VALUE;
      bounds[2 * i + 1] = high[i] ^ Long.MIN_VALUE;
    }
    Arrays.sort(bounds);
    int m = 0;
    for (int i = 0; i < bounds.length; i++) {
      if (m == 0 || bounds[m - 1] != bounds[i]) {
        bounds[m++] = bounds[i];
      }
    }
    for (int i = 0; i < m; i++) {
      bounds[i] ^= Long.MIN_VALUE;
    }
    int[] byLow = sortedBy(low, count);
    int[] byHigh = sortedBy(high, count);

    int[] activeCount = new int[units];
    int[] active = new int[16];
    int activeN = 0;
    Heap[] heaps = new Heap[units];

    long[] outStarts = new long[Math.max(1, m)];
    int[] outCand = new int[Math.max(1, m) + 1];
    int[] candU = new int[Math.max(16, m)];
    int[] candF = new int[Math.max(16, m)];
    int outN = 0;
    int candN = 0;
    int li = 0;
    int hi = 0;
    int prevStart = -1;
    int prevCount = -1;
    for (int b = 0; b < m; b++) {
      long point = bounds[b];
      while (hi < count && high[byHigh[hi]] == point) {
        int r = byHigh[hi++];
        int u = unit[r];
        if (--activeCount[u] == 0) {
          int at = Arrays.binarySearch(active, 0, activeN, u);
          System.arraycopy(active, at + 1, active, at, activeN - at - 1);
          activeN--;
        }
      }
      while (li < count && low[byLow[li]] == point) {
        int r = byLow[li++];
        int u = unit[r];
        if (activeCount[u]++ == 0) {
          int at = -Arrays.binarySearch(active, 0, activeN, u) - 1;
          if (activeN == active.length) {
            active = Arrays.copyOf(active, activeN * 2);
          }
          System.arraycopy(active, at, active, at + 1, activeN - at);
          active[at] = u;
          activeN++;
        }
        if (func[r] >= 0) {
          Heap h = heaps[u];
          if (h == null) {
            h = heaps[u] = new Heap();
          }
          push(h, r, low, high, func);
        }
      }
      if (b == m - 1) {
        break;
      }
      int n = Math.min(activeN, MAX_CANDIDATES);
      if (candN + n > candU.length) {
        candU = Arrays.copyOf(candU, Math.max(candU.length * 2, candN + n));
        candF = Arrays.copyOf(candF, candU.length);
      }
      for (int k = 0; k < n; k++) {
        int u = active[k];
        Heap h = heaps[u];
        int best = -1;
        if (h != null) {
          while (h.n > 0 && Long.compareUnsigned(high[h.a[0]], point) <= 0) {
            pop(h, low, high, func);
          }
          if (h.n > 0) {
            best = func[h.a[0]];
          }
        }
        candU[candN + k] = u;
        candF[candN + k] = best;
      }
      // Merge with the previous interval when the candidates are the same.
      if (prevStart >= 0 && prevCount == n && same(candU, candF, prevStart, candN, n)) {
        continue;
      }
      outStarts[outN] = point;
      outCand[outN] = candN;
      prevStart = candN;
      prevCount = n;
      candN += n;
      outN++;
    }
    if (m > 0) {
      outStarts[outN] = bounds[m - 1];
      outCand[outN] = candN;
      outN++;
    }
    outCand[outN] = candN;
    return new AddressIndex(
        Arrays.copyOf(outStarts, outN),
        Arrays.copyOf(outCand, outN + 1),
        Arrays.copyOf(candU, candN),
        Arrays.copyOf(candF, candN));
  }

  private static boolean same(int[] u, int[] f, int a, int b, int n) {
    for (int k = 0; k < n; k++) {
      if (u[a + k] != u[b + k] || f[a + k] != f[b + k]) {
        return false;
      }
    }
    return true;
  }

  private static int[] sortedBy(long[] key, int count) {
    // Keys are unsigned 64-bit: sort ids by the keys with the sign bit flipped.
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    long[] k = new long[count];
    for (int i = 0; i < count; i++) {
      k[i] = key[i] ^ Long.MIN_VALUE;
    }
    sort(order, k, 0, count);
    return order;
  }

  /** Sorts ids by their key (signed order of the flipped keys), merge sort, stable. */
  private static void sort(int[] ids, long[] k, int from, int to) {
    int[] tmp = new int[to - from];
    for (int width = 1; width < to - from; width *= 2) {
      for (int lo = from; lo < to - width; lo += 2 * width) {
        int mid = lo + width;
        int hi = Math.min(lo + 2 * width, to);
        int i = lo;
        int j = mid;
        int t = 0;
        while (i < mid && j < hi) {
          tmp[t++] = k[ids[j]] < k[ids[i]] ? ids[j++] : ids[i++];
        }
        while (i < mid) {
          tmp[t++] = ids[i++];
        }
        while (j < hi) {
          tmp[t++] = ids[j++];
        }
        System.arraycopy(tmp, 0, ids, lo, t);
      }
    }
  }

  private static boolean before(int r1, int r2, long[] low, long[] high, int[] func) {
    long len1 = high[r1] - low[r1];
    long len2 = high[r2] - low[r2];
    int c = Long.compareUnsigned(len1, len2);
    if (c != 0) {
      return c < 0;
    }
    return func[r1] > func[r2];
  }

  private static void push(Heap h, int r, long[] low, long[] high, int[] func) {
    if (h.n == h.a.length) {
      h.a = Arrays.copyOf(h.a, h.n * 2);
    }
    int i = h.n++;
    h.a[i] = r;
    while (i > 0) {
      int p = (i - 1) / 2;
      if (!before(h.a[i], h.a[p], low, high, func)) {
        break;
      }
      int t = h.a[i];
      h.a[i] = h.a[p];
      h.a[p] = t;
      i = p;
    }
  }

  private static void pop(Heap h, long[] low, long[] high, int[] func) {
    h.a[0] = h.a[--h.n];
    int i = 0;
    while (true) {
      int l = 2 * i + 1;
      int r = l + 1;
      int best = i;
      if (l < h.n && before(h.a[l], h.a[best], low, high, func)) {
        best = l;
      }
      if (r < h.n && before(h.a[r], h.a[best], low, high, func)) {
        best = r;
      }
      if (best == i) {
        return;
      }
      int t = h.a[i];
      h.a[i] = h.a[best];
      h.a[best] = t;
      i = best;
    }
  }
}
