package dev.fleetprof.format;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The executable mappings of one profile, sorted by start address, for finding the mapping that holds
 * a PC by binary search (the hot path of every {@code frames} column and of the split boundary
 * checker). Overlapping mappings (which real maps text never has) fall back to the first listed.
 */
public final class MappingIndex implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final MappingIndex EMPTY = new MappingIndex(List.of());

  private final Mapping[] mappings;
  private final long[] starts;
  private final boolean overlapping;

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
    this.overlapping = overlap;
    this.starts = new long[mappings.length];
    for (int i = 0; i < mappings.length; i++) {
      starts[i] = mappings[i].start();
    }
  }

  /** Index of the executable mapping holding {@code pc}, or -1. */
  public int find(long pc) {
    if (overlapping) {
      for (int i = 0; i < mappings.length; i++) {
        if (mappings[i].contains(pc)) {
          return i;
        }
      }
      return -1;
    }
    int lo = 0;
    int hi = starts.length - 1;
    while (lo <= hi) { // last mapping whose start <= pc
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(starts[mid], pc) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return hi >= 0 && mappings[hi].contains(pc) ? hi : -1;
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
