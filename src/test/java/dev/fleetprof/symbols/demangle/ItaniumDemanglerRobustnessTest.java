package dev.fleetprof.symbols.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and malformed input: ItaniumDemangler never throws, answers every name quickly, gives up
 * (returning the input) on names built to blow up, returns what is not a mangled name unchanged
 * exactly as c++filt does, and can be called from many threads at once.
 */
class ItaniumDemanglerRobustnessTest {
  /** A generous bound for one name on a loaded machine; a demangling takes microseconds. */
  private static final long MAX_NANOS_PER_NAME = 1_000_000_000L;

  /** Real names of many shapes, the material the mutations start from. */
  private static final String[] SEEDS = {
    "_ZNSt6vectorIiSaIiEE9push_backERKi",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1IS3_EEPKcRKS3_.isra.0",
    "_ZNSt8_Rb_treeINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt4pairIKS5_St6vectorIiSa"
        + "IiEEESt10_Select1stISB_ESt4lessIS5_ESaISB_EE8_M_eraseEPSt13_Rb_tree_nodeISB_E",
    "_ZZ11use_lambdasiENKUlRAT0__T_E2_clIiLi3EEEDaS1_.constprop.0.isra.0",
    "_ZZ18lambda_in_templateIdET_S0_ENKUlS0_E0_clIiEEDaS0_",
    "_ZN14generic_globalMUlT_T0_E_4_FUNIilEEDTcldtdeLKPKS1_0EonclIS_S0_EscOS_fp_scOS0_fp0_EES_S0_",
    "_ZN15variadic_globalMUlDpT_E_4_FUNIJiiiEEEDTcldtdeLKPKS1_0EonclIJS0_EEspscOS_fp_EES0_",
    "_ZNK7WrapperIlE5applyIZ4mainEUllE_EEDTclfp_dtdefpT5valueEET_",
    "_Z13only_integralIiENSt9enable_ifIXsrSt11is_integralIT_E5valueES2_E4typeES2_",
    "_Z17template_templateISt6vectorJiSaIiEEEmRKT_IJDpT0_EE",
    "_Z8literalsILc97ELb1ELln5ELm7EXadL_Z10global_intEEEiv",
    "_ZTcv0_n40_v0_n48_NK6shapes7Diamond5cloneEv",
    "_ZThn32_NK6shapes7Diamond4nameB5cxx11Ev",
    "_ZTCN6shapes7DiamondE16_NS_5RightE",
    "_ZGRZ1fvE1x_",
    "_ZGVZ13local_classesiE6cached",
    "_ZN12_GLOBAL__N_16hiddenEi",
    "_ZN5outer5inner3BoxIiLi3EEcvPiEv",
    "_ZNK5outer5inner3BoxIiLi3EEcvSt6vectorIT_SaIS4_EEIlEEv",
    "_Z10overloadedM5PointKFivRERKS_",
    "_Z10overloadedPA4_A5_i",
    "_Z1fPFPFivEvE",
    "_ZZ1fvENKUlTpTyDpT_E_clIJicEEEDaS1_",
    "_Z1fIJiiEEDTfLplLi0Efp_EDpT_",
    "_Z1fIiEDTtl1AdXLi0ELi2ELi1EEET_",
    "_ZDC7bound_a7bound_bE",
    "_ZW3fooW3bar1fv",
    "_ZN4llvm10checkedAddIlEENSt9enable_ifIXsr3std9is_signedIT_EE5valueENS_8OptionalIS2_EEE4ty"
        + "peES2_S2_",
    "_ZN71_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0123456789"
        + "abcdefE",
    "_RNvXCs1234_7mycrateNtB2_1SNtNtCs9RTyVuZ7YSK_4core3fmt5Debug3fmt",
    "_RINvMNtCscoScM8QT1vH_4core6optionINtB3_6OptionRINtNtB5_4cell4CellhEE3zipBI_ECsjtDiMkjlK9P_"
        + "11miniz_oxide",
  };

