package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds test programs with gcc and reads what binutils' readelf, nm and addr2line say about them:
 * the expected values of the ELF tests, parsed from the real tools' output.
 */
final class Toolchain {
  private Toolchain() {}

  /** Environment for every tool: no debuginfod downloads, C locale output. */
  static final Map<String, String> ENV = Map.of("DEBUGINFOD_URLS", "", "LC_ALL", "C");

  static void requireBinutils() {
    ExternalTool.require("gcc", "gcc");
    ExternalTool.require("readelf", "binutils");
    ExternalTool.require("objcopy", "binutils");
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("nm", "binutils");
    ExternalTool.require("strip", "binutils");
  }

  /** Runs a command, failing the test unless it exits 0; returns its standard output. */
  static String run(Path dir, List<String> command) throws IOException, InterruptedException {
    ExternalTool.Result r = ExternalTool.run(command, dir.resolve("home"), ENV, 600);
    if (r.exit() != 0) {
      fail(command + " exited " + r.exit() + ": " + r.stderr());
    }
    return r.stdout();
  }

  static ExternalTool.Result tryRun(Path dir, List<String> command)
      throws IOException, InterruptedException {
    return ExternalTool.run(command, dir.resolve("home"), ENV, 600);
  }

  static String sh(Path dir, String script) throws IOException, InterruptedException {
    return run(dir, List.of("sh", "-c", script));
  }

  /** Compiles a C source with gcc and the given flags into {@code dir/name}. */
  static Path gcc(Path dir, String name, String source, String... flags)
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

  static String q(Path p) {
    return "'" + p.toString().replace("'", "'\\''") + "'";
  }

  // ---- readelf -hW ----

  record Header(boolean is64, boolean littleEndian, String type, String machine) {}

