package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a binary with a lot of DWARF (generated templated C++, -O2 -g; or the binary named by {@code
 * -Dfleetprof.dwarf.largeBinary=PATH}), the symbolizer's inline chains are {@code addr2line -i}'s
 * at addresses spread over the whole binary. How fast it builds and looks up, beside addr2line and
 * llvm-symbolizer, is bench/run's to measure (its symbolizer rows).
 */
class DwarfSymbolizerLargeBinaryTest {
  @TempDir Path dir;

  private Path generatedBinary(int types) throws Exception {
    StringBuilder src =
        new StringBuilder(
            "#include <algorithm>\n#include <map>\n"
                + "#include <string>\n#include <vector>\n#include <numeric>\n#include <cstdio>\n\n");
    for (int i = 0; i < types; i++) {
      src.append(
          ("""
          struct T%1$d {
            int a; long b; std::string s;
            bool operator<(const T%1$d &o) const { return a < o.a || (a == o.a && b < o.b); }
          };
          __attribute__((noinline)) long work%1$d(int n) {
            std::vector<T%1$d> v;
            for (int k = 0; k < n; k++)
              v.push_back(T%1$d{(k * %2$d) %% 97, (long) k, std::to_string(k)});
            std::sort(v.begin(), v.end());
            std::map<int, T%1$d> m;
            for (const auto &t : v) m[t.a] = t;
            long acc = std::accumulate(v.begin(), v.end(), 0L,
                [](long x, const T%1$d &t) { return x + t.b + (long) t.s.size(); });
            auto it = std::lower_bound(v.begin(), v.end(), T%1$d{n / 2, 0, ""});
            return acc + (long) m.size() + (it == v.end() ? 0 : it->b);
          }
          """)
              .formatted(i, i + 7));
    }
    src.append("int main(int argc, char **argv) {\n  long t = 0;\n");
    for (int i = 0; i < types; i++) {
      src.append("  t += work").append(i).append("(argc * ").append(i + 2).append(");\n");
    }
    src.append("  std::printf(\"%ld\\n\", t);\n  return argv[0] == nullptr;\n}\n");
    Path file = dir.resolve("big.cpp");
    Files.writeString(file, src);
    Path bin = dir.resolve("big");
    Toolchain.run(dir, List.of("g++", "-O2", "-g", file.toString(), "-o", bin.toString()));
    return bin;
  }

  @Test
  void inlineChainsAgreeWithAddr2lineAcrossALargeBinary() throws Exception {
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("g++", "g++");
    String given = System.getProperty("fleetprof.dwarf.largeBinary");
    Path bin = given != null ? Path.of(given) : generatedBinary(30);
    DwarfSections sections = Toolchain.dwarfSections(dir, bin);
    FunctionSymbols symbols = DwarfSymbolizerAddr2lineTest.functionSymbols(bin);
    DwarfSymbolizer sym = DwarfSymbolizer.build(sections, symbols);
    List<Long> starts = Toolchain.instructionAddresses(dir, bin, 0);

    List<Long> sample = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      sample.add(starts.get((int) ((long) i * starts.size() / 3000)));
    }
    List<Toolchain.Answer> want = Toolchain.addr2lineChains(dir, bin, sample);
    int agree = 0;
    for (int i = 0; i < sample.size(); i++) {
      List<SourceLine> got =
          DwarfSymbolizerAddr2lineTest.addr2lineChain(sym, symbols, sample.get(i));
      agree += got.equals(want.get(i).lines()) ? 1 : 0;
    }
    System.out.printf("sample: %d of %d addresses agree with addr2line%n", agree, sample.size());
    assertEquals(sample.size(), agree);
  }
}