  private static final String ALPHABET =
      "_ZNSEIJLXTDPRKVOCFMAUBWabcdefghijlmnostvwxyz0123456789_.$";
  private static final String[] TOKENS = {
    "S_", "S0_", "T_", "T0_", "IiE", "Dp", "sp", "fp_", "Li1E", "DTfp_E", "Ul", "Ut_", "Z", "E",
    "N", "St", "Sa", "B5cxx11", "C1", "D0", "cv", "onpl", "srT_", "B_", "Nv", "C3foo", "KhaE",
    "TyT_"
  };

  @TempDir Path tmp;

  /** Names made by changing the seeds a little: deleted, inserted, replaced, cut, repeated. */
  private static List<String> mutations(int count, long seed) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>(count);
    for (int k = 0; k < count; k++) {
      StringBuilder s = new StringBuilder(SEEDS[r.nextInt(SEEDS.length)]);
      int changes = 1 + r.nextInt(3);
      for (int j = 0; j < changes && s.length() > 2; j++) {
        int p = 2 + r.nextInt(s.length() - 2);
        switch (r.nextInt(6)) {
          case 0:
            s.deleteCharAt(p);
            break;
          case 1:
            s.insert(p, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
            break;
          case 2:
            s.setCharAt(p, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
            break;
          case 3:
            s.setLength(p);
            break;
          case 4:
            {
              int q = p + r.nextInt(Math.min(8, s.length() - p) + 1);
              s.insert(q, s.substring(p, q));
              break;
            }
          default:
            s.insert(p, TOKENS[r.nextInt(TOKENS.length)]);
            break;
        }
      }
      out.add(s.toString());
    }
    return out;
  }

  /** Random strings over the characters mangled names use, behind a _Z or an _R. */
  private static List<String> randomNames(int count, long seed) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>(count);
    for (int k = 0; k < count; k++) {
      StringBuilder s = new StringBuilder(r.nextInt(8) == 0 ? "_R" : "_Z");
      int length = r.nextInt(r.nextBoolean() ? 16 : 200);
      for (int i = 0; i < length; i++) {
        s.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
      }
      out.add(s.toString());
    }
    return out;
  }

  /** Demangles each name, timing each; returns how many came back changed. */
  private static int demangleAll(List<String> names, String what) {
    long worst = 0;
    String worstName = null;
    int changed = 0;
    long start = System.nanoTime();
    for (String name : names) {
      long t0 = System.nanoTime();
      String result = ItaniumDemangler.demangle(name);
      long took = System.nanoTime() - t0;
      assertTrue(result != null, name);
      if (!result.equals(name)) {
        changed++;
      }
      if (took > worst) {
        worst = took;
        worstName = name;
      }
    }
    System.out.printf(
        "%s: %d names in %.0f ms, %d demangled, slowest %.3f ms (%s)%n",
        what, names.size(), (System.nanoTime() - start) / 1e6, changed, worst / 1e6, worstName);
    assertTrue(worst < MAX_NANOS_PER_NAME, worstName + " took " + worst / 1e6 + " ms");
    return changed;
  }

  @Test
  void randomAndMutatedNamesNeitherThrowNorTakeLong() {
    demangleAll(randomNames(100_000, 20261121L), "random names");
    int changed = demangleAll(mutations(200_000, 20261122L), "mutated names");
    assertTrue(changed > 10_000, "the mutations should still be demangled often: " + changed);
  }

