package dev.fleetprof.bench;

import dev.fleetprof.bench.StackPoolProfiles.Written;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The bench fleet: gperftools profiles of processes of the {@link BenchPrograms} (most hosts run
 * {@code fleet-server}, every fifth {@code fleet-batch}, both with the three libraries), whose maps
 * text names the binaries at their install paths ({@code /opt/fleet/...}, which do not exist here:
 * the job finds them only through {@code --binaries}, by base name) and whose frames are real code.
 *
 * <p>Each program has a pool of distinct call chains, walked up the binaries' real call graph
 * ({@link BinaryCode}): a leaf at an instruction boundary of a function (most often one of a few
 * hot instructions of it), then for each caller the return address of a call instruction that calls
 * the frame below, up to {@code main}; recursive functions tend to recur. A few chains end in an
 * anonymous executable region (JIT code) and a few in a pc outside every mapping (a lost unwind),
 * as real ones do. Records draw chains from the pool with a skew toward a few hot ones.
 */
final class BinaryFleet {
  /** Distinct chains of each program: fleet-server, fleet-batch. */
  static final int SERVER_CHAINS = 4_000;

  static final int BATCH_CHAINS = 1_000;

  private static final long ANON_SPAN = 0x100000L;
  private static final int MAX_DEPTH = 254;

  /** A program as its processes map it: the executable, then its libraries. */
  static final class Program {
    final String name;
    final List<BinaryCode> modules;
    final List<String> paths;
    final StackPoolProfiles pool;

    Program(String name, List<BinaryCode> modules, List<String> paths, int chains, long seed) {
      this.name = name;
      this.modules = modules;
      this.paths = paths;
      this.pool = new ChainWalker(modules, new SplittableRandom(seed)).pool(chains, this::maps);
    }

    /** The anonymous region's module index. */
    int anon() {
      return modules.size();
    }

    /** Load biases of one process (ASLR): the executable's, each library's, the JIT region's. */
    long[] bases(long processSeed) {
      SplittableRandom rnd = new SplittableRandom(processSeed);
      long[] b = new long[modules.size() + 1];
      long lib = 0x7f0000000000L + (rnd.nextLong(0x4000) << 20);
      for (int m = 0; m < modules.size(); m++) {
        BinaryCode c = modules.get(m);
        if (!c.relocatable) {
          b[m] = 0;
        } else if (m == 0) {
          b[m] = 0x550000000000L + (rnd.nextLong(0x8000) << 20);
        } else {
          b[m] = lib;
          lib += (c.span() + 0x200000L) & ~0x1fffffL;
        }
      }
      b[anon()] = 0x7f8000000000L + (rnd.nextLong(0x4000) << 20);
      return b;
    }

    /** /proc/self/maps of a process with these bases, as gperftools appends it. */
    String maps(long[] bases) {
      List<long[]> starts = new ArrayList<>();
      List<String> lines = new ArrayList<>();
      for (int m = 0; m < modules.size(); m++) {
        BinaryCode c = modules.get(m);
        for (BinaryCode.Segment s : c.loads) {
          long start = bases[m] + (s.vaddr() & ~0xfffL);
          long end = bases[m] + ((s.vaddr() + s.memsz() + 0xfff) & ~0xfffL);
          lines.add(
              String.format(
                  Locale.ROOT,
                  "%x-%x %s %08x fd:01 %d %s",
                  start,
                  end,
                  s.perms(),
                  s.offset() & ~0xfffL,
                  400_000 + m * 17,
                  paths.get(m)));
          starts.add(new long[] {start, lines.size() - 1});
        }
      }
      long a = bases[anon()];
      lines.add(String.format(Locale.ROOT, "%x-%x rwxp 00000000 00:00 0 ", a, a + ANON_SPAN));
      starts.add(new long[] {a, lines.size() - 1});
      StringBuilder sb = new StringBuilder();
      starts.stream()
          .sorted((x, y) -> Long.compareUnsigned(x[0], y[0]))
          .forEach(s -> sb.append(lines.get((int) s[1])).append('\n'));
      String pad = " ".repeat(26);
      sb.append("7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0").append(pad).append("[stack]\n");
      sb.append("7ffc00023000-7ffc00025000 r-xp 00000000 00:00 0").append(pad).append("[vdso]\n");
      return sb.toString();
    }
  }

