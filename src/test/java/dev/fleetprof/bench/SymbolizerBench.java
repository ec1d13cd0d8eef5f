package dev.fleetprof.bench;

import dev.fleetprof.bench.Inputs.Binaries;
import dev.fleetprof.bench.Processes.Outcome;
import dev.fleetprof.symbols.BinarySymbols;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.elf.ElfFile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The symbolizer rows: {@link BinarySymbols} on one thread against {@code llvm-symbolizer
 * --inlining --obj=BIN} and {@code addr2line -a -f -i -C -e BIN}, all on the same distinct
 * instruction addresses of the bench binaries (drawn uniformly from every function's instruction
 * boundaries, in random order, each binary's looked up in one go), in the same run. The tools'
 * answers are parsed and compared with the Java symbolizer's, address by address, so that a row
 * that looked nothing up, or looked up the wrong thing, is caught.
 */
final class SymbolizerBench {
  /** A timed way of symbolizing the addresses: wall seconds and CPU seconds (NaN if unknown). */
  record Timing(double seconds, double cpuSeconds) {}

  /** Per binary: its addresses, in lookup order. */
  private final Map<Path, long[]> addresses;

  private final Path work;
  private final int total;

  SymbolizerBench(Binaries binaries, int count, Path work, long seed) throws IOException {
    this(sample(binaries, count, seed), work);
  }

  private SymbolizerBench(Map<Path, long[]> addresses, Path work) throws IOException {
    this.work = work;
    Files.createDirectories(work);
    this.addresses = addresses;
    int n = 0;
    for (Map.Entry<Path, long[]> e : addresses.entrySet()) {
      n += e.getValue().length;
      StringBuilder sb = new StringBuilder();
      for (long a : e.getValue()) {
        sb.append("0x").append(Long.toHexString(a)).append('\n');
      }
      Files.writeString(addressFile(e.getKey()), sb);
    }
    this.total = n;
  }

  /** The number of distinct addresses looked up (fewer than asked when the binaries are small). */
  int addresses() {
    return total;
  }

  int binaries() {
    return addresses.size();
  }

  private Path addressFile(Path binary) {
    return work.resolve(binary.getFileName() + ".addresses");
  }

  /** {@code count} distinct instruction addresses, uniformly from all the binaries' functions. */
  static Map<Path, long[]> sample(Binaries binaries, int count, long seed) {
    List<BinaryCode> code = List.copyOf(binaries.code().values());
    int all = 0;
    for (BinaryCode c : code) {
      all += (int) c.instructionCount();
    }
    long[] addr = new long[all];
    byte[] file = new byte[all];
    int k = 0;
    for (int b = 0; b < code.size(); b++) {
      for (BinaryCode.Function f : code.get(b).functions) {
        for (long a : f.instructions()) {
          addr[k] = a;
          file[k++] = (byte) b;
        }
      }
    }
    int n = Math.min(count, all);
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) { // a partial Fisher-Yates shuffle: the first n are the sample
      int j = i + rnd.nextInt(all - i);
      long ta = addr[i];
      addr[i] = addr[j];
      addr[j] = ta;
      byte tf = file[i];
      file[i] = file[j];
      file[j] = tf;
    }
    Map<Path, long[]> out = new LinkedHashMap<>();
    for (int b = 0; b < code.size(); b++) {
      int m = 0;
      for (int i = 0; i < n; i++) {
        m += file[i] == b ? 1 : 0;
      }
      long[] mine = new long[m];
      m = 0;
      for (int i = 0; i < n; i++) {
        if (file[i] == b) {
          mine[m++] = addr[i];
        }
      }
      out.put(code.get(b).path, mine);
    }
    return out;
  }

  // ------------------------------------------------------------------ the Java symbolizer

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Every binary opened, not yet looked up in. */
  private Map<Path, BinarySymbols> open() throws IOException {
    Map<Path, BinarySymbols> out = new LinkedHashMap<>();
    for (Path p : addresses.keySet()) {
      out.put(p, new BinarySymbols(ElfFile.open(p), null));
    }
    return out;
  }

  private static void close(Map<Path, BinarySymbols> opened) throws IOException {
    for (BinarySymbols s : opened.values()) {
      s.close();
    }
  }

  /** Function names of every address's chain, innermost first, per binary in lookup order. */
  private Map<Path, List<List<String>>> lookUp(Map<Path, BinarySymbols> opened) throws IOException {
    Map<Path, List<List<String>>> out = new LinkedHashMap<>();
    for (Map.Entry<Path, long[]> e : addresses.entrySet()) {
      BinarySymbols s = opened.get(e.getKey());
      List<List<String>> chains = new ArrayList<>(e.getValue().length);
      for (long a : e.getValue()) {
        List<SourceLine> chain = s.atAddress(a);
        List<String> names = new ArrayList<>(chain.size());
        for (SourceLine l : chain) {
          names.add(l.function());
        }
        chains.add(names);
      }
      out.put(e.getKey(), chains);
    }
    return out;
  }

  /**
   * Java, tables included: each binary opened and its DWARF index, symbol table and line tables
   * built within the timing, as a job's first lookups in a binary do. The JIT is warmed first by an
   * untimed pass (a long-running executor's state, not a cold JVM's).
   */
  Timing javaIncludingTables(Map<Path, List<List<String>>> answers) throws IOException {
    close(warm());
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    Map<Path, BinarySymbols> opened = open();
    Map<Path, List<List<String>>> got = lookUp(opened);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpu = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
    close(opened);
    answers.putAll(got);
    return new Timing(seconds, cpu);
  }

  private Map<Path, BinarySymbols> warm() throws IOException {
    Map<Path, BinarySymbols> opened = open();
    lookUp(opened);
    return opened;
  }

  /** Java, tables excluded: lookups in binaries a full pass has already built everything for. */
  Timing javaExcludingTables() throws IOException {
    Map<Path, BinarySymbols> opened = warm();
    try {
      long cpu0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      lookUp(opened);
      return new Timing(
          (System.nanoTime() - t0) / 1e9, (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9);
    } finally {
      close(opened);
    }
  }

  // ------------------------------------------------------------------ in a fresh JVM

  private static final java.util.regex.Pattern COLD =
      java.util.regex.Pattern.compile(
          "symbolizer-cold seconds=([0-9.]+) cpu=([0-9.]+) addresses=(\\d+)");

  /**
   * Java, tables included, in a fresh JVM (as an executor's first task in a binary): a child JVM
   * opens the binaries and looks up every address once, JIT cold; its own timing, so JVM start and
   * class loading before the first open are excluded. Returns that timing and the child's wall
   * time, start included.
   */
  Timing[] javaColdJvm() throws IOException, InterruptedException {
    List<String> args = new ArrayList<>();
    for (Path p : addresses.keySet()) {
      args.add(p.toString());
      args.add(addressFile(p).toString());
    }
    Outcome o =
        Processes.run(
            Processes.java(
                "2g", System.getProperty("java.class.path"), SymbolizerBench.class.getName(), args),
            work.resolve("cold-jvm.log"),
            1800,
            Map.of());
    java.util.regex.Matcher m = COLD.matcher(o.output());
    if (!o.ok() || !m.find()) {
      throw new IOException(
          "the fresh-JVM symbolizer run failed (exit " + o.exit() + "): " + o.tail());
    }
    if (Long.parseLong(m.group(3)) != total) {
      throw new IOException(
          "the fresh-JVM symbolizer run looked up " + m.group(3) + " of " + total + " addresses");
    }
    return new Timing[] {
      new Timing(Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))),
      new Timing(o.seconds(), o.cpuSeconds())
    };
  }

  /** The fresh JVM's side: pairs of binary and address file; prints the timing. */
  public static void main(String[] args) throws Exception {
    Map<Path, long[]> addresses = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      List<String> lines = Files.readAllLines(Path.of(args[i + 1]));
      long[] a = new long[lines.size()];
      for (int j = 0; j < a.length; j++) {
        a[j] = Long.parseUnsignedLong(lines.get(j).substring(2), 16);
      }
      addresses.put(Path.of(args[i]), a);
    }
    SymbolizerBench b =
        new SymbolizerBench(addresses, Files.createTempDirectory("symbolizer-cold"));
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    Map<Path, BinarySymbols> opened = b.open();
    Map<Path, List<List<String>>> got = b.lookUp(opened);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpu = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
    close(opened);
    long n = got.values().stream().mapToLong(List::size).sum();
    System.out.printf(
        java.util.Locale.ROOT,
        "symbolizer-cold seconds=%.4f cpu=%.4f addresses=%d%n",
        seconds,
        cpu,
        n);
  }

  // ------------------------------------------------------------------ the reference tools

  /** {@code llvm-symbolizer --inlining --obj=BIN} on each binary's addresses, one process each. */
  Timing llvmSymbolizer(Map<Path, List<List<String>>> answers)
      throws IOException, InterruptedException {
    return tool(
        b -> List.of("llvm-symbolizer", "--inlining", "--obj=" + b),
        answers,
        SymbolizerBench::parseLlvm);
  }

  /** {@code addr2line -a -f -i -C -e BIN} on each binary's addresses, one process each. */
  Timing addr2line(Map<Path, List<List<String>>> answers) throws IOException, InterruptedException {
    return tool(
        b -> List.of("addr2line", "-a", "-f", "-i", "-C", "-e", b.toString()),
        answers,
        SymbolizerBench::parseAddr2line);
  }

  private interface Command {
    List<String> of(Path binary);
  }

  private interface Parser {
    List<List<String>> parse(String output, int addresses) throws IOException;
  }

  private Timing tool(Command command, Map<Path, List<List<String>>> answers, Parser parser)
      throws IOException, InterruptedException {
    double seconds = 0;
    double cpu = 0;
    for (Map.Entry<Path, long[]> e : addresses.entrySet()) {
      List<String> cmd = command.of(e.getKey());
      Path log = work.resolve(e.getKey().getFileName() + "." + cmd.get(0) + ".txt");
      Outcome o = Processes.run(cmd, addressFile(e.getKey()), log, 1800, Map.of());
      if (!o.ok()) {
        throw new IOException(
            String.join(" ", cmd) + " failed (exit " + o.exit() + "): " + o.tail());
      }
      seconds += o.seconds();
      cpu += o.cpuSeconds();
      answers.put(e.getKey(), parser.parse(o.output(), e.getValue().length));
    }
    return new Timing(seconds, cpu);
  }

  /** llvm-symbolizer: per address, function and location lines, then an empty line. */
  static List<List<String>> parseLlvm(String output, int addresses) throws IOException {
    List<List<String>> out = new ArrayList<>(addresses);
    List<String> chain = new ArrayList<>();
    boolean function = true;
    for (String line : output.split("\n", -1)) {
      if (line.isEmpty()) {
        if (!chain.isEmpty()) {
          out.add(chain);
          chain = new ArrayList<>();
        }
        function = true;
        continue;
      }
      if (function) {
        chain.add(line);
      }
      function = !function;
    }
    if (out.size() != addresses) {
      throw new IOException(
          "llvm-symbolizer answered for " + out.size() + " of " + addresses + " addresses");
    }
    return out;
  }

  /** addr2line -a: per address, the address, then function and location lines per frame. */
  static List<List<String>> parseAddr2line(String output, int addresses) throws IOException {
    List<List<String>> out = new ArrayList<>(addresses);
    List<String> chain = null;
    boolean function = true;
    for (String line : output.split("\n")) {
      if (line.startsWith("0x") && function) {
        if (chain != null) {
          out.add(chain);
        }
        chain = new ArrayList<>();
        continue;
      }
      if (chain == null) {
        throw new IOException("addr2line output does not start with an address: " + line);
      }
      if (function) {
        chain.add(line);
      }
      function = !function;
    }
    if (chain != null) {
      out.add(chain);
    }
    if (out.size() != addresses) {
      throw new IOException(
          "addr2line answered for " + out.size() + " of " + addresses + " addresses");
    }
    return out;
  }

  // ------------------------------------------------------------------ agreement

  /**
   * How many addresses two symbolizers name alike: {whole chains of function names equal, the
   * innermost function equal, the chains equal but for the innermost name, addresses the first
   * names at all (not empty, not {@code ??})}.
   *
   * <p>The third is for addr2line: the first time a lookup in its process lands in an inlined
   * function that DWARF names without a linkage name (a {@code static inline} helper), it prints
   * the enclosing ELF symbol's name for it, and the DWARF name from then on (binutils' {@code
   * dwarf2.c}). Its answers depend on the order of the addresses; BinarySymbols gives the settled
   * answer, as llvm-symbolizer does.
   */
  static long[] agreement(Map<Path, List<List<String>>> a, Map<Path, List<List<String>>> b) {
    long chains = 0;
    long innermost = 0;
    long callers = 0;
    long named = 0;
    for (Map.Entry<Path, List<List<String>>> e : a.entrySet()) {
      List<List<String>> other = b.get(e.getKey());
      for (int i = 0; i < e.getValue().size(); i++) {
        List<String> x = e.getValue().get(i);
        List<String> y = other.get(i);
        chains += x.equals(y) ? 1 : 0;
        innermost += !x.isEmpty() && !y.isEmpty() && x.get(0).equals(y.get(0)) ? 1 : 0;
        callers +=
            x.size() == y.size()
                    && x.subList(Math.min(1, x.size()), x.size())
                        .equals(y.subList(Math.min(1, y.size()), y.size()))
                ? 1
                : 0;
        named += !x.isEmpty() && !x.get(0).equals("??") ? 1 : 0;
      }
    }
    return new long[] {chains, innermost, callers, named};
  }

  /** Up to {@code max} addresses where the chains differ, for the report. */
  List<String> differences(
      Map<Path, List<List<String>>> a, Map<Path, List<List<String>>> b, int max) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<Path, List<List<String>>> e : a.entrySet()) {
      long[] addr = addresses.get(e.getKey());
      for (int i = 0; i < e.getValue().size() && out.size() < max; i++) {
        if (!e.getValue().get(i).equals(b.get(e.getKey()).get(i))) {
          out.add(
              e.getKey().getFileName()
                  + " 0x"
                  + Long.toHexString(addr[i])
                  + ": "
                  + e.getValue().get(i)
                  + " vs "
                  + b.get(e.getKey()).get(i));
        }
      }
    }
    return out;
  }

  /** Average frames per address (inlined frames included) in a symbolizer's answers. */
  static double framesPerAddress(Map<Path, List<List<String>>> answers) {
    long frames = 0;
    long n = 0;
    for (List<List<String>> l : answers.values()) {
      for (List<String> c : l) {
        frames += c.size();
        n++;
      }
    }
    return n == 0 ? 0 : (double) frames / n;
  }
}
