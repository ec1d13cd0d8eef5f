package dev.fleetprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The bench fleet's programs: C and C++ sources generated from a seed (two executables and three
 * shared libraries, a few thousand functions) and built with gcc/g++ {@code -O2 -g}, so that the
 * fleet's profiles name real binaries with real DWARF. Nothing binary is checked in.
 *
 * <p>The code is shaped like a server's: functions in layers (a function calls 1-4 functions one or
 * two layers down, in its own module or in a library it links), C++ namespaces, classes, templates
 * and {@code extern "C"} APIs, C libraries, a few recursive functions, and small {@code static
 * inline} helpers in every unit that gcc inlines (some of them holding calls, so that call sites
 * sit in inlined code). What the compiler made of it (which calls stayed calls, where they are) is
 * read back from the binaries by {@link BinaryCode}, not assumed from the sources.
 */
final class BenchPrograms {
  /** A binary of the fleet. */
  record Spec(
      String file,
      String mapsPath,
      boolean exe,
      boolean cxx,
      String prefix,
      int units,
      int functions,
      int firstLayer,
      int lastLayer,
      List<String> links) {
    int layers() {
      return lastLayer - firstLayer + 1;
    }
  }

  /** The libraries first, in link order (a library links only those before it). */
  static final List<Spec> SPECS =
      List.of(
          new Spec(
              "libfleetio.so",
              "/opt/fleet/lib/libfleetio.so",
              false,
              false,
              "fio",
              4,
              450,
              38,
              50,
              List.of()),
          new Spec(
              "libfleetcodec.so",
              "/opt/fleet/lib/libfleetcodec.so",
              false,
              false,
              "codec",
              5,
              650,
              26,
              41,
              List.of("libfleetio.so")),
          new Spec(
              "libfleetcore.so",
              "/opt/fleet/lib/libfleetcore.so",
              false,
              true,
              "core",
              6,
              850,
              12,
              30,
              List.of("libfleetcodec.so", "libfleetio.so")),
          new Spec(
              "fleet-server",
              "/opt/fleet/bin/fleet-server",
              true,
              true,
              "server",
              8,
              1000,
              0,
              15,
              List.of("libfleetcore.so", "libfleetcodec.so", "libfleetio.so")),
          new Spec(
              "fleet-batch",
              "/opt/fleet/bin/fleet-batch",
              true,
              false,
              "batch",
              4,
              350,
              0,
              15,
              List.of("libfleetcore.so", "libfleetcodec.so", "libfleetio.so")));

  /** The compiler flags every unit is built with. */
  static final List<String> FLAGS = List.of("-O2", "-g");

  private static final String[] VERBS = {
    "parse", "encode", "decode", "hash", "lookup", "flush", "merge", "split", "scan", "read",
    "write", "fold", "apply", "check", "route", "emit", "update", "resolve", "compact", "reserve",
    "visit", "drain", "fill", "sort", "probe", "commit", "append", "trim", "expand", "score"
  };
  private static final String[] NOUNS = {
    "header", "frame", "chunk", "block", "record", "index", "table", "entry", "bucket", "span",
    "token", "message", "request", "reply", "batch", "segment", "page", "slot", "node", "edge",
    "key", "value", "range", "window", "queue", "cursor", "row", "column", "filter", "stream"
  };
  private static final String[] CLASSES = {
    "Session",
    "Connection",
    "Dispatcher",
    "Scheduler",
    "Arena",
    "Codec",
    "Router",
    "Cache",
    "Shard",
    "Journal",
    "Planner",
    "Executor",
    "Registry",
    "Tracker",
    "Balancer",
    "Compressor"
  };
  private static final String[] NAMESPACES = {"net", "rpc", "storage", "query", "util", "exec"};

  /** One generated function: how it is declared, called and defined. */
  private static final class Fn {
    final Spec module;
    final int index;
    final int layer;
    final int unit;

    /** 0: (u64, u32); 1: C++ (const Buffer&, u32). */
    int signature;

    /** C++ only: namespace path, enclosing class (or null), template (instantiated for u64). */
    String namespace;

