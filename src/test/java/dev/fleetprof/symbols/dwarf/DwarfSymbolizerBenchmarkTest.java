package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Build time and lookups per second on a binary with a lot of DWARF (generated templated C++, -O2
 * -g; or the binary named by {@code -Dfleetprof.dwarf.benchBinary=PATH}), next to {@code addr2line
 * -i} and {@code llvm-symbolizer --inlining} on the same addresses in the same run. Prints the
 * figures; asserts only that a sample agrees with addr2line.
 */
class DwarfSymbolizerBenchmarkTest {
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
  void buildAndLookupSpeed() throws Exception {
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("g++", "g++");
    String given = System.getProperty("fleetprof.dwarf.benchBinary");
    Path bin = given != null ? Path.of(given) : generatedBinary(30);
    DwarfSections sections = Toolchain.dwarfSections(dir, bin);
    FunctionSymbols symbols = DwarfSymbolizerAddr2lineTest.functionSymbols(bin);
    long infoSize = sections.section(".debug_info").remaining();

    Runtime rt = Runtime.getRuntime();
    System.gc();
    long heapBefore = rt.totalMemory() - rt.freeMemory();
    long t0 = System.nanoTime();
    DwarfSymbolizer sym = DwarfSymbolizer.build(sections, symbols);
    long buildNanos = System.nanoTime() - t0;
    t0 = System.nanoTime();
    DwarfSymbolizer.build(sections, symbols);
    long rebuildNanos = System.nanoTime() - t0;

    List<Long> starts = Toolchain.instructionAddresses(dir, bin, 0);
    Random rnd = new Random(7);
    int n = 100_000;
    long[] addrs = new long[n];
    for (int i = 0; i < n; i++) {
      addrs[i] = starts.get(rnd.nextInt(starts.size()));
    }
    // First pass decodes line tables; the second is the steady state.
    long t1 = System.nanoTime();
    long frames = 0;
    for (long a : addrs) {
      frames += sym.lookup(a).size();
    }
    long coldNanos = System.nanoTime() - t1;
    System.gc();
    long heapAfter = rt.totalMemory() - rt.freeMemory();
    t1 = System.nanoTime();
    for (long a : addrs) {
      frames += sym.lookup(a).size();
    }
    long warmNanos = System.nanoTime() - t1;
    int threads = 2;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long t2 = System.nanoTime();
    List<Future<Integer>> parts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int from = t * n / threads;
      int to = (t + 1) * n / threads;
      parts.add(
          pool.submit(
              () -> {
                int c = 0;
                for (int i = from; i < to; i++) {
                  c += sym.lookup(addrs[i]).size();
                }
                return c;
              }));
    }
    for (Future<Integer> f : parts) {
      f.get();
    }
    long parallelNanos = System.nanoTime() - t2;
    pool.shutdown();

    Path list = Toolchain.addressFile(dir, Arrays.stream(addrs).boxed().toList());
    double a2l = timeTool("addr2line -a -f -i -e " + Toolchain.q(bin) + " < " + Toolchain.q(list));
    boolean llvm = Toolchain.onPath("llvm-symbolizer");
    double llvmSeconds =
        llvm
            ? timeTool(
                "llvm-symbolizer --inlining --obj=" + Toolchain.q(bin) + " < " + Toolchain.q(list))
            : Double.NaN;

    System.out.printf(
        "binary %s: .debug_info %d bytes, %d units, %d functions indexed%n",
        bin, infoSize, sym.unitCount(), sym.functionCount());
    System.out.printf(
        "build: %.0f ms (again: %.0f ms); heap after build and 100k lookups:" + " ~%d MB%n",
        buildNanos / 1e6, rebuildNanos / 1e6, (heapAfter - heapBefore) >> 20);
    System.out.printf(
        "%d lookups (%d instruction addresses, %.2f frames each): first pass %.2f s"
            + " (%.0f/s, decodes line tables), steady %.2f s (%.0f/s), %d threads %.2f s (%.0f/s)%n",
        n,
        starts.size(),
        frames / 2.0 / n,
        coldNanos / 1e9,
        n / (coldNanos / 1e9),
        warmNanos / 1e9,
        n / (warmNanos / 1e9),
        threads,
        parallelNanos / 1e9,
        n / (parallelNanos / 1e9));
    System.out.printf(
        "addr2line -a -f -i: %.2f s (%.0f/s); llvm-symbolizer --inlining: %s%n",
        a2l,
        n / a2l,
        llvm ? String.format("%.2f s (%.0f/s)", llvmSeconds, n / llvmSeconds) : "not installed");

    // The figures are only worth printing if the answers are addr2line's.
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

  private double timeTool(String shell) throws Exception {
    long t = System.nanoTime();
    Toolchain.sh(dir, shell + " > /dev/null");
    return (System.nanoTime() - t) / 1e9;
  }
}
