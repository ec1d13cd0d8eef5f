package dev.fleetprof.output.flamegraph;

import dev.fleetprof.output.Frame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stacks of an aggregate merged into a call tree (node 0 is the root, above every stack's
 * outermost frame), kept in parallel primitive arrays: a fleet aggregate has millions of tree nodes,
 * which as objects with child maps would cost several times the memory. A node is created after its
 * parent, so a parent's index is always smaller than its children's.
 */
final class StackTrie {
  private final Map<Frame, Integer> frameIds = new HashMap<>();
  private final List<Frame> frames = new ArrayList<>();
  private int size = 1;
  private int[] frame = new int[1024];
  private int[] parent = new int[1024];
  private long[] total = new long[1024];
  private long[] self = new long[1024];
  // (parent << 32 | frame id) -> child index + 1, open addressing; 0 marks a free slot.
  private long[] keys = new long[2048];
  private int[] children = new int[2048];

  StackTrie() {
    frame[0] = -1;
    parent[0] = -1;
  }

  /** Adds a stack (leaf first) of a non-negative weight; fails if the grand total overflows. */
  void add(List<Frame> leafFirst, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("a flame graph needs non-negative weights, got " + value);
    }
    try {
      total[0] = Math.addExact(total[0], value);
    } catch (ArithmeticException e) {
      throw new ArithmeticException("the aggregate's total exceeds the signed 64-bit range");
    }
    int node = 0;
    for (int i = leafFirst.size() - 1; i >= 0; i--) {
      node = child(node, frameId(leafFirst.get(i)));
      total[node] += value; // at most total[0]: cannot overflow
    }
    self[node] += value;
  }

  private int frameId(Frame f) {
    Integer id = frameIds.get(f);
    if (id == null) {
      id = frames.size();
      frameIds.put(f, id);
      frames.add(f);
    }
    return id;
  }

  private int child(int node, int frameId) {
    long key = ((long) node << 32) | frameId;
    int mask = keys.length - 1;
    int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    while (children[slot] != 0) {
      if (keys[slot] == key) {
        return children[slot] - 1;
      }
      slot = (slot + 1) & mask;
    }
    int c = size++;
    if (c == frame.length) {
      int n = c * 2;
      frame = Arrays.copyOf(frame, n);
      parent = Arrays.copyOf(parent, n);
      total = Arrays.copyOf(total, n);
      self = Arrays.copyOf(self, n);
    }
    frame[c] = frameId;
    parent[c] = node;
    keys[slot] = key;
    children[slot] = c + 1;
    if (2 * size > keys.length) {
      rehash();
    }
    return c;
  }

  private void rehash() {
    long[] oldKeys = keys;
    int[] oldChildren = children;
    keys = new long[oldKeys.length * 2];
    children = new int[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldChildren[i] != 0) {
        int slot = (int) ((oldKeys[i] * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        while (children[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        keys[slot] = oldKeys[i];
        children[slot] = oldChildren[i];
      }
    }
  }

  /**
   * The nodes to draw when at most {@code maxFrames} frames may be: the root and the
   * {@code maxFrames} heaviest nodes, ties going to the earlier-created. A node weighs at least as
   * much as each child and was created before it, so the set always holds every kept node's parent:
   * what is dropped is the lightest subtrees, whose weight stays in their parents' width.
   *
   * @return node indices, ascending
   */
  int[] select(int maxFrames) {
    int frameNodes = size - 1;
    if (frameNodes <= maxFrames) {
      int[] all = new int[size];
      Arrays.setAll(all, i -> i);
      return all;
    }
    long[] sorted = Arrays.copyOfRange(total, 1, size);
    Arrays.sort(sorted);
    long threshold = maxFrames == 0 ? Long.MAX_VALUE : sorted[frameNodes - maxFrames];
    int ties = 0;
    for (int i = frameNodes - maxFrames; i < frameNodes && sorted[i] == threshold; i++) {
      ties++;
    }
    int[] kept = new int[maxFrames + 1];
    int n = 0;
    kept[n++] = 0;
    for (int i = 1; i < size && n <= maxFrames; i++) {
      if (total[i] > threshold || (total[i] == threshold && ties-- > 0)) {
        kept[n++] = i;
      }
    }
    return kept;
  }

  int size() {
    return size;
  }

  /** The node's frame; null for the root. */
  Frame frame(int node) {
    return node == 0 ? null : frames.get(frame[node]);
  }

  int parent(int node) {
    return parent[node];
  }

  long total(int node) {
    return total[node];
  }

  long self(int node) {
    return self[node];
  }
}
