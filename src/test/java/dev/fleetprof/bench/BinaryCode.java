package dev.fleetprof.bench;

import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.ElfSegment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a built binary holds, read back with binutils: its functions ({@code nm -S}), their
 * instruction boundaries and direct calls ({@code objdump -d}), and its load segments. The bench
 * fleet's frames are taken from here, so they are where the compiler put code: a leaf at an
 * instruction boundary, a caller at the return address of a call that really is in the binary.
 */
final class BinaryCode {
  /**
   * A function symbol of {@code .text} with its instructions, and its direct calls: the return
   * address (the next instruction's address) and the target as objdump names it ({@code name} or
   * {@code name@plt}) with the target's address.
   */
  record Function(
      String name,
      long start,
      long end,
      boolean global,
      long[] instructions,
      long[] callReturns,
      long[] callTargets,
      String[] callTargetNames) {}

  /** A PT_LOAD segment: link-time address and size, file offset, permissions ("r-xp"). */
  record Segment(long vaddr, long memsz, long offset, String perms) {}

  private static final Pattern NM = Pattern.compile("^([0-9a-f]+) ([0-9a-f]+) ([tTwW]) (\\S+)$");
  private static final Pattern INSN = Pattern.compile("^\\s*([0-9a-f]+):\\s+(\\S.*)$");
  private static final Pattern CALL =
      Pattern.compile("^call\\s+([0-9a-f]+) <([^>+]+)(\\+0x[0-9a-f]+)?>");

  final Path path;
  final List<Function> functions;
  final List<Segment> loads;

  /** Position-independent (ET_DYN): loaded at a bias chosen at run time. */
  final boolean relocatable;

  private final TreeMap<Long, Function> byStart = new TreeMap<>();

  private BinaryCode(
      Path path, List<Function> functions, List<Segment> loads, boolean relocatable) {
    this.path = path;
    this.functions = functions;
    this.loads = loads;
    this.relocatable = relocatable;
    for (Function f : functions) {
      byStart.put(f.start(), f);
    }
  }

  Function at(long start) {
    return byStart.get(start);
  }

  /** The function whose [start, end) holds {@code vaddr}, or null. */
  Function containing(long vaddr) {
    Map.Entry<Long, Function> e = byStart.floorEntry(vaddr);
    return e != null && vaddr < e.getValue().end() ? e.getValue() : null;
  }

  /** The bytes of address space the load segments take. */
  long span() {
    long lo = Long.MAX_VALUE;
    long hi = 0;
    for (Segment s : loads) {
      lo = Math.min(lo, s.vaddr() & ~0xfffL);
      hi = Math.max(hi, s.vaddr() + s.memsz());
    }
    return hi - lo;
  }

  /** The file offset of a code address: through the executable load segment that holds it. */
  long fileOffset(long vaddr) {
    for (Segment s : loads) {
      if (s.perms().contains("x") && vaddr >= s.vaddr() && vaddr < s.vaddr() + s.memsz()) {
        return vaddr - s.vaddr() + s.offset();
      }
    }
    throw new IllegalArgumentException(
        String.format("0x%x is in no executable segment of %s", vaddr, path));
  }

  /** The code address of a file offset: through the executable load segment that holds it. */
  long vaddr(long fileOffset) {
    for (Segment s : loads) {
      if (s.perms().contains("x")
          && fileOffset >= s.offset()
          && fileOffset < s.offset() + s.memsz()) {
        return fileOffset - s.offset() + s.vaddr();
      }
    }
    throw new IllegalArgumentException(
        String.format("offset 0x%x is in no executable segment of" + " %s", fileOffset, path));
  }

  /** Instructions in every function of the binary. */
  long instructionCount() {
    return functions.stream().mapToLong(f -> f.instructions().length).sum();
  }