  static Header header(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-hW", bin.toString()));
    return new Header(field(out, "Class").equals("ELF64"),
        field(out, "Data").contains("little endian"), field(out, "Type").split(" ")[0],
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

  record Segment(int type, String typeName, long offset, long vaddr, long filesz, long memsz,
      int flags) {}

  private static final Map<String, Integer> SEGMENT_TYPES = Map.ofEntries(
      Map.entry("NULL", 0), Map.entry("LOAD", 1), Map.entry("DYNAMIC", 2),
      Map.entry("INTERP", 3), Map.entry("NOTE", 4), Map.entry("SHLIB", 5), Map.entry("PHDR", 6),
      Map.entry("TLS", 7), Map.entry("GNU_EH_FRAME", 0x6474e550),
      Map.entry("GNU_STACK", 0x6474e551), Map.entry("GNU_RELRO", 0x6474e552),
      Map.entry("GNU_PROPERTY", 0x6474e553));

  private static final Pattern SEGMENT = Pattern.compile("^\\s+(\\S+)\\s+0x([0-9a-f]+)\\s+"
      + "0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s([RWE ]{3})\\s+"
      + "(?:0x)?([0-9a-f]+)$", Pattern.MULTILINE);

  static List<Segment> segments(Path dir, Path bin) throws Exception {
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
      int flags = (f.charAt(0) == 'R' ? 4 : 0) | (f.charAt(1) == 'W' ? 2 : 0)
          | (f.charAt(2) == 'E' ? 1 : 0);
      segs.add(new Segment(type, name, hex(m.group(2)), hex(m.group(3)), hex(m.group(5)),
          hex(m.group(6)), flags));
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

  record Section(int index, String name, String typeName, long addr, long offset, long size,
      long flags, int link, int info, long align) {}

  static final Map<String, Integer> SECTION_TYPES = Map.ofEntries(
      Map.entry("NULL", 0), Map.entry("PROGBITS", 1), Map.entry("SYMTAB", 2),
      Map.entry("STRTAB", 3), Map.entry("RELA", 4), Map.entry("HASH", 5), Map.entry("DYNAMIC", 6),
      Map.entry("NOTE", 7), Map.entry("NOBITS", 8), Map.entry("REL", 9), Map.entry("DYNSYM", 11),
      Map.entry("INIT_ARRAY", 14), Map.entry("FINI_ARRAY", 15), Map.entry("PREINIT_ARRAY", 16),
      Map.entry("GROUP", 17), Map.entry("GNU_HASH", 0x6ffffff6), Map.entry("VERSYM", 0x6fffffff),
      Map.entry("VERNEED", 0x6ffffffe), Map.entry("VERDEF", 0x6ffffffd),
      Map.entry("X86_64_UNWIND", 0x70000001), Map.entry("LLVM_ADDRSIG", 0x6fff4c03),
      Map.entry("GNU_ATTRIBUTES", 0x6ffffff5), Map.entry("RELR", 19));

  private static final String FLAG_LETTERS = "WAXxMSILOGTC";
  private static final long[] FLAG_BITS = {
      0x1, 0x2, 0x4, -1, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800};

  static long flagMask(String letters) {
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

  static List<Section> sections(Path dir, Path bin) throws Exception {
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
      secs.add(new Section(Integer.parseInt(m.group(1)), name, type, addr, off, size,
          flagMask(flags), link, info, align));
    }
    return secs;
  }

  // ---- readelf -n ----

  static String buildId(Path dir, Path bin) throws Exception {
    String out = run(dir, List.of("readelf", "-n", bin.toString()));
    Matcher m = Pattern.compile("Build ID: ([0-9a-f]+)").matcher(out);
    return m.find() ? m.group(1) : null;
  }

  // ---- readelf -x ----

  /** A section's bytes from {@code readelf -x NAME} (fixed columns: 4 groups of 4 bytes a line). */
  static byte[] hexDump(Path dir, Path bin, String section) throws Exception {
    String out = run(dir, List.of("sh", "-c", "readelf -x " + section + " " + q(bin)
        + " | LC_ALL=C tr -c '\\n -~' '.'"));
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
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

  // ---- nm ----

  record NmSymbol(long value, long size, char type, String name) {}

  /** {@code nm -S --defined-only} (add "-D" for the dynamic table). */
  static List<NmSymbol> nm(Path dir, Path bin, String... extra) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("nm", "-S", "--defined-only"));
    cmd.addAll(Arrays.asList(extra));
    cmd.add(bin.toString());
    String out = run(dir, cmd);
    List<NmSymbol> syms = new ArrayList<>();
    Pattern p = Pattern.compile("^([0-9a-f]+)(?: ([0-9a-f]+))? (\\S) (\\S+)$");
    for (String l : out.split("\n")) {
      Matcher m = p.matcher(l);
      if (m.find()) {
        syms.add(new NmSymbol(hex(m.group(1)), m.group(2) == null ? 0 : hex(m.group(2)),
            m.group(3).charAt(0), m.group(4)));
      }
    }
    return syms;
  }

  // ---- addr2line ----

  /** What {@code addr2line -f} prints for an address: a function ("??" for none) and a file. */
  record Addr2lineName(String function, String file) {}

  /**
   * {@code addr2line -f -e BIN} for each address, fed in the order given through standard input;
   * returns the function name per address ("??" when none).
   */
  static Map<Long, String> addr2lineFunctions(Path dir, Path bin, List<Long> addresses)
      throws Exception {
    Map<Long, String> names = new HashMap<>();
    addr2lineNames(dir, bin, addresses).forEach((a, n) -> names.put(a, n.function()));
    return names;
  }

  /** The same, with the file addr2line prints (null for "??"). */
  static Map<Long, Addr2lineName> addr2lineNames(Path dir, Path bin, List<Long> addresses)
      throws Exception {
    Path in = Files.createTempFile(dir, "addrs", ".txt");
    StringBuilder sb = new StringBuilder();
    for (long a : addresses) {
      sb.append("0x").append(Long.toHexString(a)).append('\n');
    }
    Files.writeString(in, sb.toString());
    String out = sh(dir, "addr2line -f -e " + q(bin) + " < " + q(in));
    String[] lines = out.split("\n", -1);
    Map<Long, Addr2lineName> names = new HashMap<>();
    assertEquals(2 * addresses.size() + 1, lines.length, "two lines per address from addr2line");
    for (int i = 0; i < addresses.size(); i++) {
      String location = lines[2 * i + 1];
      String file = location.substring(0, location.lastIndexOf(':'));
      names.put(addresses.get(i), new Addr2lineName(lines[2 * i], file.equals("??") ? null
          : file));
    }
    return names;
  }

  static long hex(String s) {
    return Long.parseUnsignedLong(s, 16);
  }

  static byte[] bytes(Path p) throws IOException {
    return Files.readAllBytes(p);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
