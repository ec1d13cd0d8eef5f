package dev.fleetprof.symbols.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.dwarf.DwarfSections;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The symbols tests' reference tools: builds test programs with gcc and parses what binutils'
 * readelf, nm, objdump, objcopy, addr2line and c++filt (and llvm-symbolizer in GNU style) say about
 * them, so that expected values come from the real tools.
 *
 * <p>Every method takes the test's work directory {@code dir}: tools run with {@code dir/home} as
 * their HOME, in the C locale and without debuginfod downloads, and scratch files go below {@code
 * dir}. A tool that exits non-zero fails the test.
 */
public final class Toolchain {
  private Toolchain() {}

  /** Environment for every tool: no debuginfod downloads, C locale output. */
  public static final Map<String, String> ENV = Map.of("DEBUGINFOD_URLS", "", "LC_ALL", "C");

  private static final long TIMEOUT_SECONDS = 600;

  /** gcc and the binutils the tests run; skips (or fails under CI) naming what is missing. */
  public static void requireBinutils() {
    ExternalTool.require("gcc", "gcc");
    ExternalTool.require("readelf", "binutils");
    ExternalTool.require("objcopy", "binutils");
    ExternalTool.require("objdump", "binutils");
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("nm", "binutils");
    ExternalTool.require("strip", "binutils");
  }

