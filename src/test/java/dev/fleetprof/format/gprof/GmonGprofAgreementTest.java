package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoder's rows against what gprof itself printed for the same file and binary at regeneration
 * time (gprof-p.txt, gprof-q.txt, gprof-assign.txt) with the binary's symbols from nm.txt.
 */
class GmonGprofAgreementTest {
  static List<SampleData.Gmon> samples() {
    return SampleData.gmonSamples();
  }

  private static List<Row> rows(SampleData.Gmon s) throws IOException {
    return Row.readAll(TestSources.file(s.gmon()), GmonOptions.auto());
  }

  /** Histogram bins summed per (start, end), in address order (gprof adds identical ranges). */
  private static List<GprofText.Bin> nonZeroBins(List<Row> rows) {
    TreeMap<Long, long[]> byStart = new TreeMap<>(Long::compareUnsigned);
    for (Row r : rows) {
      if (r.kind().equals(GmonReader.KIND_HISTOGRAM)) {
        long[] v = byStart.computeIfAbsent(r.pc0(), k -> new long[] {r.binEnd(), 0});
        assertEquals(v[0], r.binEnd(), "same bin start, different end");
        v[1] += r.count();
      }
    }
    List<GprofText.Bin> bins = new ArrayList<>();
    byStart.forEach((start, v) -> bins.add(new GprofText.Bin(start, v[0], v[1])));
    return bins;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void nonZeroBinsAreExactlyTheOnesGprofAssigns(SampleData.Gmon s) throws IOException {
    List<GprofText.Bin> expected = GprofText.assignedBins(s.text("gprof-assign.txt"));
    assertFalse(expected.isEmpty(), "gprof saw samples");
    assertEquals(expected, nonZeroBins(rows(s)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void histogramTotalIsGprofsTotalTime(SampleData.Gmon s) throws IOException {
    List<Row> rows = rows(s);
    double ticks = 0;
    long rate = -1;
    for (Row r : rows) {
      if (r.kind().equals(GmonReader.KIND_HISTOGRAM)) {
        ticks += r.count();
        rate = r.rate();
        assertEquals("seconds", r.dimension());
        assertEquals('s', r.abbrev());
      }
    }
    GprofText.Flat flat = GprofText.flat(s.text("gprof-p.txt"));
    assertEquals(1.0 / flat.secondsPerSample(), rate, 1e-9, "prof_rate");
    double seconds = ticks / rate;
    // the call graph's "for x% of T seconds" prints gprof's total_time / hz with %.2f
    double cgTotal = GprofText.callGraph(s.text("gprof-q.txt")).totalSeconds();
    assertEquals(cgTotal, seconds, 0.005 + 1e-9, "call graph total");
    // the flat profile's last cumulative column is the time credited to functions, with %.2f
    assertEquals(flat.lastCumulative(), seconds, 0.005 + 1e-9, "flat profile total");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void selfSecondsPerFunctionMatchTheFlatProfile(SampleData.Gmon s) throws IOException {
    GprofText.Symbols syms = GprofText.symbols(s.text("nm.txt"));
    List<Row> rows = rows(s);
    // Credit each bin to the functions it overlaps, in proportion to the overlap, measured in
    // gprof's
    // 2-byte units with each function running up to the next symbol (hist.c,
    // hist_assign_samples_1).
    Map<String, Double> ticks = new HashMap<>();
    long rate = 0;
    for (Row r : rows) {
      if (!r.kind().equals(GmonReader.KIND_HISTOGRAM)) {
        continue;
      }
      rate = r.rate();
      long lo = r.pc0() / 2;
      long hi = r.binEnd() / 2;
      for (int j = 0; j < syms.addrs.length - 1; j++) {
        long symLo = syms.addrs[j] / 2;
        long symHi = syms.addrs[j + 1] / 2;
        long overlap = Math.min(hi, symHi) - Math.max(lo, symLo);
        if (overlap > 0) {
          ticks.merge(syms.names[j], overlap * (double) r.count() / (hi - lo), Double::sum);
        }
      }
    }
    Map<String, Double> gprofSelf = GprofText.flat(s.text("gprof-p.txt")).selfByName();
    int checked = 0;
    for (Map.Entry<String, Double> e : gprofSelf.entrySet()) {
      double ours = ticks.getOrDefault(e.getKey(), 0.0) / rate;
      assertEquals(e.getValue(), ours, 0.005 + 1e-9, "self seconds of " + e.getKey());
      if (e.getValue() > 0) {
        checked++;
      }
    }
    for (Map.Entry<String, Double> e : ticks.entrySet()) {
      if (!gprofSelf.containsKey(e.getKey())) {
        assertTrue(
            e.getValue() / rate < 0.005, "time in " + e.getKey() + " missing from gprof's profile");
      }
    }
    assertTrue(checked >= 2, "at least two functions with time");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void arcCountsPerCallerAndCalleeAreGprofsCallCounts(SampleData.Gmon s) throws IOException {
    GprofText.Symbols syms = GprofText.symbols(s.text("nm.txt"));
    Map<String, Long> ours = new TreeMap<>();
    int arcs = 0;
    for (Row r : rows(s)) {
      if (r.kind().equals(GmonReader.KIND_ARC)) {
        arcs++;
        String callee = syms.lookup(r.pc0()); // pcs = [self_pc, from_pc]
        String caller = syms.lookup(r.pc1());
        if (callee != null && caller != null) {
          ours.merge(caller + GprofText.ARROW + callee, r.count(), Long::sum);
        }
      }
    }
    assertTrue(arcs > 5, "arcs read");
    assertEquals(GprofText.callGraph(s.text("gprof-q.txt")).arcs(), ours);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void callsIntoEachFunctionMatchTheFlatProfile(SampleData.Gmon s) throws IOException {
    GprofText.Symbols syms = GprofText.symbols(s.text("nm.txt"));
    Map<String, Long> calls = new HashMap<>();
    for (Row r : rows(s)) {
      if (r.kind().equals(GmonReader.KIND_ARC)) {
        String callee = syms.lookup(r.pc0());
        String caller = syms.lookup(r.pc1());
        if (caller != null
            && !caller.equals(callee)) { // the flat profile leaves out recursive calls
          calls.merge(callee, r.count(), Long::sum);
        }
      }
    }
    int checked = 0;
    for (GprofText.FlatLine l : GprofText.flat(s.text("gprof-p.txt")).lines()) {
      if (l.calls() != null) {
        assertEquals(l.calls(), calls.getOrDefault(l.name(), 0L), "calls of " + l.name());
        checked++;
      }
    }
    assertTrue(checked >= 5);
  }
}
