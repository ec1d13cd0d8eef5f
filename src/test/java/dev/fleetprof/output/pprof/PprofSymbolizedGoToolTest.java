package dev.fleetprof.output.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.SymbolizedStacks;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.testing.PprofRaw;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A profile of symbolized frames (hand-made inline chains, see {@link SymbolizedStacks}) as {@code
 * go tool pprof} reads it: function names with their flat and cum values, stacks with their inlined
 * frames, file:line, the raw line entries, and no attempt to symbolize anything itself. Expected
 * values are computed here from the stacks, by pprof's documented rules.
 */
class PprofSymbolizedGoToolTest {
  private static final Pattern TOP_ROW =
      Pattern.compile(
          "^\\s*(-?\\d+)\\s+\\S+%\\s+\\S+%\\s+(-?\\d+)\\s+\\S+%\\s+(.+?)( \\((?:partial-)?inline\\))?$");

  @TempDir static Path dir;
  private static Path go;
  private static Path profile;
  private static final List<WeightedStack> STACKS = SymbolizedStacks.stacks();

  @BeforeAll
  static void writeProfile() throws Exception {
    go = ExternalTool.require("go", "golang-go");
    profile = dir.resolve("symbolized.pb.gz");
    PprofWriter.write(profile, ValueMeaning.forKind("sample", 1000L, "microseconds"), STACKS);
  }