  @Test
  void mutatedNamesAgreeWithCppfilt() throws Exception {
    List<String> names = mutations(50_000, 20261123L);
    List<String> expected = Toolchain.cppFilt(tmp, names);
    int agree = 0;
    StringBuilder differences = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      String got = ItaniumDemangler.demangle(names.get(i));
      if (expected.get(i).equals(got)) {
        agree++;
      } else {
        differences
            .append("  name: ")
            .append(names.get(i))
            .append("\n  c++filt:  ")
            .append(expected.get(i))
            .append("\n  demangle: ")
            .append(got)
            .append('\n');
      }
    }
    System.out.println("mutated names: " + agree + " of " + names.size() + " agree");
    System.out.print(differences);
    assertEquals(names.size(), agree, "disagreements are printed above");
  }

  /** Asserts the name comes back unchanged, and quickly. */
  private static void givesUpQuickly(String name, String what) {
    long t0 = System.nanoTime();
    String result = ItaniumDemangler.demangle(name);
    long took = System.nanoTime() - t0;
    System.out.printf("%s (%d chars): %.3f ms%n", what, name.length(), took / 1e6);
    assertEquals(name, result, what);
    assertTrue(took < MAX_NANOS_PER_NAME, what + " took " + took / 1e6 + " ms");
  }

  /** A substitution's sequence id: S_ is the first, S0_ the second, S1_ ... S10_ ... */
  private static String sub(int index) {
    return index == 0 ? "S_" : "S" + Integer.toString(index - 1, 36).toUpperCase() + "_";
  }

  /**
   * f&lt;A, B&lt;A, A&gt;, B&lt;B&lt;A, A&gt;, B&lt;A, A&gt;&gt; ...&gt;: each level prints its
   * predecessor twice, so the output doubles with every dozen characters of input.
   */
  static String substitutionFanOut(int levels) {
    StringBuilder s = new StringBuilder("_Z1fI1A"); // f is S_, A is S0_
    int previous = 1;
    for (int level = 1; level <= levels; level++) {
      // B becomes a candidate (previous + 1), then B<...> (previous + 2).
      s.append("1BI").append(sub(previous)).append(sub(previous)).append('E');
      previous += 2;
    }
    return s.append("Evv").toString();
  }

  /** Rust v0: each tuple holds the previous one and a back reference to it. */
  static String rustBackrefFanOut(int levels) {
    String head = "INvC1a1f";
    StringBuilder s = new StringBuilder("_R").append(head).append("T".repeat(levels)).append('u');
    int innermost = head.length() + levels; // the offset of the 'u' after _R
    for (int k = 1; k <= levels; k++) {
      s.append('B').append(base62(innermost - k + 1)).append('E');
    }
    return s.append('E').toString();
  }

  private static String base62(long v) {
    if (v == 0) {
      return "_";
    }
    String digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    StringBuilder b = new StringBuilder();
    for (long x = v - 1; ; x /= 62) {
      b.insert(0, digits.charAt((int) (x % 62)));
      if (x < 62) {
        break;
      }
    }
    return b.append('_').toString();
  }

  @Test
  void hostileNamesGiveUpQuickly() {
    givesUpQuickly("_Z1f" + "P".repeat(100_000) + "i", "100k nested pointers");
    givesUpQuickly(
        "_Z1fI" + "1AI".repeat(100_000) + "iE".repeat(100_001) + "v", "100k nested templates");
    givesUpQuickly("_ZN" + "1a".repeat(100_000) + "Ev", "100k nested names");
    givesUpQuickly("_Z1f" + "FvPFvRA1_".repeat(20_000) + "iEEv", "nested function types");
    givesUpQuickly("_RNv" + "Nv".repeat(100_000) + "C1a1b", "100k nested Rust paths");

    String fanOut = substitutionFanOut(80);
    assertTrue(fanOut.length() <= 1024, "c++filt's length limit: " + fanOut.length());
    givesUpQuickly(fanOut, "substitution fan-out, 2^80 long printed");
    // The same substitutions under a pack expansion with no pack: searched for a pack first.
    String packSearch = fanOut.substring(0, fanOut.length() - 2) + "vDp" + sub(161);
    givesUpQuickly(packSearch, "pack search through a 2^80 fan-out");
    // Parameters of f's last template parameter's type (T79_ is its 81st: the 2^80 one).
    givesUpQuickly(
        fanOut.substring(0, fanOut.length() - 1) + "T79_".repeat(20),
        "template parameters standing for a fan-out");
    givesUpQuickly(rustBackrefFanOut(60), "Rust back references, 2^60 long printed");
    // c++filt 2.40 crashes on this one (sZ in a lambda's signature): unchanged here.
    givesUpQuickly("_ZN1aUlDTsZT_EE_E", "sizeof... in a lambda's signature");
  }

  @Test
  void smallFanOutsStillPrintAsCppfilt() throws Exception {
    // The hostile shapes above, small enough for c++filt to print: the same code paths agree.
    // Deep nesting within c++filt's 1024 characters reaches its printing depth limit too.
    List<String> names =
        List.of(
            substitutionFanOut(1),
            substitutionFanOut(4),
            substitutionFanOut(8),
            rustBackrefFanOut(1),
            rustBackrefFanOut(6),
            "_Z1f" + "P".repeat(1019) + "i",
            "_Z1f" + "P".repeat(1020) + "i",
            "_Z" + "1017" + "a".repeat(1017) + "v",
            "_Z" + "1018" + "a".repeat(1018) + "v",
            "_Z1f" + "PFv".repeat(100) + "i" + "E".repeat(100),
            "_Z1f" + "PFv".repeat(250) + "i" + "E".repeat(250),
            "_Z1fI" + "1AI".repeat(150) + "i" + "E".repeat(151) + "vv",
            "_Z1fI" + "1AI".repeat(300) + "i" + "E".repeat(301) + "vv",
            "_ZN" + "1a".repeat(500) + "Ev",
            "_Z1f" + "A1_".repeat(300) + "i",
            "_R" + "Nv".repeat(300) + "C1a" + "1b".repeat(300));
    List<String> expected = Toolchain.cppFilt(tmp, names);
    for (int i = 0; i < names.size(); i++) {
      assertEquals(expected.get(i), ItaniumDemangler.demangle(names.get(i)), names.get(i));
    }
    // The same from a thread with a small stack (the deep names then need a stack of their own).
    List<String> onSmallStack = new ArrayList<>();
    Thread small =
        new Thread(
            null,
            () -> {
              for (String name : names) {
                onSmallStack.add(ItaniumDemangler.demangle(name));
              }
            },
            "small-stack",
            128 * 1024);
    small.start();
    small.join();
    assertEquals(expected, onSmallStack);
    assertTrue(!expected.get(5).equals(names.get(5)), "1024 characters are demangled");
    assertEquals(names.get(6), expected.get(6), "1025 characters are not");
  }

  @Test
  void namesThatAreNotMangledComeBackUnchangedAsWithCppfilt() throws Exception {
    List<String> names =
        List.of(
            "main",
            "_start",
            "_init",
            "memcpy",
            "__libc_start_main",
            "__cxa_atexit",
            "_ZN",
            "_Z",
            "_ZN3foo",
            "_ZN3foo3bar",
            "_ZNK",
            "_ZSt",
            "_ZTV",
            "_ZTV1",
            "_ZNSt6vectorIiSaIiEE9push_back",
            "_Z1fv.",
            "_Z3fooQ",
            "_GLOBAL__sub_I_main.cpp",
            "_GLOBAL__sub_I__Z3foov",
            "_GLOBAL__D_",
            "_GLOBAL__N_1",
            "_R",
            "_RNv",
            "_ZN3foo17h0123456789abcdefX",
            "foo::bar()",
            "",
            "x86_64",
            "GLIBCXX_3.4",
            "_ZZ",
            "_ZZ1fvE",
            "_ZGV",
            "_ZTh",
            "_ZTcv0_h");
    List<String> expected = Toolchain.cppFilt(tmp, names);
    for (int i = 0; i < names.size(); i++) {
      assertEquals(names.get(i), expected.get(i), "c++filt leaves it alone");
      assertEquals(names.get(i), ItaniumDemangler.demangle(names.get(i)));
    }
    assertEquals(null, ItaniumDemangler.demangle(null));
  }

  @Test
  void concurrentCallsGiveTheSameResults() throws Exception {
    List<String> names = new ArrayList<>(mutations(20_000, 20261124L));
    names.addAll(List.of(SEEDS));
    List<String> sequential = new ArrayList<>();
    for (String name : names) {
      sequential.add(ItaniumDemangler.demangle(name));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<String>>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        runs.add(
            pool.submit(
                () -> {
                  List<String> out = new ArrayList<>();
                  for (String name : names) {
                    out.add(ItaniumDemangler.demangle(name));
                  }
                  return out;
                }));
      }
      for (Future<List<String>> run : runs) {
        assertEquals(sequential, run.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
