package dev.fleetprof.spark.read;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The distinct sets of mappings a reader's files have, each with the {@link UnsafeChains} that
 * builds its frames: files with equal mappings (copies of one program's profile) share their
 * frames, and a reader that merges records builds each chain's frames once per set.
 */
final class MappingSets {
  private final Map<List<Object>, Integer> ids = new HashMap<>();
  private final List<UnsafeChains> sets = new ArrayList<>();
  private final List<MapData> buildIds = new ArrayList<>();
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
      if (m.buildId() != null) {
        size += 4L * m.buildId().length() + 96; // in the mapping struct and build_ids
      }
    }
    Integer id = ids.get(list);
    if (id == null) {
      id = sets.size();
      ids.put(list, id);
      sets.add(new UnsafeChains(mappings, callersMinusOne));
      buildIds.add(buildIdsOf(mappings));
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

  /**
   * The stack rows' {@code build_ids} of set {@code id}: each mapped file's build ID by path (the
   * first listed where one path has two), or null when the file records none.
   */
  MapData buildIds(int id) {
    return buildIds.get(id);
  }

  private static MapData buildIdsOf(MappingIndex mappings) {
    Map<String, String> byPath = new LinkedHashMap<>();
    for (int i = 0; i < mappings.size(); i++) {
      Mapping m = mappings.get(i);
      if (m.buildId() != null) {
        byPath.putIfAbsent(m.path(), m.buildId());
      }
    }
    if (byPath.isEmpty()) {
      return null;
    }
    Object[] keys = new Object[byPath.size()];
    Object[] values = new Object[byPath.size()];
    int i = 0;
    for (Map.Entry<String, String> e : byPath.entrySet()) {
      keys[i] = UTF8String.fromString(e.getKey());
      values[i++] = UTF8String.fromString(e.getValue());
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  /** An estimate of the heap the sets take. */
  long bytes() {
    return bytes;
  }

  void clear() {
    ids.clear();
    sets.clear();
    buildIds.clear();
    bytes = 0;
    lastMappings = null;
    lastId = -1;
  }
}