    String cls;
    boolean template;

    /** Declared extern "C" (C modules, and the C++ core's C API). */
    boolean externC;

    String name;
    boolean recursive;
    final List<Fn> callees = new ArrayList<>();
    int callers;

    Fn(Spec module, int index, int layer, int unit) {
      this.module = module;
      this.index = index;
      this.layer = layer;
      this.unit = unit;
    }

    /** The name to call it by from code outside its namespace. */
    String qualified() {
      if (externC) {
        return name;
      }
      String q = "::" + namespace + "::" + (cls != null ? cls + "::" : "") + name;
      return template ? q + "<std::uint64_t>" : q;
    }
  }

  private final long seed;
  private final double scale;
  private final Map<String, List<Fn>> byModule = new LinkedHashMap<>();

  /**
   * @param scale the share of {@link Spec#functions} to generate (1 for the benchmark; small for
   *     the tests, which build the same shapes in seconds)
   */
  BenchPrograms(long seed, double scale) {
    this.seed = seed;
    this.scale = scale;
    plan();
  }

  /** The number of functions generated (helpers not counted). */
  int functions() {
    return byModule.values().stream().mapToInt(List::size).sum();
  }

  // ------------------------------------------------------------------ the call graph

  private void plan() {
    SplittableRandom rnd = new SplittableRandom(seed);
    for (Spec s : SPECS) {
      int n = Math.max(s.layers() * 2, (int) Math.round(s.functions() * scale));
      List<Fn> fns = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int layer = s.firstLayer() + (int) ((long) i * s.layers() / n);
        Fn f = new Fn(s, i, layer, rnd.nextInt(s.units()));
        name(f, rnd);
        fns.add(f);
      }
      byModule.put(s.file(), fns);
    }
    for (Spec s : SPECS) {
      for (Fn f : byModule.get(s.file())) {
        if (f.layer == s.lastLayer() && s.links().isEmpty()) {
          continue; // the deepest layer calls nothing
        }
        int r = rnd.nextInt(100);
        int calls = r < 25 ? 1 : r < 60 ? 2 : r < 85 ? 3 : 4;
        for (int c = 0; c < calls; c++) {
          Fn callee = pickCallee(f, rnd);
          if (callee != null && !f.callees.contains(callee)) {
            f.callees.add(callee);
            callee.callers++;
          }
        }
        f.recursive = rnd.nextInt(100) < 4;
      }
    }
    // Every function below an entry layer has a caller, so that stacks reach the roots.
    for (Spec s : SPECS) {
      for (Fn f : byModule.get(s.file())) {
        if (f.callers > 0 || (s.exe() && f.layer == s.firstLayer())) {
          continue;
        }
        List<Fn> candidates = new ArrayList<>();
        for (Spec caller : SPECS) {
          if (caller == s || caller.links().contains(s.file())) {
            for (Fn g : byModule.get(caller.file())) {
              if (g.layer < f.layer && g.layer >= f.layer - 2 && callable(g, f)) {
                candidates.add(g);
              }
            }
          }
        }
        if (!candidates.isEmpty()) {
          Fn g = candidates.get(rnd.nextInt(candidates.size()));
          g.callees.add(f);
          f.callers++;
        }
      }
    }
  }

  /** C code can call C++ only through its extern "C" functions. */
  private static boolean callable(Fn caller, Fn callee) {
    return caller.module.cxx() || callee.externC;
  }

  private Fn pickCallee(Fn f, SplittableRandom rnd) {
    int target = f.layer + 1 + rnd.nextInt(2);
    List<Spec> modules = new ArrayList<>();
    if (target <= f.module.lastLayer()) {
      modules.add(f.module);
      modules.add(f.module); // its own module twice as likely
    }
    for (String l : f.module.links()) {
      Spec s = spec(l);
      if (target >= s.firstLayer() && target <= s.lastLayer()) {
        modules.add(s);
      }
    }
    if (modules.isEmpty()) {
      return null;
    }
    Spec m = modules.get(rnd.nextInt(modules.size()));
    List<Fn> fns = byModule.get(m.file());
    List<Fn> inLayer = new ArrayList<>();
    for (Fn g : fns) {
      if (g.layer == target && callable(f, g)) {
        inLayer.add(g);
      }
    }
    return inLayer.isEmpty() ? null : inLayer.get(rnd.nextInt(inLayer.size()));
  }

  static Spec spec(String file) {
    for (Spec s : SPECS) {
      if (s.file().equals(file)) {
        return s;
      }
    }
    throw new IllegalArgumentException(file);
  }

  private static void name(Fn f, SplittableRandom rnd) {
    String base =
        VERBS[rnd.nextInt(VERBS.length)] + "_" + NOUNS[rnd.nextInt(NOUNS.length)] + "_" + f.index;
    Spec s = f.module;
    if (!s.cxx()) {
      f.externC = true;
      f.name = s.prefix() + "_" + base;
      return;
    }
    // The core's first two layers are its C API, which the C programs call.
    if (!s.exe() && f.layer < s.firstLayer() + 2 && rnd.nextInt(100) < 40) {
      f.externC = true;
      f.name = "fleet_" + s.prefix() + "_" + base;
      return;
    }
    f.namespace = "fleet::" + s.prefix() + "::" + NAMESPACES[rnd.nextInt(NAMESPACES.length)];
    f.name = base;
    int r = rnd.nextInt(100);
    if (r < 30) {
      f.cls = CLASSES[rnd.nextInt(CLASSES.length)];
    } else if (r < 40) {
      f.template = true;
    } else if (r < 52) {
      f.signature = 1;
    }
  }

  // ------------------------------------------------------------------ sources

  /** Writes the headers and units of every binary under {@code src}. */
  void writeSources(Path src) throws IOException {
    Files.createDirectories(src);
    for (Spec s : SPECS) {
      Files.writeString(src.resolve(s.prefix() + ".h"), header(s));
      for (int u = 0; u < s.units(); u++) {
        Files.writeString(src.resolve(unitName(s, u)), unit(s, u));
      }
    }
  }

  static String unitName(Spec s, int unit) {
    return String.format(Locale.ROOT, "%s_%d.%s", s.prefix(), unit, s.cxx() ? "cc" : "c");
  }

  private String header(Spec s) {
    StringBuilder b = new StringBuilder();
    String guard = s.prefix().toUpperCase(Locale.ROOT) + "_H";
    b.append("/* Generated by fleetprof's benchmark (BenchPrograms). */\n")
        .append("#ifndef ")
        .append(guard)
        .append("\n#define ")
        .append(guard)
        .append("\n")
        .append("#include <stdint.h>\n");
    List<Fn> fns = byModule.get(s.file());
    b.append("#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
    for (Fn f : fns) {
      if (f.externC) {
        b.append("uint64_t ").append(f.name).append("(uint64_t x, uint32_t y);\n");
      }
    }
    b.append("#ifdef __cplusplus\n}\n#endif\n");
    if (s.cxx()) {
      b.append("#ifdef __cplusplus\n#include <cstdint>\n");
      b.append(
          "#ifndef FLEET_BUFFER\n#define FLEET_BUFFER\nnamespace fleet {\nstruct Buffer {\n"
              + "  std::uint64_t data[4];\n  std::uint32_t len;\n};\n}  // namespace fleet\n#endif\n");
      Map<String, Map<String, List<Fn>>> byNs = new LinkedHashMap<>();
      for (Fn f : fns) {
        if (!f.externC) {
          byNs.computeIfAbsent(f.namespace, k -> new LinkedHashMap<>())
              .computeIfAbsent(f.cls == null ? "" : f.cls, k -> new ArrayList<>())
              .add(f);
        }
      }
      for (Map.Entry<String, Map<String, List<Fn>>> ns : byNs.entrySet()) {
        b.append("namespace ").append(ns.getKey()).append(" {\n");
        for (Map.Entry<String, List<Fn>> cls : ns.getValue().entrySet()) {
          boolean member = !cls.getKey().isEmpty();
          if (member) {
            b.append("struct ").append(cls.getKey()).append(" {\n");
          }
          for (Fn f : cls.getValue()) {
            b.append(member ? "  " : "")
                .append(f.template ? "template <typename T> " : "")
                .append(member ? "static " : "")
                .append(f.template ? "T " : "std::uint64_t ")
                .append(f.name)
                .append(params(f))
                .append(";\n");
          }
          if (member) {
            b.append("};\n");
          }
        }
        b.append("}  // namespace ").append(ns.getKey()).append("\n");
      }
      b.append("#endif\n");
    }
    b.append("#endif\n");
    return b.toString();
  }

  private static String params(Fn f) {
    if (f.template) {
      return "(T x, std::uint32_t y)";
    }
    if (f.signature == 1) {
      return "(const ::fleet::Buffer& b, std::uint32_t y)";
    }
    return f.module.cxx() && !f.externC
        ? "(std::uint64_t x, std::uint32_t y)"
        : "(uint64_t x, uint32_t y)";
  }

  private String unit(Spec s, int u) {
    SplittableRandom rnd = new SplittableRandom(seed * 31 + s.prefix().hashCode() * 17L + u);
    StringBuilder b = new StringBuilder();
    b.append("/* Generated by fleetprof's benchmark (BenchPrograms). */\n");
    b.append("#include \"").append(s.prefix()).append(".h\"\n");
    for (String l : s.links()) {
      b.append("#include \"").append(spec(l).prefix()).append(".h\"\n");
    }
    String u64 = s.cxx() ? "std::uint64_t" : "uint64_t";
    String u32 = s.cxx() ? "std::uint32_t" : "uint32_t";
    // Helpers gcc inlines: some nest, some hold calls to real functions of the module's layers.
    int helpers = 6 + rnd.nextInt(7);
    List<String> helperNames = new ArrayList<>();
    List<Fn> fns = byModule.get(s.file());
    List<Fn> mine = fns.stream().filter(f -> f.unit == u).toList();
    if (s.cxx()) {
      b.append("namespace {\nstruct Mixer {\n");
    }
    for (int h = 0; h < helpers; h++) {
      String name =
          s.cxx()
              ? String.format(Locale.ROOT, "%s_%d", NOUNS[rnd.nextInt(NOUNS.length)], h)
              : String.format(
                  Locale.ROOT, "%s_u%d_%s_%d", s.prefix(), u, NOUNS[rnd.nextInt(NOUNS.length)], h);
      String attr = rnd.nextBoolean() ? "__attribute__((always_inline)) " : "";
      b.append(s.cxx() ? "  static inline " + attr : "static inline " + attr)
          .append(u64)
          .append(' ')
          .append(name)
          .append('(')
          .append(u64)
          .append(" a, ")
          .append(u32)
          .append(" b) {\n");
      String ind = s.cxx() ? "    " : "  ";
      b.append(ind)
          .append(u64)
          .append(" r = a * 0x")
          .append(Long.toHexString(odd(rnd)))
          .append("ull + b;\n");
      b.append(ind).append("r ^= r >> ").append(7 + rnd.nextInt(40)).append(";\n");
      if (!helperNames.isEmpty() && rnd.nextInt(100) < 50) {
        b.append(ind)
            .append("r += ")
            .append(helperCall(s, helperNames.get(rnd.nextInt(helperNames.size()))))
            .append("(r, b + ")
            .append(1 + rnd.nextInt(9))
            .append(");\n");
      }
      helperNames.add(name);
      b.append(ind).append("return r;\n").append(s.cxx() ? "  }\n" : "}\n");
    }
    if (s.cxx()) {
      b.append("};\n}  // namespace\n");
    }
    for (Fn f : mine) {
      b.append('\n').append(definition(f, helperNames, rnd, u64, u32));
    }
    if (s.exe() && u == 0) {
      b.append(main(s, fns));
    }
    return b.toString();
  }

  private static String helperCall(Spec s, String helper) {
    return s.cxx() ? "Mixer::" + helper : helper;
  }

  private static long odd(SplittableRandom rnd) {
    return rnd.nextLong() | 1L;
  }

  private String definition(
      Fn f, List<String> helpers, SplittableRandom rnd, String u64, String u32) {
    StringBuilder b = new StringBuilder();
    Spec s = f.module;
    if (f.externC && s.cxx()) {
      b.append("extern \"C\" ");
    }
    if (f.template) {
      b.append("template <typename T> T ");
    } else {
      b.append(u64).append(' ');
    }
    if (!f.externC) {
      b.append(f.namespace).append("::");
      if (f.cls != null) {
        b.append(f.cls).append("::");
      }
    }
    b.append(f.name).append(params(f)).append(" {\n");
    if (f.signature == 1) {
      b.append("  ").append(u64).append(" x = b.data[y & 3u] + b.len;\n");
    }
    b.append("  ")
        .append(u64)
        .append(" acc = x ^ 0x")
        .append(Long.toHexString(rnd.nextLong()))
        .append("ull;\n");
    b.append("  acc = ")
        .append(helperCall(s, helpers.get(rnd.nextInt(helpers.size()))))
        .append("(acc, y);\n");
    List<Fn> callees = new ArrayList<>(f.callees);
    int loopCalls = callees.isEmpty() ? 0 : rnd.nextInt(Math.min(2, callees.size()) + 1);
    b.append("  for (")
        .append(u32)
        .append(" i = 0; i < (y & ")
        .append(3 + rnd.nextInt(13))
        .append("u); i++) {\n");
    b.append("    acc = (acc << ").append(1 + rnd.nextInt(60)).append(" | acc >> ");
    b.append("13) + 0x").append(Integer.toHexString(rnd.nextInt(1 << 20))).append(";\n");
    for (int i = 0; i < loopCalls; i++) {
      b.append("    acc += ").append(call(f, callees.remove(0), "acc", "i")).append(";\n");
    }
    if (rnd.nextBoolean()) {
      b.append("    acc = ")
          .append(helperCall(s, helpers.get(rnd.nextInt(helpers.size()))))
          .append("(acc, i);\n");
    }
    b.append("  }\n");
    if (!callees.isEmpty() && rnd.nextBoolean()) {
      b.append("  if ((acc & ")
          .append(1 << rnd.nextInt(6))
          .append(") != 0) {\n    acc += ")
          .append(call(f, callees.remove(0), "acc >> 3", "y + 1u"))
          .append(";\n  } else {\n")
          .append("    acc ^= ")
          .append(helperCall(s, helpers.get(rnd.nextInt(helpers.size()))))
          .append("(acc, y);\n  }\n");
    }
    if (rnd.nextInt(100) < 25) {
      // A bigger body: a switch of arithmetic, as a decoder's state machine has.
      b.append("  switch (y & 7u) {\n");
      for (int c = 0; c < 8; c++) {
        b.append("    case ")
            .append(c)
            .append("u: acc = acc * 0x")
            .append(Long.toHexString(odd(rnd)))
            .append("ull + (acc >> ")
            .append(1 + c * 5)
            .append("); break;\n");
      }
      b.append("    default: break;\n  }\n");
    }
    while (!callees.isEmpty()) {
      b.append("  acc ^= ")
          .append(
              call(
                  f,
                  callees.remove(0),
                  "acc",
                  "y ^ 0x" + Integer.toHexString(rnd.nextInt(256)) + "u"))
          .append(";\n");
    }
    if (f.recursive) {
      b.append("  if (y > 1u) {\n    acc += ")
          .append(call(f, f, "acc >> 1", "y - 1u"))
          .append(";\n  }\n");
    }
    b.append("  acc = acc * 0x")
        .append(Long.toHexString(odd(rnd)))
        .append("ull + (acc >> ")
        .append(20 + rnd.nextInt(20))
        .append(");\n");
    b.append("  return ")
        .append(f.template ? "static_cast<T>(acc ^ y)" : "acc ^ y")
        .append(";\n}\n");
    if (f.template) {
      b.append("template std::uint64_t ").append(f.namespace).append("::");
      if (f.cls != null) {
        b.append(f.cls).append("::");
      }
      b.append(f.name).append("<std::uint64_t>(std::uint64_t, std::uint32_t);\n");
    }
    return b.toString();
  }

  /** A call of {@code callee} from {@code caller}'s body with these argument expressions. */
  private static String call(Fn caller, Fn callee, String x, String y) {
    String name = caller.module.cxx() ? callee.qualified() : callee.name;
    if (callee.signature == 1) {
      return name
          + "(::fleet::Buffer{{"
          + x
          + ", "
          + x
          + " >> 1, "
          + x
          + " >> 2, "
          + x
          + " >> 3}, "
          + y
          + "}, "
          + y
          + ")";
    }
    return name + "(" + x + ", " + y + ")";
  }

  /** main calls the first layer's functions (in C++ through a table, as a dispatcher would). */
  private String main(Spec s, List<Fn> fns) {
    StringBuilder b = new StringBuilder("\nint main(int argc, char** argv) {\n");
    String u64 = s.cxx() ? "std::uint64_t" : "uint64_t";
    b.append("  ").append(u64).append(" acc = (").append(u64).append(") argc;\n");
    b.append("  (void) argv;\n");
    for (Fn f : fns) {
      if (f.layer == s.firstLayer()) {
        String u32 = s.cxx() ? "std::uint32_t" : "uint32_t";
        b.append("  acc += ").append(call(f, f, "acc", "(" + u32 + ") argc")).append(";\n");
      }
    }
    b.append("  return (int) (acc & 1);\n}\n");
    return b.toString();
  }

  // ------------------------------------------------------------------ building

  /**
   * Writes the sources under {@code dir/src} and builds every binary into {@code dir}: the units
   * compiled in parallel, then each binary linked, the libraries first. Returns the binaries, in
   * {@link #SPECS} order.
   */
  List<Path> build(Path dir) throws IOException, InterruptedException {
    Path src = dir.resolve("src");
    writeSources(src);
    List<List<String>> compiles = new ArrayList<>();
    for (Spec s : SPECS) {
      for (int u = 0; u < s.units(); u++) {
        List<String> cmd = new ArrayList<>(List.of(s.cxx() ? "g++" : "gcc"));
        cmd.addAll(FLAGS);
        if (!s.exe()) {
          cmd.add("-fPIC");
        }
        cmd.addAll(List.of("-Isrc", "-c", "-o", objectName(s, u), "src/" + unitName(s, u)));
        compiles.add(cmd);
      }
    }
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < compiles.size(); i++) {
        List<String> cmd = compiles.get(i);
        Path log = dir.resolve("compile-" + i + ".log");
        done.add(
            pool.submit(
                () -> {
                  run(cmd, dir, log);
                  return null;
                }));
      }
      for (Future<?> f : done) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
    }
    List<Path> out = new ArrayList<>();
    for (Spec s : SPECS) {
      List<String> cmd = new ArrayList<>(List.of(s.cxx() ? "g++" : "gcc"));
      cmd.addAll(FLAGS);
      if (!s.exe()) {
        cmd.addAll(List.of("-shared", "-Wl,-soname," + s.file()));
      }
      cmd.addAll(List.of("-o", s.file()));
      for (int u = 0; u < s.units(); u++) {
        cmd.add(objectName(s, u));
      }
      if (!s.links().isEmpty()) {
        cmd.add("-L.");
        for (String l : s.links()) {
          cmd.add("-l" + l.substring(3, l.length() - 3));
        }
        cmd.add("-Wl,-rpath,$ORIGIN");
      }
      run(cmd, dir, dir.resolve(s.file() + ".log"));
      out.add(dir.resolve(s.file()));
    }
    return out;
  }

  private static String objectName(Spec s, int unit) {
    return "obj/" + unitName(s, unit) + ".o";
  }

  private static void run(List<String> cmd, Path dir, Path log)
      throws IOException, InterruptedException {
    Files.createDirectories(dir.resolve("obj"));
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(900, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new IOException(String.join(" ", cmd) + " did not finish in 900 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + Files.readString(log));
    }
    Files.delete(log);
  }
}
