package dev.fleetprof.format.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pprof decoder against {@code go tool pprof} on real files: every sample's values, addresses
 * and labels equal {@code -raw}'s (hence totals and per-chain sums for every sample type), and the
 * function names and lines of every location equal {@code -traces -lines}.
 */
class PprofReaderTest {
  @TempDir static Path tmp;
  private static GoPprof go;
  private static List<Path> files;

  @BeforeAll
  static void profiles() throws Exception {
    go = new GoPprof(tmp.resolve("home"));
    files = new ArrayList<>(PprofProfiles.goSamples());
    files.addAll(PprofProfiles.convertedGperftools(tmp));
    files.add(PprofProfiles.writtenByPprofWriter(tmp));
  }

  /** One decoded sample. */
  record Decoded(
      long offset,
      long count,
      List<Long> values,
      List<Long> pcs,
      Map<String, List<String>> labels,
      List<String> frames) {}

  static List<Decoded> decode(ByteSource src, String sampleType) throws IOException {
    List<Decoded> out = new ArrayList<>();
    try (PprofReader r = PprofReader.open(src, sampleType)) {
      PprofTables t = r.tables();
      while (r.next()) {
        List<Long> values = new ArrayList<>();
        for (int i = 0; i < t.sampleTypes(); i++) {
          values.add(r.value(i));
        }
        List<Long> pcs = new ArrayList<>();
        List<String> frames = new ArrayList<>();
        for (int i = 0; i < r.depth(); i++) {
          pcs.add(r.pc(i));
          int loc = r.location(i);
          for (int j = 0; j < t.lineCount(loc); j++) {
            frames.add(
                t.lineFunction(loc, j) + " " + t.lineFile(loc, j) + ":" + t.lineNumber(loc, j));
          }
          if (t.lineCount(loc) == 0) {
            int m = t.mappings().find(r.pc(i));
            String file = m < 0 ? null : t.mappings().get(m).path();
            // pprof names a location it has no function for by its mapping's file, else unknown.
            frames.add(
                file == null ? "<unknown>" : "[" + file.substring(file.lastIndexOf('/') + 1) + "]");
          }
        }
        Map<String, List<String>> labels = new TreeMap<>();
        for (int i = 0; i < r.labels(); i++) {
          labels
              .computeIfAbsent(r.labelKey(i), k -> new ArrayList<>())
              .add(r.labelIsNumeric(i) ? Long.toString(r.labelNumber(i)) : r.labelString(i));
        }
        out.add(new Decoded(r.recordOffset(), r.count(), values, pcs, labels, frames));
      }
    }
    return out;
  }

  private static final Pattern RAW_LABEL = Pattern.compile("(\\S+):\\[([^\\]]*)\\]");

  /** The labels {@code -raw} printed under each sample ("key:[v1 v2] key2:[v]"), in order. */
  static List<Map<String, List<String>>> rawLabels(String raw) {
    List<Map<String, List<String>>> out = new ArrayList<>();
    boolean samples = false;
    for (String line : raw.split("\n")) {
      String t = line.strip();
      if (t.equals("Samples:")) {
        samples = true;
      } else if (t.equals("Locations")) {
        break;
      } else if (samples && t.matches("-?\\d.*:.*")) {
        out.add(new TreeMap<>());
      } else if (samples && !out.isEmpty() && t.contains(":[")) {
        Matcher m = RAW_LABEL.matcher(t);
        while (m.find()) {
          out.get(out.size() - 1).put(m.group(1), List.of(m.group(2).split(" ")));
        }
      }
    }
    return out;
  }

  /** A sample's key as pprof merges samples: its address chain and its labels. */
  record Key(List<Long> pcs, Map<String, List<String>> labels) {}

  private static void add(Map<Key, List<Long>> into, Key key, List<Long> values) {
    into.merge(
        key,
        values,
        (a, b) -> {
          List<Long> sum = new ArrayList<>();
          for (int i = 0; i < a.size(); i++) {
            sum.add(a.get(i) + b.get(i));
          }
          return sum;
        });
  }

