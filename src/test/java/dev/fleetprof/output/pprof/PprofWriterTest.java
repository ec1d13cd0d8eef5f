package dev.fleetprof.output.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.perftools.profiles.ProfileProto.Location;
import com.google.perftools.profiles.ProfileProto.Mapping;
import com.google.perftools.profiles.ProfileProto.Profile;
import com.google.perftools.profiles.ProfileProto.Sample;
import com.google.perftools.profiles.ProfileProto.ValueType;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The written profile.proto, read back with the same generated classes: no external tool needed.
 */
class PprofWriterTest {
  private static final ValueMeaning CPU = ValueMeaning.forKind("sample", 1000L, "microseconds");

  static Profile parse(byte[] gz) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return Profile.parseFrom(in);
    }
  }

  private static byte[] write(ValueMeaning meaning, List<WeightedStack> stacks) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new PprofWriter(bytes, meaning).comment("made by a test").writeAll(stacks);
    return bytes.toByteArray();
  }

  /** Each sample's frames as the profile says them: (mapping file or null, address), leaf first. */
  static List<List<Frame>> frames(Profile p) {
    Map<Long, Location> locations = new HashMap<>();
    p.getLocationList().forEach(l -> locations.put(l.getId(), l));
    Map<Long, Mapping> mappings = new HashMap<>();
    p.getMappingList().forEach(m -> mappings.put(m.getId(), m));
    List<List<Frame>> out = new ArrayList<>();
    for (Sample s : p.getSampleList()) {
      List<Frame> chain = new ArrayList<>();
      for (long id : s.getLocationIdList()) {
        Location l = locations.get(id);
        Mapping m = mappings.get(l.getMappingId());
        chain.add(
            new Frame(m == null ? null : p.getStringTable((int) m.getFilename()), l.getAddress()));
      }
      out.add(chain);
    }
    return out;
  }

  /**
   * What pprof should hold for a stack: every offset as given (the frames already follow pprof's
   * convention for caller frames), in the module's mapping.
   */
  static List<Frame> expectedLocations(List<Frame> leafFirst) {
    List<Frame> out = new ArrayList<>();
    for (Frame f : leafFirst) {
      out.add(new Frame(f.displayModule(), f.offset()));
    }
    return out;
  }

  private static String type(Profile p, ValueType t) {
    return p.getStringTable((int) t.getType()) + "/" + p.getStringTable((int) t.getUnit());
  }

  @Test
  void hostileStacksRoundTripAcrossManyBatches() throws IOException {
    String[] modules = {
      "/usr/bin/fleet-server",
      "/lib/libc.so.6",
      "",
      null,
      "/opt/a;b c/lib\n.so",
      "/opt/\u043c\u043e\u0434\u0443\u043b\u044c.so"
    };
    SplittableRandom rnd = new SplittableRandom(7);
    List<WeightedStack> stacks = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) { // more samples than one batch: checks the streamed merge
      List<Frame> frames = new ArrayList<>();
      int depth = rnd.nextInt(0, 12);
      for (int d = 0; d < depth; d++) {
        frames.add(
            new Frame(
                modules[rnd.nextInt(modules.length)],
                rnd.nextInt(10) == 0 ? -rnd.nextLong(1, 1L << 40) : rnd.nextLong(0, 1 << 20)));
      }
      stacks.add(new WeightedStack(frames, rnd.nextLong(-1_000_000, 1_000_000)));
    }
    Profile p = parse(write(CPU, stacks));

    assertEquals("", p.getStringTable(0));
    assertEquals(stacks.size(), p.getSampleCount());
    List<List<Frame>> chains = frames(p);
    for (int i = 0; i < stacks.size(); i++) {
      WeightedStack s = stacks.get(i);
      Sample got = p.getSample(i);
      assertEquals(List.of(s.value(), s.value() * 1_000_000), got.getValueList());
      assertEquals(expectedLocations(s.frames()), chains.get(i), "sample " + i);
    }
    assertEquals(
        List.of("made by a test"),
        p.getCommentList().stream().map(c -> p.getStringTable(c.intValue())).toList());
    for (Mapping m : p.getMappingList()) {
      assertEquals(0, m.getMemoryStart());
      assertEquals(0, m.getFileOffset());
      assertTrue(m.getHasFunctions(), "marked symbolized so pprof does not look for the files");
    }
    for (Location l : p.getLocationList()) {
      if (l.getMappingId() != 0) {
        Mapping m = p.getMapping((int) l.getMappingId() - 1);
        assertTrue(
            Long.compareUnsigned(l.getAddress(), m.getMemoryLimit()) < 0
                || m.getMemoryLimit() == -1,
            "address inside its mapping");
      }
    }
    assertEquals(modules.length - 1, p.getMappingCount(), "one mapping per module, none for null");
  }

  @Test
  void sampleTypesFollowPprofsLegacyCpuConversionAndDocumentedOthers() throws IOException {
    List<WeightedStack> one = List.of(new WeightedStack(List.of(new Frame("/bin/x", 16)), 3));

    Profile cpu = parse(write(CPU, one));
    assertEquals(
        List.of("samples/count", "cpu/nanoseconds"),
        cpu.getSampleTypeList().stream().map(t -> type(cpu, t)).toList());
    assertEquals("cpu/nanoseconds", type(cpu, cpu.getPeriodType()));
    assertEquals(1_000_000, cpu.getPeriod());
    assertEquals(List.of(3L, 3_000_000L), cpu.getSample(0).getValueList());

    Profile dcpi = parse(write(ValueMeaning.forKind("sample", 62000L, "cycles"), one));
    assertEquals(
        List.of("samples/count", "cycles/count"),
        dcpi.getSampleTypeList().stream().map(t -> type(dcpi, t)).toList());
    assertEquals("cycles/count", type(dcpi, dcpi.getPeriodType()));
    assertEquals(62000, dcpi.getPeriod());
    assertEquals(List.of(3L, 186_000L), dcpi.getSample(0).getValueList());

    Profile arcs = parse(write(ValueMeaning.forKind("arc", null, null), one));
    assertEquals(
        List.of("calls/count"), arcs.getSampleTypeList().stream().map(t -> type(arcs, t)).toList());
    assertEquals(0, arcs.getPeriod());
    assertEquals(List.of(3L), arcs.getSample(0).getValueList());
  }

  @Test
  void theHeaviestExecutableIsMappingZeroThenModulesByWeight() throws IOException {
    List<WeightedStack> stacks =
        List.of(
            new WeightedStack(List.of(new Frame("/lib/liba.so", 1), new Frame("/bin/main", 2)), 5),
            new WeightedStack(
                List.of(new Frame("/lib/libb.so.6", 1), new Frame("/bin/main", 9)), 7),
            new WeightedStack(List.of(new Frame("/lib/libb.so.6", 3)), 20),
            new WeightedStack(List.of(new Frame("[vdso]", 3), new Frame("/bin/tool", 1)), 2));
    Profile p = parse(write(CPU, stacks));
    List<String> files =
        p.getMappingList().stream().map(m -> p.getStringTable((int) m.getFilename())).toList();
    assertEquals(
        List.of("/bin/main", "/bin/tool", "/lib/libb.so.6", "/lib/liba.so", "[vdso]"), files);
    assertEquals(10, p.getMapping(0).getMemoryLimit(), "one past the largest address, caller 9");
  }

  @Test
  void callerOffsetsPassThroughUnchanged() throws IOException {
    // Caller frames already hold return address - 1: nothing is subtracted again.
    List<Frame> stack =
        List.of(
            new Frame("/bin/x", 0x1000),
            new Frame("/bin/x", 0x2005),
            new Frame("/lib/liby.so", 0x30),
            new Frame(null, 0x7fff0001));
    Profile p = parse(write(CPU, List.of(new WeightedStack(stack, 1))));
    assertEquals(
        List.of(
            List.of(
                new Frame("/bin/x", 0x1000),
                new Frame("/bin/x", 0x2005),
                new Frame("/lib/liby.so", 0x30),
                new Frame(null, 0x7fff0001))),
        frames(p));
  }

  @Test
  void symbolizedLocationsGetLinesAndDeduplicatedFunctions() throws IOException {
    SourceLine inner = new SourceLine("f(int)", "_Z1fi", "/src/f.h", 3);
    SourceLine outer = new SourceLine("g", "g", "/src/g.c", 40);
    List<WeightedStack> stacks =
        List.of(
            new WeightedStack(
                List.of(
                    new Frame("/bin/main", 0x10, List.of(inner, outer)),
                    new Frame(
                        "/bin/main", 0x20, List.of(new SourceLine("g", "g", "/src/g.c", 44)))),
                2),
            new WeightedStack(
                List.of(
                    new Frame(
                        "/lib/libnolines.so", 0x30, List.of(new SourceLine("h", "h", null, 0))),
                    new Frame("/lib/libgone.so", 0x40)),
                3));
    Profile p = parse(write(CPU, stacks));

    Map<Long, String> functions = new HashMap<>();
    for (com.google.perftools.profiles.ProfileProto.Function f : p.getFunctionList()) {
      functions.put(
          f.getId(),
          p.getStringTable((int) f.getName())
              + "|"
              + p.getStringTable((int) f.getSystemName())
              + "|"
              + p.getStringTable((int) f.getFilename())
              + "|"
              + f.getStartLine());
    }
    assertEquals(
        Set.of("f(int)|_Z1fi|/src/f.h|0", "g|g|/src/g.c|0", "h|h||0"),
        Set.copyOf(functions.values()),
        "one Function per (name, system name, file)");
    assertEquals(3, functions.size());
    Map<Long, List<String>> lines = new HashMap<>();
    for (Location l : p.getLocationList()) {
      lines.put(
          l.getAddress(),
          l.getLineList().stream()
              .map(x -> functions.get(x.getFunctionId()).split("\\|")[0] + ":" + x.getLine())
              .toList());
    }
    assertEquals(
        Map.of(
            0x10L,
            List.of("f(int):3", "g:40"),
            0x20L,
            List.of("g:44"),
            0x30L,
            List.of("h:0"),
            0x40L,
            List.of()),
        lines,
        "innermost first, as the chain");

    Map<String, String> flags = new HashMap<>();
    for (Mapping m : p.getMappingList()) {
      flags.put(
          p.getStringTable((int) m.getFilename()),
          (m.getHasFunctions() ? "FN" : "")
              + (m.getHasFilenames() ? "FL" : "")
              + (m.getHasLineNumbers() ? "LN" : "")
              + (m.getHasInlineFrames() ? "IN" : ""));
    }
    assertEquals(
        Map.of("/bin/main", "FNFLLNIN", "/lib/libnolines.so", "FNIN", "/lib/libgone.so", "FN"),
        flags);
  }

  /**
   * A boundary-only name (call-frame information, no symbol) is written as its address in its
   * mapping, with no Line and no Function; a name from a symbol beside it keeps its Function. A
   * mapping whose only names are guesses has no inline frames.
   */
  @Test
  void aBoundaryOnlyNameIsWrittenAsAnAddress() throws IOException {
    SourceLine guess = new SourceLine("libmix.so+0x1130", "libmix.so+0x1130", null, 0);
    Frame guessed = new Frame("/lib/libmix.so", 0x1135, List.of(guess), true);
    Frame alone = new Frame("/lib/libguess.so", 0x2005, List.of(guess), true);
    Frame named =
        new Frame(
            "/lib/libmix.so",
            0x1205,
            List.of(new SourceLine("mix_exported", "mix_exported", null, 0)));
    Profile p =
        parse(
            write(
                CPU,
                List.of(
                    new WeightedStack(List.of(guessed, named), 3),
                    new WeightedStack(List.of(alone), 2))));
    Map<Long, Location> byAddress = new HashMap<>();
    p.getLocationList().forEach(l -> byAddress.put(l.getAddress(), l));
    assertEquals(0, byAddress.get(0x1135L).getLineCount());
    assertEquals(0, byAddress.get(0x2005L).getLineCount());
    assertTrue(byAddress.get(0x1135L).getMappingId() > 0);
    assertEquals(1, byAddress.get(0x1205L).getLineCount());
    List<String> functions = new ArrayList<>();
    p.getFunctionList().forEach(f -> functions.add(p.getStringTable((int) f.getName())));
    assertEquals(List.of("mix_exported"), functions);
    Map<String, Boolean> inline = new HashMap<>();
    for (Mapping m : p.getMappingList()) {
      inline.put(p.getStringTable((int) m.getFilename()), m.getHasInlineFrames());
    }
    assertEquals(Map.of("/lib/libmix.so", true, "/lib/libguess.so", false), inline);
  }

  @Test
  void valuesThatDoNotFitFailInsteadOfWrapping() throws IOException {
    BigDecimal tooBig = new BigDecimal("9223372036854775808"); // Long.MAX_VALUE + 1
    ArithmeticException e =
        assertThrows(ArithmeticException.class, () -> WeightedStack.of(List.of(), tooBig));
    assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
    assertEquals(
        Long.MAX_VALUE, WeightedStack.of(List.of(), new BigDecimal(Long.MAX_VALUE)).value());

    // Fits as a count, but not once multiplied into nanoseconds.
    PprofWriter w = new PprofWriter(new ByteArrayOutputStream(), CPU);
    ArithmeticException product =
        assertThrows(ArithmeticException.class, () -> w.add(List.of(), Long.MAX_VALUE / 1000));
    assertTrue(product.getMessage().contains("does not fit"), product.getMessage());
  }
}