  private final List<Program> programs;

  /**
   * @param binaries the built {@link BenchPrograms}, by file name
   */
  BinaryFleet(Map<String, BinaryCode> binaries, long seed) {
    List<String> libs = List.of("libfleetcore.so", "libfleetcodec.so", "libfleetio.so");
    programs = new ArrayList<>();
    for (String exe : List.of("fleet-server", "fleet-batch")) {
      List<BinaryCode> modules = new ArrayList<>();
      List<String> paths = new ArrayList<>();
      for (String f : concat(exe, libs)) {
        modules.add(binaries.get(f));
        paths.add(BenchPrograms.spec(f).mapsPath());
      }
      programs.add(
          new Program(
              exe,
              modules,
              paths,
              exe.equals("fleet-server") ? SERVER_CHAINS : BATCH_CHAINS,
              seed + programs.size()));
    }
  }

  List<Program> programs() {
    return programs;
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> out = new ArrayList<>();
    out.add(first);
    out.addAll(rest);
    return out;
  }

  /** The program host {@code host} runs: every fifth host a batch one. */
  Program programOf(int host) {
    return programs.get(host % 5 == 4 ? 1 : 0);
  }

  /**
   * Writes {@code files} profiles of 10-60 KB (one per host and date, each process with its own
   * bases) under {@code root}; returns the totals, with the distinct binary locations written.
   */
  Written writeFleet(Path root, int files, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    int dates = fleetDates(files);
    long bytes = 0;
    long records = 0;
    long counts = 0;
    for (int i = 0; i < files; i++) {
      Path f = fleetFile(root, i, dates);
      Files.createDirectories(f.getParent());
      Program p = programOf(i / dates);
      Written w =
          p.pool.write(f, 10_000 + rnd.nextInt(50_000), p.bases(rnd.nextLong()), rnd.nextLong());
      bytes += w.bytes();
      records += w.records();
      counts += w.countSum();
    }
    return new Written(bytes, records, counts, binaryLocations().size());
  }

  /**
   * The distinct (module path, file offset) locations in the binaries that written profiles hold,
   * as the fleet job names locations: a caller frame at its return address minus one.
   */
  Set<String> binaryLocations() {
    Set<String> out = new HashSet<>();
    for (Program p : programs) {
      BitSet used = p.pool.used();
      for (int s = used.nextSetBit(0); s >= 0; s = used.nextSetBit(s + 1)) {
        byte[] m = p.pool.modules(s);
        long[] off = p.pool.offsets(s);
        for (int i = 0; i < m.length; i++) {
          if (m[i] >= 0 && m[i] < p.anon()) {
            long fileOffset = p.modules.get(m[i]).fileOffset(off[i]);
            out.add(p.paths.get(m[i]) + "+" + Long.toHexString(fileOffset - (i > 0 ? 1 : 0)));
          }
        }
      }
    }
    return out;
  }

  /** Where a fleet's profiles live: {@code date=2026-11-1D/host=webNNN/cpu.prof}. */
  static Path fleetFile(Path root, int index, int dates) {
    int date = index % dates;
    int host = index / dates;
    return root.resolve("date=2026-11-" + (10 + date))
        .resolve(String.format("host=web%03d", host))
        .resolve("cpu.prof");
  }

  /** Dates in a fleet of {@code files} profiles: 10 (one per host and date), fewer if small. */
  static int fleetDates(int files) {
    return files >= 1000 ? 10 : Math.max(1, files / 100);
  }