  /**
   * {@code go tool pprof} merges the samples it reads (those with the same addresses and labels are
   * summed, those whose values are all 0 dropped) before {@code -raw} prints them: the rows, merged
   * the same way, must give exactly its samples, values, addresses and labels.
   */
  @Test
  void everySampleEqualsGoToolPprofRaw() throws Exception {
    for (Path file : files) {
      String rawText = go.run("-raw", file.toString());
      PprofRaw raw = PprofRaw.parse(rawText);
      List<Map<String, List<String>>> labels = rawLabels(rawText);
      assertEquals(raw.samples.size(), labels.size(), file + ": label lines parsed");
      Map<Key, List<Long>> expected = new HashMap<>();
      for (int k = 0; k < raw.samples.size(); k++) {
        List<Long> addresses = new ArrayList<>();
        for (long id : raw.samples.get(k).locationIds()) {
          addresses.add(raw.locations.get(id).address());
        }
        add(expected, new Key(addresses, labels.get(k)), raw.samples.get(k).values());
      }
      byte[] data = PprofProfiles.protobuf(file);
      List<Decoded> ours = decode(TestSources.bytes(file.toString(), data), null);
      Map<Key, List<Long>> actual = new HashMap<>();
      for (Decoded d : ours) {
        if (d.values().stream().anyMatch(v -> v != 0)) {
          add(actual, new Key(d.pcs(), d.labels()), d.values());
        }
      }
      assertFalse(expected.isEmpty() && !file.toString().contains("zero_samples"), file.toString());
      assertEquals(expected, actual, file + ": samples (addresses leaf first, labels, values)");

      // Per sample type, through the option: the total and the sum per address chain.
      int types = raw.samples.isEmpty() ? 0 : raw.samples.get(0).values().size();
      for (int i = 0; i < types; i++) {
        Map<List<Long>, Long> chains = new HashMap<>();
        long expectedTotal = 0;
        for (Map.Entry<Key, List<Long>> e : expected.entrySet()) {
          chains.merge(e.getKey().pcs(), e.getValue().get(i), Long::sum);
          expectedTotal += e.getValue().get(i);
        }
        chains.values().removeIf(v -> v == 0);
        Map<List<Long>, Long> actualChains = new HashMap<>();
        long total = 0;
        for (Decoded d : decode(TestSources.bytes(file.toString(), data), Integer.toString(i))) {
          actualChains.merge(d.pcs(), d.count(), Long::sum);
          total += d.count();
        }
        actualChains.values().removeIf(v -> v == 0);
        assertEquals(expectedTotal, total, file + ": total of sample type " + i);
        assertEquals(chains, actualChains, file + ": per-chain sums of sample type " + i);
      }
    }
  }

  @Test
  void functionsAndLinesEqualGoToolPprofTraces() throws Exception {
    for (Path file : files) {
      List<Decoded> ours =
          decode(TestSources.bytes(file.toString(), PprofProfiles.protobuf(file)), "0");
      Map<List<String>, Integer> expected = new HashMap<>();
      for (GoPprof.Trace t : go.traces(file, 0)) {
        expected.merge(t.frames(), 1, Integer::sum);
      }
      Map<List<String>, Integer> actual = new HashMap<>();
      for (Decoded d : ours) {
        if (d.values().stream().anyMatch(v -> v != 0)) { // pprof drops all-zero samples
          actual.merge(d.frames(), 1, Integer::sum);
        }
      }
      assertEquals(expected, actual, file + ": frames (function file:line, innermost first)");
    }
  }

  @Test
  void aStreamOfUnknownLengthGivesTheSameSamples() throws Exception {
    for (Path file : files) {
      byte[] data = PprofProfiles.protobuf(file);
      assertEquals(
          decode(TestSources.bytes(file.toString(), data), null),
          decode(TestSources.unknownLength(file.toString(), data), null),
          file.toString());
    }
  }

  @Test
  void everyFileIsDetectedAsPprof() throws Exception {
    for (Path file : files) {
      byte[] data = PprofProfiles.protobuf(file);
      int n = Math.min(data.length, ProfileFormats.HEAD_BYTES);
      assertTrue(
          ProfileFormats.detect(data, n, data.length) instanceof PprofFormat,
          file + " is detected as pprof");
      assertTrue(
          ProfileFormats.detect(data, n, -1) instanceof PprofFormat,
          file + " (decompressed: length unknown) is detected as pprof");
    }
  }

  @Test
  void theDefaultSampleTypeIsPprofs() throws Exception {
    for (Path file : files) {
      byte[] data = PprofProfiles.protobuf(file);
      // go tool pprof -raw prints no default; -traces without -sample_index uses it: its first
      // trace's value column is formatted, so compare the type name -traces' header prints.
      String header = go.run("-traces", file.toString());
      Matcher m = Pattern.compile("(?m)^Type: (\\S+)$").matcher(header);
      assertTrue(m.find(), header);
      try (PprofReader r =
          new PprofFormat().open(TestSources.bytes(file.toString(), data), DecodeOptions.ALL)) {
        assertEquals(m.group(1), r.tables().sampleType(r.countType()), file.toString());
      }
    }
  }

  @Test
  void aSampleTypeByNameOrIndexAndAnUnknownOne() throws Exception {
    Path heap =
        PprofProfiles.goSamples().stream()
            .filter(p -> p.getFileName().toString().equals("heap.pb"))
            .findFirst()
            .orElseThrow();
    byte[] data = PprofProfiles.protobuf(heap);
    List<Decoded> byName = decode(TestSources.bytes("heap", data), "alloc_space");
    List<Decoded> byIndex = decode(TestSources.bytes("heap", data), "1");
    assertEquals(byName, byIndex);
    for (Decoded d : byName) {
      assertEquals(d.values().get(1), d.count());
    }
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.fleetprof.format.ProfileFormatException.class,
            () -> decode(TestSources.bytes("heap", data), "cpu"));
    assertTrue(e.getMessage().contains("alloc_objects/count"), e.getMessage());
    assertFalse(byName.isEmpty());
  }
}
