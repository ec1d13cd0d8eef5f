package dev.fleetprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.testing.ProfiledRun;
import dev.fleetprof.symbols.testing.Toolchain;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CallFrameIndex against {@code readelf --debug-dump=frames} on Debian's stripped binaries and on
 * programs built here, and against the symbols of the unstripped build of the same program: the FDE
 * holding an address of the stripped build starts where the function symbol holding it starts in
 * the unstripped one. Malformed call-frame sections give ElfFormatExceptions with offsets.
 */
class CallFrameIndexTest {
  @TempDir static Path dir;

  @BeforeAll
  static void tools() {
    Toolchain.requireBinutils();
  }

  static Path build(String name, String... flags) throws Exception {
    Path out = dir.resolve(name);
    if (Files.exists(out)) {
      return out;
    }
    String source;
    try (InputStream in = CallFrameIndexTest.class.getResourceAsStream("cfi_prog.c")) {
      source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> all = new ArrayList<>(List.of("-O2", "-g0"));
    all.addAll(List.of(flags));
    return Toolchain.gcc(dir, name, source, all.toArray(String[]::new));
  }

  private static String[] concat(String[] a, String b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = b;
    return out;
  }

  static Path stripped(Path bin) throws Exception {
    Path out = dir.resolve(bin.getFileName() + ".stripped");
    if (!Files.exists(out)) {
      Toolchain.run(dir, List.of("strip", "-o", out.toString(), bin.toString()));
    }
    return out;
  }

  private static final Pattern FDE =
      Pattern.compile("FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/liblzma.so.5",
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/bin/sort",
        "/usr/bin/xz",
        "/usr/bin/gzip",
        "built:pie",
        "built:m32",
        "built:nopie",
        "built:debug_frame",
        "built:debug_frame-m32"
      })
  void everyFdeRangeIsOneReadelfPrints(String which) throws Exception {
    Path bin;
    if (which.startsWith("built:")) {
      String variant = which.substring("built:".length());
      // Without unwind tables, gcc -g describes the functions' frames in .debug_frame instead
      // (not stripped: strip removes it).
      String[] noUnwind = {"-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"};
      bin =
          switch (variant) {
            case "m32" -> stripped(build("cfi-m32", "-m32"));
            case "nopie" -> stripped(build("cfi-nopie", "-no-pie"));
            case "debug_frame" -> build("cfi-debug_frame", noUnwind);
            case "debug_frame-m32" -> build("cfi-debug_frame-m32", concat(noUnwind, "-m32"));
            default -> stripped(build("cfi-pie"));
          };
      if (variant.startsWith("debug_frame")) {
        assertTrue(
            Toolchain.sections(dir, bin).stream().anyMatch(s -> s.name().equals(".debug_frame")),
            bin + " has .debug_frame");
      }
    } else {
      bin = Path.of(which).toRealPath();
    }
    TreeMap<Long, List<Long>> want = new TreeMap<>();
    int readelfRanges = 0;
    // readelf 2.40 exits 1 on some of Debian's libraries (libc.so.6) without a message on
    // stderr, after printing every frame; its output is still the reference.
    String out =
        Toolchain.tryRun(dir, List.of("readelf", "--debug-dump=frames", bin.toString())).stdout();
    Matcher m = FDE.matcher(out);
    while (m.find()) {
      long start = Long.parseUnsignedLong(m.group(1), 16);
      long end = Long.parseUnsignedLong(m.group(2), 16);
      if (end != start) {
        want.computeIfAbsent(start, k -> new ArrayList<>()).add(end - start);
        readelfRanges++;
      }
    }
    CallFrameIndex index;
    try (ElfFile elf = ElfFile.open(bin)) {
      index = CallFrameIndex.read(elf);
    }
    TreeMap<Long, List<Long>> got = new TreeMap<>();
    for (int i = 0; i < index.size(); i++) {
      CallFrameIndex.Range r = index.range(i);
      got.computeIfAbsent(r.start(), k -> new ArrayList<>()).add(r.length());
    }
    want.values().forEach(l -> l.sort(Long::compareUnsigned));
    System.out.printf(
        "CallFrameIndex vs readelf --debug-dump=frames, %s: %d FDE ranges, readelf %d%n",
        bin, index.size(), readelfRanges);
    assertTrue(readelfRanges > 5, bin + ": readelf printed " + readelfRanges + " FDEs");
    assertEquals(want, got, bin.toString());
  }

  /** Where the FDE of the stripped build and the unstripped build's symbols place an address. */
  enum Category {
    SAME_START,
    NEITHER,
    FDE_IN_PLT_NO_SYMBOL,
    FDE_AT_SIZELESS_SYMBOL,
    FDE_NO_SYMBOL,
    SYMBOL_NO_FDE,
    DIFFERENT_START
  }

