package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The symbolization tests' reference must not depend on which other addresses a test happens to
 * ask: a profile's samples differ from run to run.
 */
class Addr2lineTest {
  @TempDir Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
    dev.fleetprof.output.ExternalTool.require("g++", "g++");
  }

  /**
   * A template clone DWARF names without a linkage name ({@code .constprop.0}), with inlined code:
   * each of its addresses asked alone gets the chain it gets among all of them. Asked alone,
   * addr2line names the clone of an address where it is only the inlined-into frame by its DWARF
   * name ({@code __insertion_sort<...>}); among the others, by its ELF symbol.
   */
  @Test
  void aCloneIsNamedTheSameWhateverElseIsAsked() throws Exception {
    Path src = Path.of("src/test/resources/symbols/cxxwork.cpp").toAbsolutePath();
    Path bin = dir.resolve("cxxwork");
    Toolchain.run(
        dir, List.of("g++", "-O2", "-g", "-no-pie", "-o", bin.toString(), src.toString()));
    List<Long> instructions = Toolchain.instructionAddresses(dir, bin, 0);
    List<Long> clone = new ArrayList<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, bin)) {
      if (s.name().contains(".constprop.") && "tT".indexOf(s.type()) >= 0) {
        for (long a : instructions) {
          if (a >= s.value() && a < s.value() + s.size()) {
            clone.add(a);
          }
        }
      }
    }
    assertFalse(clone.isEmpty(), "g++ -O2 made a .constprop clone of cxxwork.cpp's sort");
    Map<Long, List<SourceLine>> together = Addr2line.chains(bin, clone, dir);
    int outerOnly = 0;
    int i = 0;
    for (long a : clone) {
      // Every address with inlined frames (where the names differed), one in eight of the rest:
      // an addr2line process per address costs about 0.1 s.
      List<SourceLine> chain = together.get(a);
      if (chain != null && chain.size() < 2 && i++ % 8 != 0) {
        continue;
      }
      List<SourceLine> alone = Addr2line.chains(bin, List.of(a), dir).get(a);
      assertEquals(together.get(a), alone, "0x" + Long.toHexString(a));
      outerOnly += alone.size() > 1 ? 1 : 0;
    }
    assertTrue(outerOnly > 0, "some addresses have the clone as an inlined-into frame");
  }
}
