package dev.fleetprof.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of {@code bench/run}. */
record BenchOptions(
    Path dir,
    long largeBytes,
    int smallFiles,
    long gmonBytes,
    long dcpiBytes,
    List<Long> memoryBytes,
    String memoryHeap,
    int runs,
    boolean pprof,
    long pprofTimeout,
    boolean quick,
    Path jfr,
    java.util.Set<String> sections,
    double binaryScale,
    int addresses,
    int deepFiles,
    int scaleFiles) {

  /** The parts of a run, in the order they run; {@code --only} picks some. */
  static final List<String> SECTIONS =
      List.of(
          "large", "fleet", "formats", "symbols", "quickstart", "job", "deep", "scale", "memory");

  boolean runs(String section) {
    return sections.contains(section);
  }

  static final String USAGE =
      String.join(
          "\n",
          "Usage: bench/run [options]",
          "",
          "Generates its inputs under the bench directory (reused while their sizes match) and prints",
          "one Markdown table, everything measured in this run against a plain single-threaded Java",
          "decode of the large profile.",
          "",
          "  --large-gib G        size of the large gperftools profile (default 2)",
          "  --small-files N      number of small profiles for the fleet rows (default 10000)",
          "  --gmon-mib M         size of the large gmon.out (default 512)",
          "  --dcpi-mib M         size of the large DCPI profile (default 512; at most ~3000)",
          "  --addresses N        distinct addresses the symbolizer rows look up (default 100000)",
          "  --binary-scale X     size of the generated bench programs, 1 = about 3,300 functions",
          "                       (default 1; --quick 0.3)",
          "  --deep-files N       real profiles (deep chains) in the deep fleet (default 1500)",
          "  --scale-files N      profiles of the large fleet the job reads in a 2 GiB heap",
          "                       (default 100000)",
          "  --memory-gib A,B     profile sizes read in a child JVM with --memory-heap (default 1,4)",
          "  --memory-heap H      heap of the memory runs (default 1g)",
          "  --no-memory          skip the memory runs",
          "  --memory-only        only the memory runs (same as --only memory)",
          "  --only S,S           only these parts: large (the large profile, 1 and 2 cores), fleet",
          "                       (planning and reads of the small profiles, binaryFile + UDF), formats",
          "                       (gmon, DCPI), symbols (BinarySymbols vs llvm-symbolizer and",
          "                       addr2line), quickstart (the README's quick-start job and a bare",
          "                       Spark session + SELECT 1, each in a fresh JVM; the job's Spark",
          "                       jobs counted from its event log), job (fleet job without and with",
          "                       --binaries, go tool pprof), deep (the job and go tool pprof on the",
          "                       deep fleet), scale (the job and go tool pprof on --scale-files",
          "                       profiles), memory; the reference loops always run",
          "  --no-pprof           skip go tool pprof even where go is installed",
          "  --pprof-timeout S    give up on go tool pprof after S seconds (default 1800)",
          "  --runs N             time each Spark row N times and keep the best (default 1)",
          "  --dir D              where inputs go (default target/bench)",
          "  --jfr DIR            profile each timed row with Java Flight Recorder: DIR/NN-row.jfr and",
          "                       a summary of its hottest methods, DIR/NN-row.txt",
          "  --quick              everything small (64 MiB profile, 300 small files, smaller programs,",
          "                       20,000 addresses, ...): checks the harness in a few minutes; later",
          "                       options override it",
          "  --help               this text");

  static BenchOptions parse(String[] argv) {
    Path dir = Path.of("target/bench");
    double largeGib = 2;
    int smallFiles = 10_000;
    long gmonMib = 512;
    long dcpiMib = 512;
    List<Long> memory = List.of(1L << 30, 4L << 30);
    String heap = "1g";
    int runs = 1;
    boolean pprof = true;
    long pprofTimeout = 1800;
    boolean quick = false;
    Path jfr = null;
    java.util.Set<String> sections = new java.util.LinkedHashSet<>(SECTIONS);
    double binaryScale = 1;
    int addresses = 100_000;
    int deepFiles = 1_500;
    int scaleFiles = 100_000;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      switch (a) {
        case "--quick" -> {
          quick = true;
          largeGib = 1.0 / 16;
          smallFiles = 300;
          gmonMib = 16;
          dcpiMib = 16;
          memory = List.of(32L << 20, 128L << 20);
          binaryScale = 0.3;
          addresses = 20_000;
          deepFiles = 40;
          scaleFiles = 1_000;
        }
        case "--deep-files" -> deepFiles = Integer.parseInt(value(argv, ++i, a));
        case "--scale-files" -> scaleFiles = Integer.parseInt(value(argv, ++i, a));
        case "--addresses" -> addresses = Integer.parseInt(value(argv, ++i, a));
        case "--binary-scale" -> binaryScale = Double.parseDouble(value(argv, ++i, a));
        case "--large-gib" -> largeGib = Double.parseDouble(value(argv, ++i, a));
        case "--small-files" -> smallFiles = Integer.parseInt(value(argv, ++i, a));
        case "--gmon-mib" -> gmonMib = Long.parseLong(value(argv, ++i, a));
        case "--dcpi-mib" -> dcpiMib = Long.parseLong(value(argv, ++i, a));
        case "--memory-gib" -> {
          List<Long> sizes = new ArrayList<>();
          for (String s : value(argv, ++i, a).split(",")) {
            sizes.add((long) (Double.parseDouble(s.strip()) * (1L << 30)));
          }
          memory = List.copyOf(sizes);
        }
        case "--memory-heap" -> heap = value(argv, ++i, a);
        case "--no-memory" -> memory = List.of();
        case "--memory-only" -> sections = new java.util.LinkedHashSet<>(List.of("memory"));
        case "--only" -> {
          sections = new java.util.LinkedHashSet<>();
          for (String part : value(argv, ++i, a).split(",")) {
            if (!SECTIONS.contains(part.strip())) {
              throw new IllegalArgumentException(
                  "--only takes some of " + SECTIONS + ", not '" + part.strip() + "'");
            }
            sections.add(part.strip());
          }
        }
        case "--no-pprof" -> pprof = false;
        case "--pprof-timeout" -> pprofTimeout = Long.parseLong(value(argv, ++i, a));
        case "--runs" -> runs = Math.max(1, Integer.parseInt(value(argv, ++i, a)));
        case "--dir" -> dir = Path.of(value(argv, ++i, a));
        case "--jfr" -> jfr = Path.of(value(argv, ++i, a));
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
      }
    }
    return new BenchOptions(
        dir,
        (long) (largeGib * (1L << 30)),
        smallFiles,
        gmonMib << 20,
        dcpiMib << 20,
        memory,
        heap,
        runs,
        pprof,
        pprofTimeout,
        quick,
        jfr,
        java.util.Set.copyOf(sections),
        binaryScale,
        addresses,
        deepFiles,
        scaleFiles);
  }

  private static String value(String[] argv, int i, String flag) {
    if (i >= argv.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return argv[i];
  }
}