  @ParameterizedTest
  @ValueSource(strings = {"pie", "m32"})
  void strippedFdeStartsWhereTheUnstrippedFunctionSymbolStarts(String variant) throws Exception {
    Path full = variant.equals("m32") ? build("cfi-m32", "-m32") : build("cfi-pie");
    Path bare = stripped(full);
    List<Toolchain.NmSymbol> functions = new ArrayList<>();
    TreeSet<Long> sizeless = new TreeSet<>();
    for (Toolchain.NmSymbol s : Toolchain.nm(dir, full)) {
      if ("TtWw".indexOf(s.type()) >= 0) {
        if (s.size() > 0) {
          functions.add(s);
        } else {
          sizeless.add(s.value());
        }
      }
    }
    assertTrue(
        functions.stream().anyMatch(s -> s.name().endsWith(".cold")),
        "gcc split a .cold part: " + functions);
    assertTrue(functions.stream().anyMatch(s -> s.type() == 't'), "static functions");
    List<Toolchain.Section> sections = Toolchain.sections(dir, full);
    TreeSet<Long> swept = new TreeSet<>();
    for (Toolchain.Section s : sections) {
      if ((s.flags() & ElfSection.SHF_EXECINSTR) != 0) {
        for (long a = s.addr(); a < s.addr() + s.size(); a++) {
          swept.add(a);
        }
      }
    }
    TreeSet<Long> sampled = new TreeSet<>();
    if (variant.equals("pie")) {
      ProfiledRun.requireLibprofiler();
      Path profile = ProfiledRun.run(dir, "cfi-pie", List.of(bare.toString(), "3000"));
      for (Map.Entry<String, TreeSet<Long>> e : ProfiledRun.sampledOffsets(profile).entrySet()) {
        if (Path.of(e.getKey()).getFileName().equals(bare.getFileName())) {
          try (ElfFile elf = ElfFile.open(bare)) {
            for (long off : e.getValue()) {
              elf.fileOffsetToVaddr(off).ifPresent(sampled::add);
            }
          }
        }
      }
      assertTrue(sampled.size() >= 10, "sampled addresses in the program: " + sampled.size());
    }
    CallFrameIndex index;
    try (ElfFile elf = ElfFile.open(bare)) {
      assertTrue(elf.section(".symtab").isEmpty(), "strip removed .symtab");
      index = CallFrameIndex.read(elf);
    }
    for (String kind : new String[] {"swept", "sampled"}) {
      TreeSet<Long> addresses = kind.equals("swept") ? swept : sampled;
      if (addresses.isEmpty()) {
        continue;
      }
      Map<Category, Integer> counts = new TreeMap<>();
      List<String> different = new ArrayList<>();
      List<String> noSymbol = new ArrayList<>();
      TreeSet<String> withoutFde = new TreeSet<>();
      for (long a : addresses) {
        Optional<CallFrameIndex.Range> fde = index.containing(a);
        Toolchain.NmSymbol holder = null;
        for (Toolchain.NmSymbol s : functions) {
          if (a >= s.value() && a - s.value() < s.size()) {
            holder = s;
          }
        }
        String section = sectionOf(sections, a);
        Category c;
        if (fde.isEmpty()) {
          c = holder == null ? Category.NEITHER : Category.SYMBOL_NO_FDE;
          if (holder != null) {
            withoutFde.add(holder.name());
          }
        } else if (holder == null) {
          // gcc's -m32 __x86.get_pc_thunk.* are functions without a size, each with an FDE.
          c =
              section.startsWith(".plt")
                  ? Category.FDE_IN_PLT_NO_SYMBOL
                  : sizeless.contains(fde.get().start())
                      ? Category.FDE_AT_SIZELESS_SYMBOL
                      : Category.FDE_NO_SYMBOL;
          if (c == Category.FDE_NO_SYMBOL && noSymbol.size() < 10) {
            noSymbol.add("0x" + Long.toHexString(a) + " in " + section);
          }
        } else if (fde.get().start() == holder.value()) {
          c = Category.SAME_START;
        } else {
          c = Category.DIFFERENT_START;
          if (different.size() < 10) {
            different.add(
                "0x"
                    + Long.toHexString(a)
                    + ": FDE 0x"
                    + Long.toHexString(fde.get().start())
                    + ", "
                    + holder.name()
                    + " 0x"
                    + Long.toHexString(holder.value()));
          }
        }
        counts.merge(c, 1, Integer::sum);
      }
      System.out.printf(
          "FDE start (stripped %s) vs function symbol start (unstripped), %d %s addresses: %s;"
              + " sized functions without an FDE: %s%n",
          variant, addresses.size(), kind, counts, withoutFde);
      assertEquals(List.of(), different, "FDEs that start elsewhere than their function");
      assertEquals(List.of(), noSymbol, "FDEs outside the PLT where no function symbol is");
      // glibc's i386 crti.o brings __x86.get_pc_thunk.bx with a size but without an FDE; every
      // function gcc compiled has one.
      assertTrue(
          withoutFde.stream().allMatch(n -> n.startsWith("__x86.get_pc_thunk.")),
          "functions without an FDE: " + withoutFde);
      assertTrue(counts.getOrDefault(Category.SAME_START, 0) > addresses.size() / 2, kind);
    }
  }

