package dev.fleetprof.spark;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The distinct sets of mappings a reader's files have, each with the {@link UnsafeChains} that
 * builds its frames: files with equal mappings (copies of one program's profile) share their
 * frames, and a reader that merges records builds each chain's frames once per set.
 */
final class MappingSets {
  private final Map<List<Object>, Integer> ids = new HashMap<>();
  private final List<UnsafeChains> sets = new ArrayList<>();
  private long bytes;
  private MappingIndex lastMappings;
  private boolean lastCallersMinusOne;
  private int lastId = -1;

  /** The id of a file's set of mappings; the last file's is remembered. */
  int id(MappingIndex mappings, boolean callersMinusOne) {
    if (mappings == lastMappings && callersMinusOne == lastCallersMinusOne) {
      return lastId;
    }
    // Equal mappings with callers at another address build other frames: a set of its own.
    List<Object> list = new ArrayList<>(mappings.size() + 1);
    list.add(callersMinusOne);
    long size = 64;
    for (int i = 0; i < mappings.size(); i++) {
      Mapping m = mappings.get(i);
      list.add(m);
      size += 2L * m.path().length() + 128; // the mapping and its frame and struct templates
    }
    Integer id = ids.get(list);
    if (id == null) {
      id = sets.size();
      ids.put(list, id);
      sets.add(new UnsafeChains(mappings, callersMinusOne));
      bytes += size;
    }
    lastMappings = mappings;
    lastCallersMinusOne = callersMinusOne;
    lastId = id;
    return id;
  }

  UnsafeChains chains(int id) {
    return sets.get(id);
  }

  /** An estimate of the heap the sets take. */
  long bytes() {
    return bytes;
  }

  void clear() {
    ids.clear();
    sets.clear();
    bytes = 0;
    lastMappings = null;
    lastId = -1;
  }
}
