package dev.fleetprof.output.flamegraph;

import dev.fleetprof.output.Frame;
import dev.fleetprof.symbols.SourceLine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The stacks of an aggregate merged into a call tree (node 0 is the root, above every stack's
 * outermost frame), kept in parallel primitive arrays: a fleet aggregate has millions of tree
 * nodes, which as objects with child maps would cost several times the memory. A node is created
 * after its parent, so a parent's index is always smaller than its children's.
 *
 * <p>A node is a {@link Box}: a symbolized frame becomes one box per entry of its inline chain
 * (outermost first down the tree), keyed by (module, function) so that every offset within one
 * function, under one parent, folds into one node; an unsymbolized frame is one box keyed by its
 * (module, offset), as before symbolization. A boundary-only name is a box of its own, apart from
 * any box of the same name that is not a guess. Each node also keeps a {@link Where}: the file,
 * line and inlined-ness its frames agree on.
 */
final class StackTrie {
  /**
   * What a node stands for: a function of a module (symbolized frames), or one address (module,
   * offset) when {@code function} is null. {@code boundaryOnly}: the function's name is a guess
   * (see {@link Frame#boundaryOnly()}).
   */
  record Box(String module, String function, long offset, boolean boundaryOnly) {
    Box(String module, String function, long offset) {
      this(module, function, offset, false);
    }

    /** The unsymbolized frame's address, for its labels; null for a function box. */
    Frame address() {
      return function == null ? new Frame(module, offset) : null;
    }

    /** What a box of the graph shows: the function, or the address with the module's file name. */
    String shortLabel() {
      return function != null ? function : address().shortLabel();
    }

    /** The function and its module, or the address with the full module path. */
    String label() {
      if (function == null) {
        return address().label();
      }
      String m = displayModule();
      return m == null ? function : function + " in " + m;
    }

    /** The module as outputs show it (see {@link Frame#displayModule()}). */
    String displayModule() {
      return module == null ? null : module.isEmpty() ? Frame.ANONYMOUS : module;
    }
  }

  /** Whether a node's frames are inlined code: never, always, or only some of them. */
  enum Inlined {
    NO,
    YES,
    SOMETIMES
  }

  /**
   * Where in the source a function box's frames are, merged over every frame that fell into the
   * node: the file when they all agree on it (else null), the line when they all agree on file and
   * line (else 0), and whether they are inlined.
   */
  record Where(String file, long line, Inlined inlined) {
    Where merge(Where o) {
      boolean sameFile = Objects.equals(file, o.file);
      return new Where(
          sameFile ? file : null,
          sameFile && line == o.line ? line : 0,
          inlined == o.inlined ? inlined : Inlined.SOMETIMES);
    }
  }

  /** A distinct frame's boxes and their source positions (ids), outermost first. */
  private record Expansion(int[] boxes, int[] wheres) {}

  private final Map<Frame, Expansion> expansions = new HashMap<>();
  private final Map<Box, Integer> boxIds = new HashMap<>();
  private final List<Box> boxes = new ArrayList<>();
  private final Map<Where, Integer> whereIds = new HashMap<>();
  private final List<Where> wheres = new ArrayList<>();
  private int size = 1;
  private int[] box = new int[1024];
  private int[] where = new int[1024];
  private int[] parent = new int[1024];
  private long[] total = new long[1024];
  private long[] self = new long[1024];
  // (parent << 32 | box id) -> child index + 1, open addressing; 0 marks a free slot.
  private long[] keys = new long[2048];
  private int[] children = new int[2048];

  StackTrie() {
    box[0] = -1;
    where[0] = -1;
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
      Expansion e = expansion(leafFirst.get(i));
      for (int k = 0; k < e.boxes.length; k++) {
        node = child(node, e.boxes[k]);
        total[node] += value; // at most total[0]: cannot overflow
        where[node] = mergeWhere(where[node], e.wheres[k]);
      }
    }
    self[node] += value;
  }

  private Expansion expansion(Frame f) {
    Expansion e = expansions.get(f);
    if (e != null) {
      return e;
    }
    List<SourceLine> chain = f.lines();
    if (chain.isEmpty()) {
      e = new Expansion(new int[] {boxId(new Box(f.module(), null, f.offset()))}, new int[] {-1});
    } else {
      int n = chain.size();
      e = new Expansion(new int[n], new int[n]);
      for (int k = 0; k < n; k++) {
        SourceLine line = chain.get(n - 1 - k); // the chain is innermost first, the tree root first
        e.boxes[k] = boxId(new Box(f.module(), line.function(), 0, f.boundaryOnly()));
        e.wheres[k] =
            whereId(new Where(line.file(), line.line(), k > 0 ? Inlined.YES : Inlined.NO));
      }
    }
    expansions.put(f, e);
    return e;
  }

  private int boxId(Box b) {
    Integer id = boxIds.get(b);
    if (id == null) {
      id = boxes.size();
      boxIds.put(b, id);
      boxes.add(b);
    }
    return id;
  }

  private int whereId(Where w) {
    Integer id = whereIds.get(w);
    if (id == null) {
      id = wheres.size();
      whereIds.put(w, id);
      wheres.add(w);
    }
    return id;
  }

  /**
   * A node's position merged with one more frame's. A new node starts at -1 (no position), which is
   * also every address box's position: a node's box decides which kind of frames reach it.
   */
  private int mergeWhere(int current, int added) {
    if (current == -1 || current == added) {
      return added;
    }
    // Memory stays bounded by the distinct positions: a merge is itself one (file, line, inlined).
    return whereId(wheres.get(current).merge(wheres.get(added)));
  }

  private int child(int node, int boxId) {
    long key = ((long) node << 32) | boxId;
    int mask = keys.length - 1;
    int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    while (children[slot] != 0) {
      if (keys[slot] == key) {
        return children[slot] - 1;
      }
      slot = (slot + 1) & mask;
    }
    int c = size++;
    if (c == box.length) {
      int n = c * 2;
      box = Arrays.copyOf(box, n);
      where = Arrays.copyOf(where, n);
      parent = Arrays.copyOf(parent, n);
      total = Arrays.copyOf(total, n);
      self = Arrays.copyOf(self, n);
    }
    box[c] = boxId;
    where[c] = -1;
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
   * The nodes to draw when at most {@code maxFrames} frames may be: the root and the {@code
   * maxFrames} heaviest nodes, ties going to the earlier-created. A node weighs at least as much as
   * each child and was created before it, so the set always holds every kept node's parent: what is
   * dropped is the lightest subtrees, whose weight stays in their parents' width.
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

  /** The node's box; null for the root. */
  Box box(int node) {
    return node == 0 ? null : boxes.get(box[node]);
  }

  /** Where the node's frames are in the source; null for the root and address boxes. */
  Where where(int node) {
    return where[node] < 0 ? null : wheres.get(where[node]);
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