  /** Walks call chains up a program's call graph, as read from its binaries. */
  static final class ChainWalker {
    private final List<BinaryCode> modules;
    private final SplittableRandom rnd;

    /** Every function of the program's own code: module index and function. */
    private final List<Integer> nodeModule = new ArrayList<>();

    private final List<BinaryCode.Function> nodeFunction = new ArrayList<>();

    /** The function whose callers a node's frames have: itself, or the parent of a .cold part. */
    private int[] callersOf;

    /** Call sites calling each node: caller node and return address. */
    private final List<List<long[]>> sites = new ArrayList<>();

    private BitSet reachable;
    private int[][] hot;

    ChainWalker(List<BinaryCode> modules, SplittableRandom rnd) {
      this.modules = modules;
      this.rnd = rnd;
      index();
    }

    /** Whether a function is the generated code's (not the C runtime's start-up code). */
    static boolean generated(String name) {
      String n = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
      return n.equals("main") || n.contains("fleet") || n.matches("(fio|codec|batch)_.*");
    }

    private void index() {
      Map<String, Integer> byKey = new HashMap<>();
      Map<String, Integer> global = new HashMap<>();
      for (int m = 0; m < modules.size(); m++) {
        for (BinaryCode.Function f : modules.get(m).functions) {
          if (!generated(f.name())) {
            continue;
          }
          int id = nodeFunction.size();
          nodeModule.add(m);
          nodeFunction.add(f);
          sites.add(new ArrayList<>());
          byKey.put(m + ":" + f.start(), id);
          byKey.putIfAbsent(m + ":" + f.name(), id);
          if (f.global()) {
            global.putIfAbsent(f.name(), id);
          }
        }
      }
      int n = nodeFunction.size();
      callersOf = new int[n];
      List<List<Integer>> callees = new ArrayList<>();
      for (int id = 0; id < n; id++) {
        callees.add(new ArrayList<>());
        String name = nodeFunction.get(id).name();
        int cold = name.indexOf(".cold");
        Integer parent =
            cold > 0 ? byKey.get(nodeModule.get(id) + ":" + name.substring(0, cold)) : null;
        callersOf[id] = parent != null ? parent : id;
      }
      for (int id = 0; id < n; id++) {
        BinaryCode.Function f = nodeFunction.get(id);
        int m = nodeModule.get(id);
        for (int c = 0; c < f.callReturns().length; c++) {
          String target = f.callTargetNames()[c];
          Integer callee =
              target.endsWith("@plt")
                  ? global.get(target.substring(0, target.length() - 4))
                  : byKey.get(m + ":" + f.callTargets()[c]);
          if (callee != null) {
            sites.get(callee).add(new long[] {id, f.callReturns()[c]});
            callees.get(id).add(callee);
          }
        }
      }
      // Only code a thread of the program can be in: what main reaches (a library function only
      // another program calls has no caller here).
      reachable = new BitSet(n);
      List<Integer> todo = new ArrayList<>();
      for (int id = 0; id < n; id++) {
        if (nodeModule.get(id) == 0 && nodeFunction.get(id).name().equals("main")) {
          reachable.set(id);
          todo.add(id);
        }
      }
      while (!todo.isEmpty()) {
        int id = todo.remove(todo.size() - 1);
        for (int c : callees.get(id)) {
          if (!reachable.get(c)) {
            reachable.set(c);
            todo.add(c);
          }
        }
      }
      for (int id = 0; id < n; id++) {
        if (callersOf[id] != id && reachable.get(callersOf[id])) {
          reachable.set(id);
        }
      }
      hot = new int[n][];
      for (int id = 0; id < n; id++) {
        int len = nodeFunction.get(id).instructions().length;
        hot[id] = new int[1 + rnd.nextInt(3)];
        for (int h = 0; h < hot[id].length; h++) {
          hot[id][h] = rnd.nextInt(len);
        }
      }
    }

