package dev.fleetprof.format.gperftools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.CpuProfiles.Decoded;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The evaluation harness (after spark-bam's): runs the boundary checker at every slot position of
 * every real sample profile, in both byte orders, and compares with the ground truth of a
 * sequential walk. Zero false positives and zero false negatives are required.
 */
class CpuProfileBoundaryCheckerTest {

  record Case(String name, byte[] data) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() throws Exception {
    List<Case> out = new ArrayList<>();
    for (Path p : SampleData.gperftoolsProfiles()) {
      byte[] data = SampleData.read(p);
      Decoded d = CpuProfiles.decode(p.toString(), data);
      out.add(new Case(p.getFileName().toString(), data));
      int w = d.header().slotWidth();
      out.add(
          new Case(
              p.getFileName() + " (big-endian copy)",
              CpuProfiles.swapByteOrder(data, w, d.stopOffset() + 3L * w)));
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void noFalsePositivesNoFalseNegativesAtAnySlot(Case c) throws Exception {
    Decoded truth = CpuProfiles.decode(c.name(), c.data());
    Set<Long> starts = new HashSet<>();
    for (DecodedRecord r : truth.records()) {
      starts.add(r.offset());
    }
    ByteSource src = TestSources.bytes(c.name(), c.data());
    CpuProfileLayout layout = CpuProfileLayout.read(src);
    assertTrue(layout.splittable(), "real profiles with maps text are splittable");
    assertEquals(truth.stopOffset(), layout.trailerOffset(), "trailer found from the tail");
    CpuProfileBoundaryChecker checker = new CpuProfileBoundaryChecker(src, layout);
    int w = layout.header().slotWidth();
    int falsePositives = 0;
    int falseNegatives = 0;
    List<Long> wrong = new ArrayList<>();
    for (long p = layout.header().recordsStart(); p < layout.trailerOffset(); p += w) {
      boolean said = checker.isRecordStart(p);
      boolean is = starts.contains(p);
      if (said && !is) {
        falsePositives++;
        wrong.add(p);
      } else if (!said && is) {
        falseNegatives++;
        wrong.add(p);
      }
    }
    assertEquals(
        0,
        falsePositives + falseNegatives,
        c.name()
            + ": "
            + falsePositives
            + " false positives, "
            + falseNegatives
            + " false negatives at "
            + wrong);
    // And from every byte (not only slot) position, the first boundary found is the true next one.
    long[] sorted = starts.stream().mapToLong(Long::longValue).sorted().toArray();
    int next = 0;
    for (long from = 0; from <= layout.trailerOffset(); from++) {
      while (next < sorted.length
          && sorted[next] < Math.max(from, layout.header().recordsStart())) {
        next++;
      }
      long expected = next < sorted.length ? sorted[next] : layout.trailerOffset();
      assertEquals(expected, checker.firstBoundaryAtOrAfter(from), c.name() + " from " + from);
    }
  }
}
