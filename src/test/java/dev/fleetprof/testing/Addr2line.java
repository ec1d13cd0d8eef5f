package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What binutils says of addresses, the reference the symbolization tests compare against: {@code
 * addr2line -a -f -i -C} for inline chains, {@code readelf -lW} for the load segments that turn a
 * file offset into an address (computed here from readelf's numbers, independently of the project's
 * ELF reader).
 */
public final class Addr2line {
  private static final Pattern LOAD =
      Pattern.compile(
          "^\\s*LOAD\\s+0x(\\p{XDigit}+)\\s+0x(\\p{XDigit}+)\\s+0x\\p{XDigit}+\\s+0x(\\p{XDigit}+)"
              + "\\s+0x\\p{XDigit}+\\s+(.*?)\\s+0x\\p{XDigit}+\\s*$");

  private Addr2line() {}

  /** A PT_LOAD segment as readelf prints it. */
  public record Load(long offset, long vaddr, long filesz, boolean executable) {}

  public static List<Load> loads(Path binary, Path home) throws Exception {
    ExternalTool.Result r =
        ExternalTool.run(List.of("readelf", "-lW", binary.toString()), home, Map.of(), 60);
    assertEquals(0, r.exit(), r.stderr());
    List<Load> out = new ArrayList<>();
    for (String line : r.stdout().split("\n")) {
      Matcher m = LOAD.matcher(line);
      if (m.matches()) {
        out.add(
            new Load(
                Long.parseUnsignedLong(m.group(1), 16),
                Long.parseUnsignedLong(m.group(2), 16),
                Long.parseUnsignedLong(m.group(3), 16),
                m.group(4).contains("E")));
      }
    }
    return out;
  }

  private static final Pattern FDE =
      Pattern.compile("FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");

  /**
   * The call-frame ranges of a binary, initial location to end, as {@code readelf
   * --debug-dump=frames} prints its FDEs (empty ranges left out).
   */
  public static TreeMap<Long, Long> fdes(Path binary, Path home) throws Exception {
    // readelf 2.40 exits 1 on some of Debian's libraries after printing every frame.
    ExternalTool.Result r =
        ExternalTool.run(
            List.of("readelf", "--debug-dump=frames", binary.toString()), home, Map.of(), 60);
    TreeMap<Long, Long> out = new TreeMap<>();
    Matcher m = FDE.matcher(r.stdout());
    while (m.find()) {
      long start = Long.parseUnsignedLong(m.group(1), 16);
      long end = Long.parseUnsignedLong(m.group(2), 16);
      if (end != start) {
        out.put(start, end);
      }
    }
    return out;
  }

  /**
   * The boundary-only chain the symbolizer gives an address no symbol names: {@code MODULE+0xSTART}
   * for the FDE (from {@link #fdes}) that holds it; empty when none does.
   */
  public static List<SourceLine> boundary(TreeMap<Long, Long> fdes, String module, long vaddr) {
    Map.Entry<Long, Long> fde = fdes.floorEntry(vaddr);
    if (fde == null || vaddr >= fde.getValue()) {
      return List.of();
    }
    String name = module + "+0x" + Long.toHexString(fde.getKey());
    return List.of(new SourceLine(name, name, null, 0));
  }

  /** The address of a file offset: the executable load segment holding it (pprof's rule). */
  public static Long vaddr(List<Load> loads, long fileOffset) {
    for (boolean exec : new boolean[] {true, false}) {
      for (Load l : loads) {
        if (l.executable() == exec
            && l.filesz() > 0
            && fileOffset >= l.offset()
            && fileOffset < l.offset() + l.filesz()) {
          return fileOffset - l.offset() + l.vaddr();
        }
      }
    }
    return null;
  }