    /** A pool of {@code chains} distinct chains, placed by {@code maps}. */
    StackPoolProfiles pool(int chains, java.util.function.Function<long[], String> maps) {
      int[] leaves = reachable.stream().toArray();
      if (leaves.length == 0) {
        throw new IllegalStateException(
            "no function reachable from main in " + modules.get(0).path);
      }
      // A random order of the leaves, so that the hot ones are spread over the modules.
      for (int i = leaves.length - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        int t = leaves[i];
        leaves[i] = leaves[j];
        leaves[j] = t;
      }
      long[] jit = new long[200];
      for (int i = 0; i < jit.length; i++) {
        jit[i] = rnd.nextLong(ANON_SPAN);
      }
      int anon = modules.size();
      Set<Chain> seen = new HashSet<>();
      byte[][] mods = new byte[chains][];
      long[][] offs = new long[chains][];
      int made = 0;
      for (int attempt = 0; made < chains && attempt < chains * 50; attempt++) {
        double u = rnd.nextDouble();
        int leaf = leaves[(int) (leaves.length * u * u)];
        List<long[]> frames = new ArrayList<>();
        BinaryCode.Function lf = nodeFunction.get(leaf);
        int insn =
            rnd.nextInt(100) < 70
                ? hot[leaf][rnd.nextInt(hot[leaf].length)]
                : rnd.nextInt(lf.instructions().length);
        frames.add(new long[] {nodeModule.get(leaf), lf.instructions()[insn]});
        int at = leaf;
        while (frames.size() < MAX_DEPTH) {
          long[] site = caller(at);
          if (site == null) {
            break;
          }
          at = (int) site[0];
          frames.add(new long[] {nodeModule.get(at), site[1]});
        }
        int r = rnd.nextInt(100);
        if (r < 5) {
          for (int j = 1 + rnd.nextInt(4); j > 0 && frames.size() < MAX_DEPTH; j--) {
            frames.add(new long[] {anon, jit[rnd.nextInt(jit.length)]});
          }
        } else if (r < 7 && frames.size() < MAX_DEPTH) {
          frames.add(new long[] {StackPoolProfiles.UNMAPPED, 0x1000L + rnd.nextInt(0x10000)});
        }
        byte[] m = new byte[frames.size()];
        long[] o = new long[frames.size()];
        for (int i = 0; i < m.length; i++) {
          m[i] = (byte) frames.get(i)[0];
          o[i] = frames.get(i)[1];
        }
        if (seen.add(new Chain(m, o))) {
          mods[made] = m;
          offs[made] = o;
          made++;
        }
      }
      if (made < chains) {
        throw new IllegalStateException("only " + made + " distinct chains of " + chains);
      }
      return new StackPoolProfiles(mods, offs, maps);
    }

    /**
     * A call site calling the function of node {@code at} from code main reaches: a recursive
     * function's own call more often than not; null at a root.
     */
    private long[] caller(int at) {
      List<long[]> all = sites.get(callersOf[at]);
      List<long[]> self = new ArrayList<>();
      List<long[]> other = new ArrayList<>();
      for (long[] s : all) {
        if (!reachable.get((int) s[0])) {
          continue;
        }
        (callersOf[(int) s[0]] == callersOf[at] ? self : other).add(s);
      }
      if (!self.isEmpty() && (other.isEmpty() || rnd.nextInt(100) < 70)) {
        return self.get(rnd.nextInt(self.size()));
      }
      return other.isEmpty() ? null : other.get(rnd.nextInt(other.size()));
    }
  }

  /** A chain as a set member. */
  private record Chain(byte[] modules, long[] offsets) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Chain c
          && Arrays.equals(modules, c.modules)
          && Arrays.equals(offsets, c.offsets);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(modules) * 31 + Arrays.hashCode(offsets);
    }
  }
}
