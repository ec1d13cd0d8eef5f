package dev.fleetprof.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link MappingIndex#find} against the rule it implements: the first listed mapping holding a pc.
 */
class MappingIndexTest {
  @Test
  void findsTheFirstListedMappingAcrossTheWholeUnsignedRange() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 200; trial++) {
      // Clustered around 0, the signed/unsigned boundary (kernel-half addresses such as
      // [vsyscall] at 0xffffffffff600000) and the top, where signed order would go wrong.
      long[] centres = {0L, Long.MAX_VALUE - 5000, -10_000L};
      List<Mapping> listed = new ArrayList<>();
      int n = rnd.nextInt(0, 40);
      for (int i = 0; i < n; i++) {
        long start = centres[rnd.nextInt(3)] + rnd.nextInt(8000);
        long limit = start + 1 + rnd.nextInt(3000);
        if (Long.compareUnsigned(limit, start) < 0) {
          continue; // would wrap past 2^64
        }
        listed.add(new Mapping(start, limit, rnd.nextInt(1 << 20), "m" + i, rnd.nextInt(4) > 0));
      }
      MappingIndex index = new MappingIndex(listed);
      for (int k = 0; k < 2000; k++) {
        long pc = centres[rnd.nextInt(3)] + rnd.nextInt(-100, 12_000);
        Mapping first = null;
        for (Mapping m : listed) {
          if (m.executable()
              && Long.compareUnsigned(m.start(), pc) <= 0
              && Long.compareUnsigned(pc, m.limit()) < 0) {
            first = m;
            break;
          }
        }
        int found = index.find(pc);
        assertEquals(
            first,
            found < 0 ? null : index.get(found),
            "pc " + Long.toUnsignedString(pc, 16) + " in " + listed);
      }
    }
  }
}
