package dev.fleetprof.output.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.Frame;
import dev.fleetprof.output.SymbolizedStacks;
import dev.fleetprof.output.WeightedStack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The call tree behind the flame graph, and which frames survive the cap. */
class StackTrieTest {
  /** Random stacks over a small frame pool, so prefixes are shared and ties are frequent. */
  static List<List<Frame>> randomStacks(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<List<Frame>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<Frame> s = new ArrayList<>();
      int depth = rnd.nextInt(1, 9);
      for (int d = 0; d < depth; d++) {
        s.add(new Frame(rnd.nextBoolean() ? "/bin/a" : null, rnd.nextInt(6)));
      }
      out.add(s);
    }
    return out;
  }

  @Test
  void totalsAddUpAndTheCapKeepsTheHeaviestConnectedFrames() {
    StackTrie trie = new StackTrie();
    long sum = 0;
    SplittableRandom rnd = new SplittableRandom(3);
    for (List<Frame> s : randomStacks(5000, 11)) {
      long v = rnd.nextInt(0, 4);
      trie.add(s, v);
      sum += v;
    }
    assertEquals(sum, trie.total(0));
    Map<Integer, Long> childSums = new HashMap<>();
    for (int i = 1; i < trie.size(); i++) {
      childSums.merge(trie.parent(i), trie.total(i), Long::sum);
    }
    for (int i = 0; i < trie.size(); i++) {
      assertEquals(trie.total(i), trie.self(i) + childSums.getOrDefault(i, 0L), "node " + i);
    }

    for (int cap : new int[] {1, 7, 100, 1000, trie.size() - 1, trie.size() + 5}) {
      int[] kept = trie.select(cap);
      assertEquals(Math.min(cap, trie.size() - 1) + 1, kept.length, "cap " + cap);
      Set<Integer> set = new HashSet<>();
      for (int k : kept) {
        set.add(k);
      }
      assertTrue(set.contains(0));
      long lightestKept = Long.MAX_VALUE;
      for (int k : kept) {
        assertTrue(k == 0 || set.contains(trie.parent(k)), "parent of a kept frame is kept");
        lightestKept = Math.min(lightestKept, trie.total(k));
      }
      for (int i = 0; i < trie.size(); i++) {
        if (!set.contains(i)) {
          assertTrue(trie.total(i) <= lightestKept, "a dropped frame outweighs a kept one");
        }
      }
    }
  }

  @Test
  void symbolizedFramesAreFunctionNodesMergedWithinAFunction() {
    StackTrie trie = new StackTrie();
    Map<String, Long> expected = new HashMap<>(); // root-first path of names -> weight
    for (WeightedStack s : SymbolizedStacks.stacks()) {
      trie.add(s.frames(), s.value());
      StringBuilder path = new StringBuilder();
      for (int i = s.frames().size() - 1; i >= 0; i--) {
        Frame f = s.frames().get(i);
        if (f.lines().isEmpty()) {
          path.append('/').append(f.label());
          expected.merge(path.toString(), s.value(), Long::sum);
        }
        for (int k = f.lines().size() - 1; k >= 0; k--) {
          path.append('/').append(f.lines().get(k).function());
          expected.merge(path.toString(), s.value(), Long::sum);
        }
      }
    }
    Map<String, Long> got = new HashMap<>();
    Map<String, StackTrie.Where> where = new HashMap<>();
    for (int node = 1; node < trie.size(); node++) {
      String path = "";
      for (int n = node; n != 0; n = trie.parent(n)) {
        StackTrie.Box b = trie.box(n);
        path = "/" + (b.function() != null ? b.function() : b.address().label()) + path;
      }
      got.put(path, trie.total(node));
      where.put(path, trie.where(node));
    }
    assertEquals(expected, got);
    assertEquals(
        new StackTrie.Where("/src/fleet/block.c", 0, StackTrie.Inlined.NO),
        where.get("/main/process_block"),
        "lines 55, 60 and 61 of one file");
    assertEquals(
        new StackTrie.Where("/src/fleet/crc.h", 7, StackTrie.Inlined.YES),
        where.get("/main/process_block/checksum/crc_step"));
    assertEquals(null, where.get("/main/" + SymbolizedStacks.LIBC_QSORT.label()));
  }

  @Test
  void negativeWeightsAndOverflowingTotalsAreRefused() {
    StackTrie trie = new StackTrie();
    List<Frame> s = List.of(new Frame("/a", 1));
    assertThrows(IllegalArgumentException.class, () -> trie.add(s, -1));
    trie.add(s, Long.MAX_VALUE / 2 + 1);
    ArithmeticException e =
        assertThrows(ArithmeticException.class, () -> trie.add(s, Long.MAX_VALUE / 2 + 1));
    assertTrue(e.getMessage().contains("64-bit"), e.getMessage());
  }
}