  private static ExternalTool.Result pprof(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(go.toString(), "tool", "pprof"));
    cmd.addAll(List.of(args));
    cmd.add(profile.toString());
    ExternalTool.Result r =
        ExternalTool.run(
            cmd,
            dir.resolve("home"),
            Map.of("PPROF_TMPDIR", dir.resolve("pprof-tmp").toString(), "PPROF_BINARY_PATH", ""),
            300);
    assertEquals(0, r.exit(), "go tool pprof " + List.of(args) + ": " + r.stderr());
    // No -symbolize flag anywhere: pprof must take the profile as symbolized and open no binary.
    assertFalse(r.stderr().toLowerCase().contains("symboliz"), r.stderr());
    return r;
  }

  /**
   * How pprof names a location's entries, innermost first, given how it names one line: a location
   * without lines (unsymbolized) is its mapping's file name in brackets once addresses are
   * aggregated away.
   */
  private static List<String> names(Frame f, Function<SourceLine, String> name) {
    if (f.lines().isEmpty()) {
      return List.of("[" + Path.of(f.module()).getFileName() + "]");
    }
    return f.lines().stream().map(name).toList();
  }

  private static String fileLine(SourceLine l) {
    // pprof's NameComponents: "file:line" when the line is known, the file alone, or nothing.
    if (l.line() != 0) {
      return l.function() + " " + (l.file() == null ? "" : l.file()) + ":" + l.line();
    }
    return l.file() == null ? l.function() : l.function() + " " + l.file();
  }

  /** Flat (by the leaf's innermost entry) and cum (once per stack) values per name. */
  private static Map<String, List<Long>> expectedTop(Function<SourceLine, String> name) {
    Map<String, List<Long>> out = new HashMap<>();
    for (WeightedStack s : STACKS) {
      Set<String> seen = new LinkedHashSet<>();
      for (Frame f : s.frames()) {
        seen.addAll(names(f, name));
      }
      String leaf = names(s.frames().get(0), name).get(0);
      for (String n : seen) {
        List<Long> fc = out.computeIfAbsent(n, k -> new ArrayList<>(List.of(0L, 0L)));
        fc.set(1, fc.get(1) + s.value());
        if (n.equals(leaf)) {
          fc.set(0, fc.get(0) + s.value());
        }
      }
    }
    return out;
  }

  private static Map<String, List<Long>> parseTop(String text, Set<String> inline) {
    Map<String, List<Long>> out = new HashMap<>();
    boolean rows = false;
    for (String line : text.split("\n")) {
      if (line.strip().startsWith("flat  flat%")) {
        rows = true;
        continue;
      }
      Matcher m = TOP_ROW.matcher(line);
      if (rows && m.matches()) {
        out.put(m.group(3), List.of(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
        if (m.group(4) != null) {
          inline.add(m.group(3));
        }
      }
    }
    return out;
  }

  @Test
  void topShowsFunctionNamesWithTheirFlatAndCumValues() throws Exception {
    Map<String, List<Long>> expected = expectedTop(SourceLine::function);
    // Spelled out too, for the reader: the stacks total 65 samples.
    assertEquals(List.of(0L, 65L), expected.get("main"));
    assertEquals(List.of(25L, 55L), expected.get("process_block"));

    String out = pprof("-top", "-sample_index=samples", "-nodefraction=0").stdout();
    Set<String> inline = new LinkedHashSet<>();
    assertEquals(expected, parseTop(out, inline), out);
    assertTrue(out.contains("of 65 total"), out);
    // Entries other than a location's outermost are inlined code.
    assertEquals(Set.of("crc_step", "checksum"), inline, out);
    assertTrue(out.contains(SymbolizedStacks.HANDLE), "the demangled name, as written: " + out);
  }

  @Test
  void linesShowFileAndLine() throws Exception {
    Map<String, List<Long>> expected = expectedTop(PprofSymbolizedGoToolTest::fileLine);
    assertEquals(List.of(30L, 30L), expected.get("crc_step /src/fleet/crc.h:7"));

    String out = pprof("-top", "-lines", "-sample_index=samples", "-nodefraction=0").stdout();
    assertEquals(expected, parseTop(out, new LinkedHashSet<>()), out);
  }

  @Test
  void tracesShowEachStackInnermostFirstWithItsInlinedFrames() throws Exception {
    Map<List<String>, Long> expected = new HashMap<>();
    for (WeightedStack s : STACKS) {
      List<String> trace = new ArrayList<>();
      for (Frame f : s.frames()) {
        List<String> n = names(f, SourceLine::function);
        for (int i = 0; i < n.size(); i++) {
          trace.add(n.get(i) + (i < n.size() - 1 ? " (inline)" : ""));
        }
      }
      expected.merge(trace, s.value(), Long::sum); // equal traces may be shown once or twice
    }
    assertEquals(
        List.of("crc_step (inline)", "checksum (inline)", "process_block", "main"),
        expected.keySet().stream().filter(t -> t.size() == 4).findFirst().orElseThrow());

    String out = pprof("-traces", "-sample_index=samples").stdout();
    Map<List<String>, Long> got = new HashMap<>();
    String separator = "-----------+-------------------------------------------------------";
    String[] blocks = out.split(Pattern.quote(separator));
    for (int b = 1; b < blocks.length; b++) {
      List<String> trace = new ArrayList<>();
      long value = 0;
      for (String line : blocks[b].split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        if (trace.isEmpty()) {
          value = Long.parseLong(line.substring(0, 10).strip());
        }
        trace.add(line.substring(13));
      }
      if (!trace.isEmpty()) {
        got.merge(trace, value, Long::sum);
      }
    }
    assertEquals(expected, got, out);
  }

  @Test
  void rawLocationsCarryTheChainsLineEntries() throws Exception {
    PprofRaw raw = PprofRaw.parse(pprof("-raw").stdout());
    assertEquals(STACKS.size(), raw.samples.size());
    for (int i = 0; i < STACKS.size(); i++) {
      List<Long> ids = raw.samples.get(i).locationIds();
      List<Frame> frames = STACKS.get(i).frames();
      assertEquals(frames.size(), ids.size());
      for (int k = 0; k < frames.size(); k++) {
        Frame f = frames.get(k);
        PprofRaw.Location l = raw.locations.get(ids.get(k));
        assertEquals(f.offset(), l.address(), "offsets pass through unchanged");
        assertEquals(f.module(), raw.mappings.get(l.mappingId()).file());
        List<PprofRaw.Line> want = new ArrayList<>();
        for (SourceLine s : f.lines()) {
          want.add(
              new PprofRaw.Line(
                  s.function(), s.file() == null ? "" : s.file(), s.line(), s.symbol()));
        }
        assertEquals(want, l.lines(), "sample " + i + " frame " + k);
      }
    }
    Map<String, String> flags = new HashMap<>();
    raw.mappings.values().forEach(m -> flags.put(m.file(), m.flags()));
    assertEquals("[FN][FL][LN][IN]", flags.get(SymbolizedStacks.SERVER));
    assertEquals("[FN]", flags.get(SymbolizedStacks.LIBC), "address only, but never symbolized");
  }
}
