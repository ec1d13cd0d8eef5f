package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.SymbolTable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test-side access to a binary through binutils (until the project's ELF reader exists): its
 * decompressed DWARF sections through objcopy, its symbols and sections through readelf, its
 * instruction addresses through objdump, and addr2line's answers.
 */
final class ElfTools {
  private ElfTools() {}

  static final long TIMEOUT = 600;

  static ExternalTool.Result run(Path home, List<String> cmd) throws IOException,
      InterruptedException {
    ExternalTool.Result r = ExternalTool.run(cmd, home, Map.of(), TIMEOUT);
    if (r.exit() != 0) {
      fail(String.join(" ", cmd) + " failed (" + r.exit() + "): " + r.stderr());
    }
    return r;
  }

  /** Copies the test sources under {@code resourceDir} (e.g. "dwarf/c") into {@code dir}. */
  static void copySources(String resourceDir, Path dir, String... files) throws IOException {
    for (String f : files) {
      Path target = dir.resolve(f);
      Files.createDirectories(target.getParent());
      try (InputStream in = ElfTools.class.getResourceAsStream("/" + resourceDir + "/" + f)) {
        if (in == null) {
          throw new IOException("missing test resource " + resourceDir + "/" + f);
        }
        Files.copy(in, target);
      }
    }
  }

  /** A section header as readelf -SW prints it. */
  record Section(int index, String name, long addr, long size, boolean alloc) {}

  private static final Pattern SECTION = Pattern.compile(
      "^\\s*\\[\\s*(\\d+)]\\s+(\\S+)\\s+\\S+\\s+([0-9a-f]+)\\s+[0-9a-f]+\\s+([0-9a-f]+)\\s+"
      + "[0-9a-f]+\\s+(\\S*)\\s");

  static List<Section> sections(Path home, Path bin) throws Exception {
    String out = run(home, List.of("readelf", "-SW", bin.toString())).stdout();
    List<Section> list = new ArrayList<>();
    for (String line : out.split("\n")) {
      Matcher m = SECTION.matcher(line);
      if (m.find()) {
        list.add(new Section(Integer.parseInt(m.group(1)), m.group(2),
            Long.parseUnsignedLong(m.group(3), 16), Long.parseUnsignedLong(m.group(4), 16),
            m.group(5).contains("A")));
      }
    }
    return list;
  }

  static ByteOrder byteOrder(Path home, Path bin) throws Exception {
    String out = run(home, List.of("readelf", "-h", bin.toString())).stdout();
    return out.contains("big endian") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
  }

  /** The decompressed DWARF sections, extracted with objcopy. */
  static DwarfSections dwarf(Path home, Path bin) throws Exception {
    Files.createDirectories(home);
    Path work = Files.createTempDirectory(home, "sections");
    Path plain = work.resolve("plain");
    run(home, List.of("objcopy", "--decompress-debug-sections", bin.toString(),
        plain.toString()));
    Set<String> present = new LinkedHashSet<>();
    for (Section s : sections(home, plain)) {
      present.add(s.name());
    }
    List<String> cmd = new ArrayList<>(List.of("objcopy"));
    Map<String, Path> files = new HashMap<>();
    for (String name : DwarfSections.NAMES) {
      if (present.contains(name)) {
        Path f = work.resolve(name.substring(1) + ".bin");
        files.put(name, f);
        cmd.add("--dump-section");
        cmd.add(name + "=" + f);
      }
    }
    cmd.add(plain.toString());
    cmd.add(work.resolve("ignored").toString());
    run(home, cmd);
    Map<String, ByteBuffer> map = new HashMap<>();
    for (Map.Entry<String, Path> e : files.entrySet()) {
      map.put(e.getKey(), ByteBuffer.wrap(Files.readAllBytes(e.getValue())));
    }
    return DwarfSections.of(map, byteOrder(home, bin));
  }

  /** addr2line's ELF symbol choice, as the project's ELF reader makes it. */
  static FunctionSymbols functionSymbols(Path home, Path bin) throws IOException {
    try (ElfFile elf = ElfFile.open(bin)) {
      return SymbolTable.read(elf).functionSymbols();
    }
  }

  private static final Pattern INSN = Pattern.compile("^\\s+([0-9a-f]+):\\t");

  /**
   * Every instruction start objdump -d disassembles and the byte before each (where a return
   * address minus one lands), then, while fewer than {@code atLeast}, every byte of .text.
   */
  static List<Long> addresses(Path home, Path bin, int atLeast) throws Exception {
    String out = run(home, List.of("objdump", "-d", "--no-show-raw-insn", bin.toString()))
        .stdout();
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
      for (Section s : sections(home, bin)) {
        if (s.name().equals(".text")) {
          for (long a = s.addr(); a < s.addr() + s.size() && set.size() < atLeast; a++) {
            set.add(a);
          }
        }
      }
    }
    return new ArrayList<>(set);
  }

  /** addr2line's answers for one address, and whether its first answer in a process differed. */
  record Answer(List<SourceLine> lines, boolean firstDiffered, List<SourceLine> first) {}

  /**
   * {@code addr2line -a -f -i -e BIN} over the addresses, in chunks of one process each. Every
   * chunk lists its addresses twice and the second answers are kept: addr2line caches state
   * between addresses (which ELF name a function gets is decided at its first lookup), so its
   * settled answer is the second.
   */
  static List<Answer> addr2line(Path home, Path bin, List<Long> addrs) throws Exception {
    return addr2line(home, bin, addrs, new StringBuilder());
  }

  /** The same, collecting addr2line's standard error (its DWARF errors) in {@code stderr}. */
  static List<Answer> addr2line(Path home, Path bin, List<Long> addrs, StringBuilder stderr)
      throws Exception {
    List<Answer> answers = new ArrayList<>();
    int chunk = 4000;
    for (int from = 0; from < addrs.size(); from += chunk) {
      List<Long> part = addrs.subList(from, Math.min(addrs.size(), from + chunk));
      List<String> cmd = new ArrayList<>(List.of("addr2line", "-a", "-f", "-i", "-e",
          bin.toString()));
      for (int pass = 0; pass < 2; pass++) {
        for (long a : part) {
          cmd.add("0x" + Long.toHexString(a));
        }
      }
      ExternalTool.Result r = run(home, cmd);
      stderr.append(r.stderr());
      String out = r.stdout();
      List<List<SourceLine>> parsed = parse(out);
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

  static List<List<SourceLine>> parse(String out) {
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
}