  /** Whether {@code tool} is an executable on PATH (for optional tools such as clang). */
  public static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d.isEmpty() ? "." : d, tool))) {
        return true;
      }
    }
    return false;
  }

  // ---- running ----

  /** Runs a command, failing the test unless it exits 0; returns its standard output. */
  public static String run(Path dir, List<String> command)
      throws IOException, InterruptedException {
    return check(command, tryRun(dir, command)).stdout();
  }

  /** Runs a command whatever its exit status. */
  public static ExternalTool.Result tryRun(Path dir, List<String> command)
      throws IOException, InterruptedException {
    return ExternalTool.run(command, dir.resolve("home"), ENV, TIMEOUT_SECONDS);
  }

  private static ExternalTool.Result check(List<String> command, ExternalTool.Result r) {
    if (r.exit() != 0) {
      fail(String.join(" ", command) + " exited " + r.exit() + ": " + r.stderr());
    }
    return r;
  }

  /** Runs a shell script (for redirections), failing the test unless it exits 0. */
  public static String sh(Path dir, String script) throws IOException, InterruptedException {
    return run(dir, List.of("sh", "-c", script));
  }

  /** {@code p} quoted for a shell script. */
  public static String q(Path p) {
    return "'" + p.toString().replace("'", "'\\''") + "'";
  }

  /** A new file in {@code dir} with one address a line, as {@code 0x...}: a tool's input. */
  public static Path addressFile(Path dir, List<Long> addresses) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (long a : addresses) {
      sb.append("0x").append(Long.toHexString(a)).append('\n');
    }
    Files.createDirectories(dir);
    Path file = Files.createTempFile(dir, "addrs", ".txt");
    Files.writeString(file, sb);
    return file;
  }

  /** Compiles a C source with gcc and the given flags into {@code dir/name}. */
  public static Path gcc(Path dir, String name, String source, String... flags)
      throws IOException, InterruptedException {
    Path src = dir.resolve(name + ".c");
    Files.writeString(src, source);
    Path out = dir.resolve(name);
    List<String> cmd = new ArrayList<>(List.of("gcc"));
    cmd.addAll(Arrays.asList(flags));
    cmd.addAll(List.of("-o", out.toString(), src.toString()));
    run(dir, cmd);
    return out;
  }

  /** Copies the test resources {@code resourceDir/f} (e.g. "dwarf/c") to {@code dir/f}. */
  public static void copyResources(String resourceDir, Path dir, String... files)
      throws IOException {
    for (String f : files) {
      Path target = dir.resolve(f);
      Files.createDirectories(target.getParent());
      try (InputStream in = Toolchain.class.getResourceAsStream("/" + resourceDir + "/" + f)) {
        if (in == null) {
          throw new IOException("missing test resource " + resourceDir + "/" + f);
        }
        Files.copy(in, target);
      }
    }
  }

  // ---- readelf -hW ----

  public record Header(boolean is64, boolean littleEndian, String type, String machine) {
    public ByteOrder order() {
      return littleEndian ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }
  }

  public static Header header(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-hW", bin.toString()));
    return new Header(
        field(out, "Class").equals("ELF64"),
        field(out, "Data").contains("little endian"),
        field(out, "Type").split(" ")[0],
        field(out, "Machine"));
  }

  private static String field(String out, String name) {
    Matcher m = Pattern.compile("^\\s*" + name + ":\\s*(.*?)\\s*$", Pattern.MULTILINE).matcher(out);
    if (!m.find()) {
      fail("readelf -h printed no " + name + ":\n" + out);
    }
    return m.group(1);
  }

  // ---- readelf -lW ----

  public record Segment(
      int type, String typeName, long offset, long vaddr, long filesz, long memsz, int flags) {}

  private static final Map<String, Integer> SEGMENT_TYPES =
      Map.ofEntries(
          Map.entry("NULL", 0),
          Map.entry("LOAD", 1),
          Map.entry("DYNAMIC", 2),
          Map.entry("INTERP", 3),
          Map.entry("NOTE", 4),
          Map.entry("SHLIB", 5),
          Map.entry("PHDR", 6),
          Map.entry("TLS", 7),
          Map.entry("GNU_EH_FRAME", 0x6474e550),
          Map.entry("GNU_STACK", 0x6474e551),
          Map.entry("GNU_RELRO", 0x6474e552),
          Map.entry("GNU_PROPERTY", 0x6474e553));

  private static final Pattern SEGMENT =
      Pattern.compile(
          "^\\s+(\\S+)\\s+0x([0-9a-f]+)\\s+"
              + "0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s([RWE ]{3})\\s+"
              + "(?:0x)?([0-9a-f]+)$",
          Pattern.MULTILINE);

  public static List<Segment> segments(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-lW", bin.toString()));
    List<Segment> segs = new ArrayList<>();
    Matcher m = SEGMENT.matcher(out);
    while (m.find()) {
      String name = m.group(1);
      Integer type = SEGMENT_TYPES.get(name);
      if (type == null) {
        if (name.startsWith("LOOS+0x")) {
          type = 0x60000000 + Integer.parseInt(name.substring(7), 16);
        } else {
          fail("unknown readelf segment type " + name);
        }
      }
      String f = m.group(7);
      int flags =
          (f.charAt(0) == 'R' ? 4 : 0)
              | (f.charAt(1) == 'W' ? 2 : 0)
              | (f.charAt(2) == 'E' ? 1 : 0);
      segs.add(
          new Segment(
              type,
              name,
              hex(m.group(2)),
              hex(m.group(3)),
              hex(m.group(5)),
              hex(m.group(6)),
              flags));
    }
    if (!out.contains("There are no program headers")) {
      Matcher count = Pattern.compile("There (?:are|is) (\\d+) program headers?").matcher(out);
      if (count.find()) {
        assertEquals(Integer.parseInt(count.group(1)), segs.size(), "parsed readelf -lW:\n" + out);
      }
    }
    return segs;
  }

  // ---- readelf -SW ----

  public record Section(
      int index,
      String name,
      String typeName,
      long addr,
      long offset,
      long size,
      long flags,
      int link,
      int info,
      long align) {}

  public static final Map<String, Integer> SECTION_TYPES =
      Map.ofEntries(
          Map.entry("NULL", 0),
          Map.entry("PROGBITS", 1),
          Map.entry("SYMTAB", 2),
          Map.entry("STRTAB", 3),
          Map.entry("RELA", 4),
          Map.entry("HASH", 5),
          Map.entry("DYNAMIC", 6),
          Map.entry("NOTE", 7),
          Map.entry("NOBITS", 8),
          Map.entry("REL", 9),
          Map.entry("DYNSYM", 11),
          Map.entry("INIT_ARRAY", 14),
          Map.entry("FINI_ARRAY", 15),
          Map.entry("PREINIT_ARRAY", 16),
          Map.entry("GROUP", 17),
          Map.entry("GNU_HASH", 0x6ffffff6),
          Map.entry("VERSYM", 0x6fffffff),
          Map.entry("VERNEED", 0x6ffffffe),
          Map.entry("VERDEF", 0x6ffffffd),
          Map.entry("X86_64_UNWIND", 0x70000001),
          Map.entry("LLVM_ADDRSIG", 0x6fff4c03),
          Map.entry("GNU_ATTRIBUTES", 0x6ffffff5),
          Map.entry("RELR", 19));

  private static final String FLAG_LETTERS = "WAXxMSILOGTC";
  private static final long[] FLAG_BITS = {
    0x1, 0x2, 0x4, -1, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800
  };

  private static long flagMask(String letters) {
    long mask = 0;
    for (char c : letters.toCharArray()) {
      switch (c) {
        case 'E' -> mask |= 0x80000000L;
        case 'R' -> mask |= 0x200000L;
        default -> {
          int i = FLAG_LETTERS.indexOf(c);
          if (i < 0 || FLAG_BITS[i] < 0) {
            fail("unexpected readelf section flag " + c);
          }
          mask |= FLAG_BITS[i];
        }
      }
    }
    return mask;
  }

  public static List<Section> sections(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-SW", bin.toString()));
    List<Section> secs = new ArrayList<>();
    Pattern line = Pattern.compile("^\\s*\\[\\s*(\\d+)\\]\\s(.*)$");
    for (String l : out.split("\n")) {
      Matcher m = line.matcher(l);
      if (!m.find() || m.group(1).isEmpty()) {
        continue;
      }
      List<String> t = new ArrayList<>(Arrays.asList(m.group(2).trim().split("\\s+")));
      int align = Integer.parseInt(t.remove(t.size() - 1));
      int info = Integer.parseInt(t.remove(t.size() - 1));
      int link = Integer.parseInt(t.remove(t.size() - 1));
      String flags = "";
      if (!t.get(t.size() - 1).matches("[0-9a-f]+")) {
        flags = t.remove(t.size() - 1);
      }
      t.remove(t.size() - 1); // entsize
      long size = hex(t.remove(t.size() - 1));
      long off = hex(t.remove(t.size() - 1));
      long addr = hex(t.remove(t.size() - 1));
      String type = t.remove(t.size() - 1);
      String name = String.join(" ", t);
      secs.add(
          new Section(
              Integer.parseInt(m.group(1)),
              name,
              type,
              addr,
              off,
              size,
              flagMask(flags),
              link,
              info,
              align));
    }
    return secs;
  }

  // ---- readelf -n ----

  public static String buildId(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-n", bin.toString()));
    Matcher m = Pattern.compile("Build ID: ([0-9a-f]+)").matcher(out);
    return m.find() ? m.group(1) : null;
  }

  // ---- readelf -x ----

  /** A section's bytes from {@code readelf -x NAME} (fixed columns: 4 groups of 4 bytes a line). */
  public static byte[] hexDump(Path dir, Path bin, String section) throws Exception {
    String out = sh(dir, "readelf -x " + section + " " + q(bin) + " | LC_ALL=C tr -c '\\n -~' '.'");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (String l : out.split("\n")) {
      if (!l.startsWith("  0x")) {
        continue;
      }
      String groups = l.substring(13, Math.min(l.length(), 13 + 35));
      for (String g : groups.trim().split("\\s+")) {
        for (int i = 0; i + 2 <= g.length(); i += 2) {
          bytes.write(Integer.parseInt(g.substring(i, i + 2), 16));
        }
      }
    }
    return bytes.toByteArray();
  }

  // ---- objcopy ----

  /**
   * The sections whose names {@code wanted} accepts, decompressed by {@code objcopy
   * --decompress-debug-sections} and dumped with {@code --dump-section}, in section header order.
   * {@code objcopyInput} goes before the other options (e.g. {@code -I elf64-big}).
   */
  public static Map<String, byte[]> decompressedSections(
      Path dir, Path bin, List<String> objcopyInput, Predicate<String> wanted) throws Exception {
    Files.createDirectories(dir);
    Path work = Files.createTempDirectory(dir, "sections");
    Path plain = work.resolve("plain");
    List<String> decompress = new ArrayList<>(List.of("objcopy"));
    decompress.addAll(objcopyInput);
    decompress.addAll(List.of("--decompress-debug-sections", bin.toString(), plain.toString()));
    run(dir, decompress);
    Map<String, Path> files = new LinkedHashMap<>();
    List<String> dump = new ArrayList<>(List.of("objcopy"));
    dump.addAll(objcopyInput);
    for (Section s : sections(dir, plain)) {
      if (s.index() != 0 && wanted.test(s.name()) && !files.containsKey(s.name())) {
        Path f = work.resolve(files.size() + ".bin");
        files.put(s.name(), f);
        dump.add("--dump-section");
        dump.add(s.name() + "=" + f);
      }
    }
    dump.add(plain.toString());
    dump.add(work.resolve("ignored").toString());
    run(dir, dump);
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Map.Entry<String, Path> e : files.entrySet()) {
      out.put(e.getKey(), Files.readAllBytes(e.getValue()));
    }
    return out;
  }

  /** The binary's decompressed DWARF sections, as objcopy extracts them. */
  public static DwarfSections dwarfSections(Path dir, Path bin) throws Exception {
    Set<String> names = Set.of(DwarfSections.NAMES);
    Map<String, ByteBuffer> map = new HashMap<>();
    decompressedSections(dir, bin, List.of(), names::contains)
        .forEach((name, bytes) -> map.put(name, ByteBuffer.wrap(bytes)));
    return DwarfSections.of(map, header(dir, bin).order());
  }

  // ---- nm ----

  public record NmSymbol(long value, long size, char type, String name) {}

  /** {@code nm -S --defined-only} (add "-D" for the dynamic table). */
  public static List<NmSymbol> nm(Path dir, Path bin, String... extra) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("nm", "-S", "--defined-only"));
    cmd.addAll(Arrays.asList(extra));
    cmd.add(bin.toString());
    String out = run(dir, cmd);
    List<NmSymbol> syms = new ArrayList<>();
    Pattern p = Pattern.compile("^([0-9a-f]+)(?: ([0-9a-f]+))? (\\S) (\\S+)$");
    for (String l : out.split("\n")) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        syms.add(
            new NmSymbol(
                hex(m.group(1)),
                m.group(2) == null ? 0 : hex(m.group(2)),
                m.group(3).charAt(0),
                m.group(4)));
      }
    }
    return syms;
  }

  // ---- llvm-symbolizer ----

  /** llvm-symbolizer's function name (null for none) and that symbol's start (null for none). */
  public record LlvmName(String name, Long start) {}

  private static final Pattern LLVM_FUNCTION =
      Pattern.compile("\"FunctionName\":\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern LLVM_START = Pattern.compile("\"StartAddress\":\"(0x[0-9a-f]+)?\"");

  /**
   * {@code llvm-symbolizer --obj=BIN --no-demangle --output-style=JSON} for each address, names as
   * the binary stores them; with {@code --debug-file-directory=/nonexistent}, so that installed
   * Debian debug files (libc6-dbg) do not replace the binary's own symbol table.
   */
  public static List<LlvmName> llvmSymbolizerNames(Path dir, Path bin, List<Long> addresses)
      throws Exception {
    Path in = addressFile(dir, addresses);
    String out =
        sh(
            dir,
            "llvm-symbolizer --obj="
                + q(bin)
                + " --no-demangle --output-style=JSON --debug-file-directory=/nonexistent < "
                + q(in));
    List<LlvmName> names = new ArrayList<>(addresses.size());
    for (String line : out.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Matcher f = LLVM_FUNCTION.matcher(line);
      Matcher s = LLVM_START.matcher(line);
      if (!f.find() || !s.find()) {
        fail("llvm-symbolizer printed " + line);
      }
      String name = f.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
      names.add(
          new LlvmName(
              name.isEmpty() ? null : name,
              s.group(1) == null ? null : hex(s.group(1).substring(2))));
    }
    assertEquals(addresses.size(), names.size(), "one llvm-symbolizer answer per address");
    return names;
  }

  // ---- objdump -d ----

  private static final Pattern INSN = Pattern.compile("^\\s+([0-9a-f]+):\\t");

  /**
   * Every instruction start objdump -d disassembles and the byte before each (where a return
   * address minus one lands), then, while fewer than {@code atLeast}, every byte of .text.
   */
  public static List<Long> instructionAddresses(Path dir, Path bin, int atLeast) throws Exception {
    String out = run(dir, List.of("objdump", "-d", "--no-show-raw-insn", bin.toString()));
    Set<Long> set = new LinkedHashSet<>();
    for (String line : out.split("\n")) {
      Matcher m = INSN.matcher(line);
      if (m.find()) {
        long a = Long.parseUnsignedLong(m.group(1), 16);
        set.add(a);
        set.add(a - 1);
      }
    }
    if (set.size() < atLeast) {
      for (Section s : sections(dir, bin)) {
        if (s.name().equals(".text")) {
          for (long a = s.addr(); a < s.addr() + s.size() && set.size() < atLeast; a++) {
            set.add(a);
          }
        }
      }
    }
    return new ArrayList<>(set);
  }

  // ---- addr2line -f (symbols only) ----

  /** What {@code addr2line -f} prints for an address: a function ("??" for none) and a file. */
  public record Addr2lineName(String function, String file) {}

  /**
   * {@code addr2line -f -e BIN} for each address, fed in the order given through standard input;
   * returns the function name per address ("??" when none).
   */
  public static Map<Long, String> addr2lineFunctions(Path dir, Path bin, List<Long> addresses)
      throws Exception {
    Map<Long, String> names = new HashMap<>();
    addr2lineNames(dir, bin, addresses).forEach((a, n) -> names.put(a, n.function()));
    return names;
  }

  /** The same, with the file addr2line prints (null for "??"). */
  public static Map<Long, Addr2lineName> addr2lineNames(Path dir, Path bin, List<Long> addresses)
      throws Exception {
    Path in = addressFile(dir, addresses);
    String out = sh(dir, "addr2line -f -e " + q(bin) + " < " + q(in));
    String[] lines = out.split("\n", -1);
    Map<Long, Addr2lineName> names = new HashMap<>();
    assertEquals(2 * addresses.size() + 1, lines.length, "two lines per address from addr2line");
    for (int i = 0; i < addresses.size(); i++) {
      String location = lines[2 * i + 1];
      String file = location.substring(0, location.lastIndexOf(':'));
      names.put(addresses.get(i), new Addr2lineName(lines[2 * i], file.equals("??") ? null : file));
    }
    return names;
  }

  // ---- addr2line -a -f -i (inline chains) ----

  /** addr2line's answers for one address, and whether its first answer in a process differed. */
  public record Answer(List<SourceLine> lines, boolean firstDiffered, List<SourceLine> first) {}

  /**
   * {@code addr2line -a -f -i -e BIN} over the addresses, in chunks of one process each. Every
   * chunk lists its addresses twice and the second answers are kept: addr2line caches state between
   * addresses (which ELF name a function gets is decided at its first lookup), so its settled
   * answer is the second.
   */
  public static List<Answer> addr2lineChains(Path dir, Path bin, List<Long> addrs)
      throws Exception {
    return addr2lineChains(dir, bin, addrs, new StringBuilder());
  }

  /** The same, collecting addr2line's standard error (its DWARF errors) in {@code stderr}. */
  public static List<Answer> addr2lineChains(
      Path dir, Path bin, List<Long> addrs, StringBuilder stderr) throws Exception {
    List<Answer> answers = new ArrayList<>();
    int chunk = 4000;
    for (int from = 0; from < addrs.size(); from += chunk) {
      List<Long> part = addrs.subList(from, Math.min(addrs.size(), from + chunk));
      List<String> cmd =
          new ArrayList<>(List.of("addr2line", "-a", "-f", "-i", "-e", bin.toString()));
      for (int pass = 0; pass < 2; pass++) {
        for (long a : part) {
          cmd.add("0x" + Long.toHexString(a));
        }
      }
      ExternalTool.Result r = check(cmd, tryRun(dir, cmd));
      stderr.append(r.stderr());
      List<List<SourceLine>> parsed = parseChains(r.stdout());
      assertEquals(2 * part.size(), parsed.size(), "addr2line answers");
      for (int i = 0; i < part.size(); i++) {
        List<SourceLine> first = parsed.get(i);
        List<SourceLine> second = parsed.get(part.size() + i);
        answers.add(new Answer(second, !first.equals(second), first));
      }
    }
    return answers;
  }

  private static final Pattern ADDRESS_LINE = Pattern.compile("^0x[0-9a-f]+$");
  private static final Pattern DISCRIMINATOR = Pattern.compile(" \\(discriminator \\d+\\)$");

  /**
   * The chains in {@code addr2line -a -f -i} output (or {@code llvm-symbolizer --output-style=GNU
   * -a -f -i}): per address, function and file:line pairs, innermost first; "??" files become null,
   * "?" lines 0, discriminators are dropped.
   */
  public static List<List<SourceLine>> parseChains(String out) {
    List<List<SourceLine>> all = new ArrayList<>();
    String[] lines = out.split("\n");
    List<SourceLine> cur = null;
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i];
      if (ADDRESS_LINE.matcher(l).matches()) {
        cur = new ArrayList<>();
        all.add(cur);
        continue;
      }
      if (cur == null || i + 1 >= lines.length) {
        throw new IllegalStateException("unexpected addr2line output at line " + i + ": " + l);
      }
      String func = l;
      String loc = DISCRIMINATOR.matcher(lines[++i]).replaceFirst("");
      int colon = loc.lastIndexOf(':');
      String file = loc.substring(0, colon);
      String lineText = loc.substring(colon + 1);
      long line = lineText.equals("?") ? 0 : Long.parseLong(lineText);
      cur.add(new SourceLine(func, func, file.equals("??") ? null : file, line));
    }
    return all;
  }

  // ---- c++filt ----

  /**
   * What one {@code c++filt} process prints for each name, fed one a line (skips the test, or fails
   * it under CI, without c++filt).
   */
  public static List<String> cppFilt(Path dir, List<String> names) throws Exception {
    ExternalTool.require("c++filt", "binutils");
    Files.createDirectories(dir);
    Path in = Files.createTempFile(dir, "names", ".txt");
    Files.write(in, names, StandardCharsets.UTF_8);
    List<String> lines = sh(dir, "c++filt < " + q(in)).lines().toList();
    assertEquals(names.size(), lines.size(), "c++filt printed one line per name");
    return lines;
  }

  private static long hex(String s) {
    return Long.parseUnsignedLong(s, 16);
  }
}