  static BinaryCode read(Path binary) throws IOException, InterruptedException {
    TreeMap<Long, Object[]> symbols = new TreeMap<>();
    for (String line : run(List.of("nm", "-S", "--defined-only", binary.toString()))) {
      Matcher m = NM.matcher(line);
      if (m.matches() && Long.parseUnsignedLong(m.group(2), 16) > 0) {
        long start = Long.parseUnsignedLong(m.group(1), 16);
        long size = Long.parseUnsignedLong(m.group(2), 16);
        boolean global = Character.isUpperCase(m.group(3).charAt(0));
        // Aliases at one address: keep the global name, the one other modules call.
        Object[] prev = symbols.get(start);
        if (prev == null || (!(Boolean) prev[2] && global)) {
          symbols.put(start, new Object[] {m.group(4), size, global});
        }
      }
    }
    Map<Long, List<long[]>> insns = new HashMap<>();
    Map<Long, List<String>> callNames = new HashMap<>();
    List<String> dis =
        run(List.of("objdump", "-d", "-w", "--no-show-raw-insn", "-j", ".text", binary.toString()));
    // Pending call: its function's start, its target and name, waiting for the next address.
    long[] pending = null;
    String pendingName = null;
    for (String line : dis) {
      Matcher m = INSN.matcher(line);
      if (!m.matches()) {
        continue;
      }
      long addr = Long.parseUnsignedLong(m.group(1), 16);
      Map.Entry<Long, Object[]> sym = symbols.floorEntry(addr);
      if (pending != null) {
        insns.get(pending[0]).add(new long[] {pending[1], addr, pending[2]});
        callNames.get(pending[0]).add(pendingName);
        pending = null;
      }
      if (sym == null || addr >= sym.getKey() + (Long) sym.getValue()[1]) {
        continue; // padding between functions
      }
      long start = sym.getKey();
      insns.computeIfAbsent(start, k -> new ArrayList<>()).add(new long[] {addr});
      callNames.computeIfAbsent(start, k -> new ArrayList<>());
      Matcher c = CALL.matcher(m.group(2));
      if (c.find() && c.group(3) == null) {
        pending = new long[] {start, addr, Long.parseUnsignedLong(c.group(1), 16)};
        pendingName = c.group(2);
      }
    }
    List<Function> functions = new ArrayList<>();
    for (Map.Entry<Long, List<long[]>> e : new TreeMap<>(insns).entrySet()) {
      Object[] sym = symbols.get(e.getKey());
      List<Long> at = new ArrayList<>();
      List<long[]> calls = new ArrayList<>();
      for (long[] i : e.getValue()) {
        if (i.length == 1) {
          at.add(i[0]);
        } else {
          calls.add(i);
        }
      }
      List<String> names = callNames.get(e.getKey());
      functions.add(
          new Function(
              (String) sym[0],
              e.getKey(),
              e.getKey() + (Long) sym[1],
              (Boolean) sym[2],
              at.stream().mapToLong(Long::longValue).toArray(),
              calls.stream().mapToLong(c -> c[1]).toArray(),
              calls.stream().mapToLong(c -> c[2]).toArray(),
              names.toArray(new String[0])));
    }
    List<Segment> loads = new ArrayList<>();
    boolean relocatable;
    try (ElfFile elf = ElfFile.open(binary)) {
      relocatable = elf.type() == ElfFile.ET_DYN;
      for (ElfSegment s : elf.segments()) {
        if (s.isLoad()) {
          loads.add(
              new Segment(
                  s.vaddr(),
                  s.memsz(),
                  s.offset(),
                  ((s.flags() & ElfSegment.PF_R) != 0 ? "r" : "-")
                      + ((s.flags() & ElfSegment.PF_W) != 0 ? "w" : "-")
                      + ((s.flags() & ElfSegment.PF_X) != 0 ? "x" : "-")
                      + "p"));
        }
      }
    }
    return new BinaryCode(binary, List.copyOf(functions), List.copyOf(loads), relocatable);
  }

  /** A command's standard output, line by line; fails on a non-zero exit. */
  static List<String> run(List<String> cmd) throws IOException, InterruptedException {
    Path err = Files.createTempFile("bench-cmd", ".err");
    try {
      Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
      List<String> lines = new ArrayList<>();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String l; (l = r.readLine()) != null; ) {
          lines.add(l);
        }
      }
      if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " failed: " + Files.readString(err));
      }
      return lines;
    } finally {
      Files.deleteIfExists(err);
    }
  }
}