  private static String sectionOf(List<Toolchain.Section> sections, long a) {
    for (Toolchain.Section s : sections) {
      if ((s.flags() & ElfSection.SHF_ALLOC) != 0 && a >= s.addr() && a - s.addr() < s.size()) {
        return s.name();
      }
    }
    return "";
  }

  // ---- malformed ----

  private static Toolchain.Section ehFrame(Path bin) throws Exception {
    return Toolchain.sections(dir, bin).stream()
        .filter(s -> s.name().equals(".eh_frame"))
        .findFirst()
        .orElseThrow();
  }

  /** The stripped program with {@code patch} applied to its .eh_frame bytes. */
  private static Path patched(String name, java.util.function.Consumer<ByteBuffer> patch)
      throws Exception {
    Path bare = stripped(build("cfi-pie"));
    Toolchain.Section eh = ehFrame(bare);
    byte[] bytes = Files.readAllBytes(bare);
    ByteBuffer frame =
        ByteBuffer.wrap(bytes, (int) eh.offset(), (int) eh.size())
            .slice()
            .order(ByteOrder.LITTLE_ENDIAN);
    patch.accept(frame);
    Path out = dir.resolve(name);
    Files.write(out, bytes);
    return out;
  }

  /** The offset of the first FDE in {@code frame} (a record whose CIE pointer is not 0). */
  private static int firstFde(ByteBuffer frame) {
    int pos = 0;
    while (frame.getInt(pos + 4) == 0) {
      pos += 4 + frame.getInt(pos);
    }
    return pos;
  }

  private static ElfFormatException assertMalformed(Path file, String detail) throws Exception {
    ElfFormatException e =
        assertThrows(
            ElfFormatException.class,
            () -> {
              try (ElfFile elf = ElfFile.open(file)) {
                CallFrameIndex.read(elf);
              }
            });
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains(".eh_frame at byte"), e.getMessage());
    assertTrue(e.getMessage().contains(detail), e.getMessage());
    return e;
  }

  @Test
  void lyingLengthsAndPointersAreErrorsWithOffsets() throws Exception {
    assertMalformed(
        patched("len-huge", f -> f.putInt(firstFde(f), 0x7ffffff0)), "runs past the end");
    assertMalformed(
        patched(
            "len-64",
            f -> {
              int at = firstFde(f);
              f.putInt(at, -1); // 64-bit length follows; it lies too
              f.putLong(at + 4, Long.MAX_VALUE);
            }),
        "runs past the end");
    assertMalformed(
        patched("cie-ptr", f -> f.putInt(firstFde(f) + 4, 0x40000000)), "outside the section");
    assertMalformed(patched("cie-ptr-fde", f -> f.putInt(firstFde(f) + 4, 4)), "which is no");
    assertMalformed(patched("cie-version", f -> f.put(8, (byte) 7)), "CIE version 7");
    // gcc's first CIE: version 1, "zR", code and data alignment, return register, augmentation
    // length, then the FDE pointer encoding (pcrel|sdata4) at byte 16; made indirect here.
    assertMalformed(
        patched(
            "fde-encoding",
            f -> {
              assertEquals('z', f.get(9));
              assertEquals('R', f.get(10));
              assertEquals(0x1b, f.get(16));
              f.put(16, (byte) 0x9b);
            }),
        "cannot be read");
  }

  @Test
  void randomDamageNeverEscapesAsAnythingButElfFormatException() throws Exception {
    Path bare = stripped(build("cfi-pie"));
    Toolchain.Section eh = ehFrame(bare);
    byte[] good = Files.readAllBytes(bare);
    Random random = new Random(5);
    int ok = 0;
    int refused = 0;
    Path file = dir.resolve("fuzzed");
    for (int round = 0; round < 300; round++) {
      byte[] bytes = good.clone();
      for (int k = 1 + random.nextInt(4); k > 0; k--) {
        bytes[(int) eh.offset() + random.nextInt((int) eh.size())] = (byte) random.nextInt(256);
      }
      Files.write(file, bytes);
      boolean read =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> {
                try (ElfFile elf = ElfFile.open(file)) {
                  CallFrameIndex.read(elf);
                  return true;
                } catch (ElfFormatException e) {
                  assertTrue(e.getMessage().contains(".eh_frame at byte"), e.getMessage());
                  return false;
                }
              });
      if (read) {
        ok++;
      } else {
        refused++;
      }
    }
    System.out.printf("damaged .eh_frame: %d read, %d refused with an offset%n", ok, refused);
    assertTrue(refused > 0);
  }
}
