package dev.fleetprof.symbols.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.testing.Toolchain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ItaniumDemangler against the real c++filt (GNU binutils) on real symbols: every defined dynamic
 * symbol of libstdc++, every symbol of C++ programs compiled here with g++ -O2, and hand-picked
 * names for what compilers seldom emit. All names go through one c++filt process; every
 * disagreement is printed (in the surefire report's output file).
 */
class ItaniumDemanglerCorpusTest {
  private static final String[] PROGRAMS = {"templates", "classes", "clones"};

  @TempDir static Path tmp;

  private static List<String> library;
  private static List<String> programs;
  private static List<String> handPicked;
  private static List<String> expected;

  @BeforeAll
  static void demangleEverythingWithCppfilt() throws Exception {
    Path nm = ExternalTool.require("nm", "binutils");
    Path gxx = ExternalTool.require("g++", "g++");
    ExternalTool.require("c++filt", "binutils");
    Path libstdcxx =
        Path.of(
                Toolchain.run(tmp, List.of(gxx.toString(), "-print-file-name=libstdc++.so.6"))
                    .trim())
            .toRealPath();
    library =
        symbols(
            Toolchain.run(
                tmp, List.of(nm.toString(), "-D", "--defined-only", libstdcxx.toString())));
    assertTrue(library.size() > 3000, libstdcxx + " has only " + library.size() + " symbols");

    Set<String> fromPrograms = new LinkedHashSet<>();
    for (String name : PROGRAMS) {
      Path source = tmp.resolve(name + ".cpp");
      Files.write(source, resource(name + ".cpp"));
      Path binary = tmp.resolve(name);
      Toolchain.run(
          tmp,
          List.of(gxx.toString(), "-O2", "-std=c++20", "-o", binary.toString(), source.toString()));
      fromPrograms.addAll(symbols(Toolchain.run(tmp, List.of(nm.toString(), binary.toString()))));
    }
    programs = new ArrayList<>(fromPrograms);

    handPicked = new ArrayList<>();
    for (String line :
        new String(resource("extra-names.txt"), StandardCharsets.UTF_8).split("\n")) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        handPicked.add(line);
      }
    }

    List<String> all = new ArrayList<>(library);
    all.addAll(programs);
    all.addAll(handPicked);
    expected = Toolchain.cppFilt(tmp.resolve("cppfilt"), all);
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in =
        ItaniumDemanglerCorpusTest.class.getResourceAsStream("/demangle/" + name)) {
      assertTrue(in != null, "test resource demangle/" + name);
      return in.readAllBytes();
    }
  }

  /** The names in nm's output (the last field of each symbol line). */
  private static List<String> symbols(String nmOutput) {
    List<String> names = new ArrayList<>();
    for (String line : nmOutput.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length >= 2) {
        names.add(fields[fields.length - 1]);
      }
    }
    return names;
  }

  /** Compares names[i] with expected[offset + i]; prints the figure and every disagreement. */
  private static int agreements(String what, List<String> names, int offset) {
    int agree = 0;
    StringBuilder differences = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      String want = expected.get(offset + i);
      String got = ItaniumDemangler.demangle(names.get(i));
      if (want.equals(got)) {
        agree++;
      } else {
        differences
            .append("  name:     ")
            .append(names.get(i))
            .append('\n')
            .append("  c++filt:  ")
            .append(want)
            .append('\n')
            .append("  demangle: ")
            .append(got)
            .append('\n');
      }
    }
    System.out.println(what + ": " + agree + " of " + names.size() + " agree");
    System.out.print(differences);
    return agree;
  }

  @Test
  void libstdcxxDynamicSymbols() {
    int agree = agreements("libstdc++ dynamic symbols", library, 0);
    assertTrue(
        agree * 1000L >= library.size() * 999L,
        agree + " of " + library.size() + " is below 99.9%");
  }

  @Test
  void symbolsOfProgramsCompiledWithGxxO2() {
    int agree = agreements("symbols of g++ -O2 programs", programs, library.size());
    assertEquals(programs.size(), agree, "disagreements are printed above");
    // The programs are there to cover these: make sure they still do.
    String all = String.join("\n", programs);
    for (String feature :
        new String[] {
          ".isra.",
          ".constprop.",
          ".part.",
          ".cold",
          "_ZTh",
          "_ZTv",
          "_ZTc",
          "_ZTT",
          "_ZTC",
          "_ZTH",
          "_ZGV",
          "_ZGR",
          "B5cxx11",
          "12_GLOBAL__N_1",
          "UlT_T0_E",
          "UlDpT_E",
          "_ZDC",
          "DTcl",
          "cv"
        }) {
      assertTrue(all.contains(feature), "no symbol with " + feature);
    }
  }

  @Test
  void handPickedNames() {
    int agree = agreements("hand-picked names", handPicked, library.size() + programs.size());
    assertEquals(handPicked.size(), agree, "disagreements are printed above");
  }

  /** Not an assertion: names per second over the corpus, single-threaded, after warming up. */
  @Test
  void speed() {
    List<String> corpus = new ArrayList<>(library);
    corpus.addAll(programs);
    long chars = 0;
    double best = 0;
    int rounds = 40;
    for (int round = 0; round < rounds; round++) {
      long start = System.nanoTime();
      for (String name : corpus) {
        chars += ItaniumDemangler.demangle(name).length();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      best = Math.max(best, corpus.size() / seconds);
    }
    System.out.printf(
        "speed: %.0f names/s (best of %d rounds over %d names; %d chars out)%n",
        best, rounds, corpus.size(), chars);
  }
}
