package dev.fleetprof.output.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.SampleAggregate;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The profile.proto of the real gperftools samples' aggregate, as {@code go tool pprof} reads it:
 * totals against the decoder, stacks against the aggregate, leaf weights against pprof's own
 * reading of the original files (the {@code _reference/*.pprof-raw.txt} dumps).
 */
class PprofGoToolTest {
  @TempDir static Path dir;
  private static Path go;
  private static Path profile;

  @BeforeAll
  static void writeProfile() throws Exception {
    go = ExternalTool.require("go", "golang-go");
    profile = dir.resolve("samples.pb.gz");
    PprofWriter.write(profile, SampleAggregate.meaning(), SampleAggregate.stacks());
  }

  private static ExternalTool.Result pprof(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(go.toString(), "tool", "pprof"));
    cmd.addAll(List.of(args));
    cmd.add(profile.toString());
    // pprof writes downloaded profiles and caches under PPROF_TMPDIR and HOME: keep them here.
    ExternalTool.Result r =
        ExternalTool.run(
            cmd,
            dir.resolve("home"),
            Map.of("PPROF_TMPDIR", dir.resolve("pprof-tmp").toString(), "PPROF_BINARY_PATH", ""),
            300);
    assertEquals(0, r.exit(), "go tool pprof " + List.of(args) + ": " + r.stderr());
    return r;
  }

  @Test
  void rawStacksAndTotalsMatchTheAggregateAndTheDecoder() throws Exception {
    PprofRaw raw = PprofRaw.parse(pprof("-raw", "-symbolize=none").stdout());
    assertEquals("cpu nanoseconds", raw.periodType);
    assertEquals(1_000_000, raw.period, "1000 us in ns, as pprof converts the original files");

    long total = 0;
    Map<List<Frame>, Long> got = new HashMap<>();
    for (PprofRaw.Sample s : raw.samples) {
      assertEquals(s.values().get(0) * raw.period, s.values().get(1), "cpu = samples x period");
      total += s.values().get(0);
      got.merge(raw.frames(s), s.values().get(0), Long::sum);
    }
    assertEquals(SampleAggregate.decoderTotal(), total);

    Map<List<Frame>, Long> expected = new HashMap<>();
    for (WeightedStack s : SampleAggregate.stacks()) {
      expected.merge(PprofWriterTest.expectedLocations(s.frames()), s.value(), Long::sum);
    }
    assertEquals(expected, got);
    assertTrue(
        raw.mappings.values().stream()
            .allMatch(m -> m.start() == 0 && m.offset() == 0 && m.flags().contains("[FN]")),
        raw.mappings.toString());
  }

  @Test
  void leafWeightsMatchPprofsOwnReadingOfTheOriginalFiles() throws Exception {
    Map<Frame, Long> reference = new HashMap<>();
    for (Path p : SampleData.gperftoolsProfiles()) {
      PprofRaw ref = PprofRaw.read(SampleData.pprofRaw(p));
      for (PprofRaw.Sample s : ref.samples) {
        reference.merge(ref.leafFileOffset(s), s.values().get(0), Long::sum);
      }
    }
    PprofRaw ours = PprofRaw.parse(pprof("-raw", "-symbolize=none").stdout());
    Map<Frame, Long> got = new HashMap<>();
    for (PprofRaw.Sample s : ours.samples) {
      got.merge(ours.leafFileOffset(s), s.values().get(0), Long::sum);
    }
    assertFalse(reference.isEmpty());
    assertEquals(reference, got);
  }

  @Test
  void topReportsTheDecodersTotalWithoutTryingToSymbolize() throws Exception {
    // No -symbolize flag: pprof would try to open the mapped files (absent here) and complain.
    ExternalTool.Result top = pprof("-top", "-sample_index=samples");
    Matcher m = Pattern.compile("of (\\d+) total").matcher(top.stdout());
    assertTrue(m.find(), top.stdout());
    assertEquals(SampleAggregate.decoderTotal(), Long.parseLong(m.group(1)));
    assertFalse(top.stderr().toLowerCase().contains("symboliz"), top.stderr());

    // Addresses are module offsets: the heaviest leaf is shown as "<offset> [<module file name>]".
    ExternalTool.Result addresses =
        pprof("-top", "-addresses", "-symbolize=none", "-sample_index=samples");
    Map<Frame, Long> leaves = new HashMap<>();
    for (WeightedStack s : SampleAggregate.stacks()) {
      leaves.merge(s.frames().get(0), s.value(), Long::sum);
    }
    Frame heaviest = leaves.entrySet().stream().max(Map.Entry.comparingByValue()).get().getKey();
    String line =
        String.format("%016x [%s]", heaviest.offset(), Path.of(heaviest.module()).getFileName());
    assertTrue(addresses.stdout().contains(line), line + " in\n" + addresses.stdout());
  }
}