  /** The file offset of an address: the executable load segment holding it, else another. */
  public static Long fileOffset(List<Load> loads, long vaddr) {
    for (boolean exec : new boolean[] {true, false}) {
      for (Load l : loads) {
        if (l.executable() == exec
            && l.filesz() > 0
            && vaddr >= l.vaddr()
            && vaddr < l.vaddr() + l.filesz()) {
          return vaddr - l.vaddr() + l.offset();
        }
      }
    }
    return null;
  }

  /**
   * {@code addr2line -a -f -i -C -e file} for each address: the chain innermost first, file null
   * and line 0 where addr2line prints {@code ??}, an empty chain where it knows no function.
   * Discriminators are dropped: they are not part of a file:line.
   *
   * <p>addr2line's names depend on what the same process looked up before. For a function DWARF
   * gives no linkage name (a template clone such as {@code .constprop.0}, C++ {@code main}), bfd's
   * {@code _bfd_dwarf2_find_nearest_line_with_alt}, the first time the function is the innermost of
   * a lookup, prints the nearest ELF symbol, renames the function to that symbol when the symbol
   * starts where the function starts, and marks it searched; every later answer, and every chain
   * where the function is only an outer (inlined-into) frame, prints the function's current name:
   * its DWARF name unless it was renamed. So each process here first looks up the start of every
   * ELF function symbol around the addresses (where the function is its own innermost frame), then
   * every address twice, and keeps the second answer: what addr2line settles on once it has met
   * each function, independent of the order of the addresses, and what the project's symbolizer
   * gives.
   */
  public static Map<Long, List<SourceLine>> chains(Path file, List<Long> addresses, Path home)
      throws Exception {
    Map<Long, List<SourceLine>> out = new HashMap<>();
    TreeSet<Long> starts = functionStarts(file, home);
    for (int from = 0; from < addresses.size(); from += 500) {
      List<Long> chunk = addresses.subList(from, Math.min(addresses.size(), from + 500));
      List<String> cmd =
          new ArrayList<>(List.of("addr2line", "-a", "-f", "-i", "-C", "-e", file.toString()));
      TreeSet<Long> prime = new TreeSet<>();
      for (long a : chunk) {
        Long start = starts.floor(a);
        if (start != null) {
          prime.add(start);
        }
      }
      for (long a : prime) {
        cmd.add("0x" + Long.toHexString(a));
      }
      for (int pass = 0; pass < 2; pass++) {
        for (long a : chunk) {
          cmd.add("0x" + Long.toHexString(a));
        }
      }
      ExternalTool.Result r = ExternalTool.run(cmd, home, Map.of(), 120);
      assertEquals(0, r.exit(), r.stderr());
      String[] lines = r.stdout().split("\n");
      int i = 0;
      for (int skipped = 0; skipped <= prime.size() + chunk.size(); i++) {
        if (lines[i].startsWith("0x")) {
          skipped++;
        }
      }
      i--;
      for (long a : chunk) {
        assertEquals(a, Long.parseUnsignedLong(lines[i++].substring(2), 16), "addr2line order");
        List<SourceLine> chain = new ArrayList<>();
        while (i < lines.length && !lines[i].startsWith("0x")) {
          String function = lines[i++];
          String where = lines[i++].replaceAll(" \\(discriminator \\d+\\)$", "");
          int colon = where.lastIndexOf(':');
          String f = where.substring(0, colon);
          String l = where.substring(colon + 1);
          if (!function.equals("??")) {
            chain.add(
                new SourceLine(
                    function,
                    null,
                    f.equals("??") ? null : f,
                    l.equals("?") ? 0 : Long.parseLong(l)));
          }
        }
        out.put(a, chain);
      }
    }
    return out;
  }

  /** The addresses where {@code nm} says a function symbol (t, T, w, W) of the file starts. */
  private static TreeSet<Long> functionStarts(Path file, Path home) throws Exception {
    TreeSet<Long> starts = new TreeSet<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(home, file)) {
      if ("tTwW".indexOf(s.type()) >= 0) {
        starts.add(s.value());
      }
    }
    return starts;
  }
}
