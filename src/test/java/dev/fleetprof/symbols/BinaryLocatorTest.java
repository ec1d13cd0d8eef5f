package dev.fleetprof.symbols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.testing.Toolchain;
import dev.fleetprof.testing.Addr2line;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BinaryLocator}'s search rules on real g++-built binaries placed in temporary folders and
 * read through a plain java.nio {@link BinaryFiles}: which candidate wins (proved by deleting each
 * winner in turn, the next one in the documented order taking over, and by the build ID readelf
 * reads from the file that was opened), which are refused, where separate debug files are found,
 * and that a debug file found gives the chains {@code addr2line -f -i -C -e DEBUGFILE} prints.
 */
class BinaryLocatorTest {
  /** A small C++ program: templates, a namespace, inlined helpers. VARIANT makes other builds. */
  private static final String SOURCE =
      """
      #include <cstdio>
      #include <cstdlib>
      #ifndef VARIANT
      #define VARIANT 0
      #endif
      namespace fleet {
      template <typename T> struct Mixer {
        T seed;
        inline T mix(T x) const {
          x ^= x >> 13;
          x *= static_cast<T>(0x5bd1e995u + VARIANT);
          return x ^ (x >> 15);
        }
      };
      static inline unsigned step(const Mixer<unsigned>& m, unsigned h, int i) {
        return m.mix(h + i) * 3u + VARIANT;
      }
      __attribute__((noinline)) unsigned work(int n) {
        Mixer<unsigned> m{VARIANT + 1u};
        unsigned h = m.seed;
        for (int i = 0; i < n; i++) {
          h = step(m, h, i);
        }
        return h;
      }
      __attribute__((noinline)) unsigned long total(const unsigned* v, int n) {
        unsigned long s = 0;
        for (int i = 0; i < n; i++) {
          s += Mixer<unsigned long>{1}.mix(v[i]);
        }
        return s;
      }
      }  // namespace fleet
      int main(int argc, char** argv) {
        unsigned v[4] = {fleet::work(argc * 1000), fleet::work(argc), 3, 4};
        std::printf("%u %lu\\n", v[0], fleet::total(v, 4));
        return argc > 5 ? EXIT_FAILURE : EXIT_SUCCESS;
      }
      """;

  private static final Map<String, String> ENV = Map.of("DEBUGINFOD_URLS", "", "LC_ALL", "C");

  @TempDir static Path tmp;
  private static Path home;

  /** A built program: the file, and its build ID as readelf prints it (null: none). */
  private record Build(Path file, String id) {}

  /** Builds with build IDs, each a different VARIANT: distinct IDs. */
  private static final List<Build> builds = new ArrayList<>();

  /** A stripped non-PIE program with a .gnu_debuglink to server.debug, and that debug file. */
  private static Build stripped;

  private static Path strippedDebug;
  private static Path strippedFull;

  /** The debug file of builds.get(1): another build ID than the stripped program's. */
  private static Path otherDebug;

  /** Without build IDs: a stripped PIE linked to server.debug, its debug file, another build's. */
  private static Build noIdStripped;

  private static Path noIdDebug;
  private static Path noIdFull;
  private static Path noIdRebuiltDebug;

  @BeforeAll
  static void buildPrograms() throws Exception {
    for (String[] tool :
        new String[][] {
          {"g++", "g++"},
          {"readelf", "binutils"},
          {"objcopy", "binutils"},
          {"strip", "binutils"},
          {"addr2line", "binutils"},
          {"objdump", "binutils"}
        }) {
      ExternalTool.require(tool[0], tool[1]);
    }
    home = tmp.resolve("home");
    Path src = tmp.resolve("src/server.cpp");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Set<String> ids = new LinkedHashSet<>();
    for (int v = 0; v < 6; v++) {
      Path out = gxx(src, "v" + v, v, "-Wl,--build-id=sha1");
      builds.add(new Build(out, buildId(out).orElseThrow()));
      ids.add(builds.get(v).id());
    }
    assertEquals(builds.size(), ids.size(), "each variant has its own build ID: " + ids);

    strippedFull = gxx(src, "stripped", 7, "-no-pie", "-Wl,--build-id=sha1");
    Path dir = strippedFull.getParent();
    strippedDebug = splitDebug(strippedFull);
    stripped = new Build(dir.resolve("server"), buildId(strippedFull).orElseThrow());
    otherDebug = builds.get(1).file().resolveSibling("other.debug");
    tool(
        List.of(
            "objcopy",
            "--only-keep-debug",
            builds.get(1).file().toString(),
            otherDebug.toString()));

    noIdFull = gxx(src, "noid", 8, "-Wl,--build-id=none");
    noIdDebug = splitDebug(noIdFull);
    noIdStripped = new Build(noIdFull.resolveSibling("server"), null);
    Path rebuilt = gxx(src, "noid-rebuilt", 9, "-Wl,--build-id=none");
    noIdRebuiltDebug = rebuilt.resolveSibling("server.debug");
    tool(List.of("objcopy", "--only-keep-debug", rebuilt.toString(), noIdRebuiltDebug.toString()));
    for (Path p : List.of(noIdFull, noIdStripped.file(), noIdDebug, noIdRebuiltDebug)) {
      assertTrue(buildId(p).isEmpty(), p + " has no build ID");
    }
    assertNotEquals(-1L, Files.mismatch(noIdDebug, noIdRebuiltDebug), "a different rebuild");
  }

  /** g++ -O2 -g into {@code tmp/<name>/server.full} (or {@code server} when not to be split). */
  private static Path gxx(Path src, String name, int variant, String... flags) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("build").resolve(name));
    Path out = dir.resolve(name.startsWith("v") ? "server" : "server.full");
    List<String> cmd = new ArrayList<>(List.of("g++", "-O2", "-g", "-DVARIANT=" + variant));
    cmd.addAll(Arrays.asList(flags));
    cmd.addAll(List.of("-o", out.toString(), src.toString()));
    tool(cmd);
    return out;
  }

  /**
   * Splits {@code dir/server.full} as distributions do: {@code server.debug} keeps the DWARF and
   * symbols, {@code server} is stripped and names its debug file with a .gnu_debuglink.
   */
  private static Path splitDebug(Path full) throws Exception {
    Path dir = full.getParent();
    Path debug = dir.resolve("server.debug");
    Path bin = dir.resolve("server");
    tool(List.of("objcopy", "--only-keep-debug", full.toString(), debug.toString()));
    tool(List.of("strip", "--strip-all", "-o", bin.toString(), full.toString()));
    // objcopy records the link's base name and the CRC of the file at that path.
    tool(List.of("objcopy", "--add-gnu-debuglink=" + debug, bin.toString()));
    return debug;
  }

  private static String tool(List<String> cmd) throws Exception {
    ExternalTool.Result r = ExternalTool.run(cmd, home, ENV, 300);
    assertEquals(0, r.exit(), cmd + ": " + r.stderr());
    return r.stdout();
  }

  private static final Pattern BUILD_ID = Pattern.compile("Build ID: (\\p{XDigit}+)");

  /** The build ID readelf -n prints for the file. */
  private static Optional<String> buildId(Path file) throws Exception {
    Matcher m = BUILD_ID.matcher(tool(List.of("readelf", "-nW", file.toString())));
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  // ---- the search order ----

  /** A file placed at a candidate path, and what it holds. */
  private record Placed(String candidate, Path file, Build build) {}

  private static Placed place(Build build, Path file) throws IOException {
    return place(build.file(), build, file);
  }

  private static Placed place(Path content, Build build, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.copy(content, file);
    return new Placed(file.toString(), file, build);
  }

  /** A fresh folder for one case. */
  private static Path folder(String name) throws IOException {
    return Files.createDirectories(tmp.resolve("cases").resolve(name));
  }

  /** {@code DIR/<module path>} as the search names it: the module's path under DIR. */
  private static Path under(Path dir, String module) {
    return dir.resolve(module.substring(1));
  }

  /**
   * Finds the module again and again: each time the first placed file still there must win (its
   * path, and the build readelf sees in the file that was opened), and is then deleted; with all
   * gone, the search finds nothing.
   */
  private static void expectWinnersInOrder(
      BinaryLocator locator, String module, String buildId, List<Placed> order) throws Exception {
    for (int i = 0; i < order.size(); i++) {
      Placed want = order.get(i);
      BinaryLocator.Found found = locator.find(module, buildId);
      assertTrue(found.ok(), "step " + i + ": nothing found, " + found.problem());
      try (BinarySymbols symbols = found.symbols()) {
        String got =
            found.binary().startsWith("file:")
                ? found.binary().substring("file:".length())
                : found.binary();
        assertEquals(
            want.candidate(),
            got,
            "step "
                + i
                + ": the first of "
                + order.subList(i, order.size()).stream().map(Placed::candidate).toList());
        assertEquals(
            want.build().id(),
            buildId(symbols.runtime().path()).orElse(null),
            "step " + i + ": the build opened");
      }
      Files.delete(want.file());
    }
    BinaryLocator.Found none = locator.find(module, buildId);
    assertFalse(none.ok(), "found " + none.binary() + " with every candidate deleted");
    assertTrue(none.problem().startsWith("no binary for " + module), none.problem());
  }

  @Test
  void withoutBuildIdFullPathThenBaseNameInEachFolderThenTheModulesOwnPath() throws Exception {
    Path c = folder("order-by-path");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    // The module's path on this machine: it must exist for the last resort to apply.
    String module = c.resolve("host/opt/fleet/bin/server").toString();
    List<Placed> order =
        List.of(
            place(builds.get(1), under(d1, module)),
            place(builds.get(2), d1.resolve("server")),
            place(builds.get(3), under(d2, module)),
            place(builds.get(4), d2.resolve("server")),
            place(builds.get(5), Path.of(module)));
    // A build-ID folder means nothing without a build ID to look for.
    place(builds.get(0), d1.resolve(builds.get(0).id()).resolve("server"));

    NioBinaryFiles files = new NioBinaryFiles();
    BinaryLocator withoutModulePath =
        new BinaryLocator(files, List.of(d1.toString(), d2.toString()), false);
    expectWinnersInOrder(
        new BinaryLocator(files, List.of(d1.toString(), d2.toString()), true), module, null, order);
    assertFalse(
        files.probed.stream().anyMatch(p -> p.contains(builds.get(0).id())),
        "no build-ID path is probed without a build ID: " + files.probed);

    place(builds.get(5), Path.of(module));
    BinaryLocator.Found own = withoutModulePath.find(module, null);
    assertFalse(own.ok(), "useModulePath=false found " + own.binary());
    assertTrue(
        own.problem().contains(d1.toString()) && own.problem().contains(d2.toString()),
        own.problem());
  }

  @Test
  void withBuildIdTheBuildIdLayoutsComeFirstInEachFolder() throws Exception {
    Path c = folder("order-by-id");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    Build a = builds.get(0);
    String module = c.resolve("host/opt/fleet/bin/server").toString();
    Path idDir1 = d1.resolve(a.id());
    List<Placed> order =
        List.of(
            place(a, idDir1.resolve("server")),
            // Then any file in DIR/<id>/, by name.
            place(a, idDir1.resolve("a-copy")),
            place(a, idDir1.resolve("z-copy")),
            // perf's layout: DIR/<module path>/<id> (DIR/<module path> is then a folder).
            place(a, under(d1, module).resolve(a.id())),
            place(a, d1.resolve("server")),
            place(a, d2.resolve(a.id()).resolve("server")),
            place(a, under(d2, module)),
            place(a, d2.resolve("server")),
            place(a, Path.of(module)));
    expectWinnersInOrder(
        new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString(), d2.toString()), true),
        module,
        a.id(),
        order);
  }

  /**
   * A binary replaced while it ran ({@code "/opt/fleet/bin/server (deleted)"} in the maps) is
   * looked for under its name in the folders, never at its path: the file there now is the build
   * that replaced it.
   */
  @Test
  void aDeletedModuleIsSearchedByItsNameButNotAtItsPath() throws Exception {
    Path c = folder("deleted");
    Path d = c.resolve("d");
    String module = c.resolve("host/opt/fleet/bin/server").toString();
    place(builds.get(5), Path.of(module));
    List<Placed> order =
        List.of(place(builds.get(1), under(d, module)), place(builds.get(2), d.resolve("server")));
    expectWinnersInOrder(
        new BinaryLocator(new NioBinaryFiles(), List.of(d.toString()), true),
        module + " (deleted)",
        null,
        order);
  }

  @Test
  void aModuleWithoutSlashesIsLookedUpByNameOnly() throws Exception {
    Path d = folder("bare-name").resolve("d");
    List<Placed> order = List.of(place(builds.get(2), d.resolve("server")));
    expectWinnersInOrder(
        new BinaryLocator(new NioBinaryFiles(), List.of(d.toString()), true),
        "server",
        null,
        order);
  }

  // ---- build IDs and files that are not binaries ----

  @Test
  void candidatesOfAnotherBuildOrNoElfAtAllArePassedOver() throws Exception {
    Path c = folder("refused");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    Build a = builds.get(0);
    Build b = builds.get(1);
    Build other = builds.get(2);
    String module = "/opt/fleet/bin/server";
    Path idDir = d1.resolve(a.id());
    Placed wrongInIdFolder = place(b, idDir.resolve("server"));
    Files.writeString(idDir.resolve("a-readme"), "#!/bin/sh\necho not a binary\n");
    Files.write(idDir.resolve("b-truncated"), Arrays.copyOf(Files.readAllBytes(a.file()), 100));
    Files.write(idDir.resolve("c-empty"), new byte[0]);
    Placed wrongByPath = place(other, under(d1, module));
    Placed noId = place(noIdFull, new Build(noIdFull, null), d1.resolve("server"));
    Placed right = place(a, d2.resolve("server"));

    BinaryLocator locator =
        new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString(), d2.toString()), false);
    BinaryLocator.Found found = locator.find(module, a.id());
    assertTrue(found.ok(), found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertEquals(right.candidate(), found.binary());
      assertEquals(a.id(), buildId(s.runtime().path()).orElseThrow());
    }
    // A build ID given in capitals is the same build ID.
    BinaryLocator.Found upper = locator.find(module, a.id().toUpperCase());
    assertTrue(upper.ok(), upper.problem());
    upper.symbols().close();

    Files.delete(right.file());
    BinaryLocator.Found none = locator.find(module, a.id());
    assertFalse(
        none.ok(),
        "found "
            + none.binary()
            + " of build "
            + (none.ok() ? buildId(none.symbols().runtime().path()) : ""));
    String problem = none.problem();
    System.out.println("nothing acceptable: " + problem);
    for (Placed refused : List.of(wrongInIdFolder, wrongByPath)) {
      int at = problem.indexOf(refused.candidate() + " (");
      assertTrue(at >= 0, "the problem names " + refused.candidate() + ": " + problem);
      String reason = problem.substring(at, problem.indexOf(')', at));
      assertTrue(
          reason.contains(refused.build().id()) && reason.contains(a.id()),
          "both build IDs for " + refused.candidate() + ": " + problem);
    }
    assertTrue(
        problem.contains(noId.candidate()),
        "a binary without build ID cannot be the build the profile names: " + problem);
  }

  /**
   * A file that is ELF up to its headers but whose notes lie (the first PT_NOTE's descriptor size
   * runs far past its segment) is passed over like any unreadable candidate: one bad file in a
   * binaries folder must not end the search, nor the job around it.
   */
  @Test
  void aCandidateWithMalformedNotesIsPassedOver() throws Exception {
    Path c = folder("bad-notes");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    Build a = builds.get(0);
    Matcher note =
        Pattern.compile("(?m)^\\s*NOTE\\s+0x(\\p{XDigit}+)")
            .matcher(tool(List.of("readelf", "-lW", a.file().toString())));
    assertTrue(note.find(), "readelf shows a PT_NOTE in " + a.file());
    int noteAt = Integer.parseInt(note.group(1), 16);
    byte[] bytes = Files.readAllBytes(a.file());
    // Elf64_Nhdr: namesz, descsz, type (little-endian): descsz := 0x7ffffff0.
    bytes[noteAt + 4] = (byte) 0xf0;
    bytes[noteAt + 5] = (byte) 0xff;
    bytes[noteAt + 6] = (byte) 0xff;
    bytes[noteAt + 7] = (byte) 0x7f;
    Path bad = d1.resolve("server");
    Files.createDirectories(d1);
    Files.write(bad, bytes);
    Placed good = place(a, d2.resolve("server"));
    BinaryLocator locator =
        new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString(), d2.toString()), false);
    for (String buildId : Arrays.asList(null, a.id())) {
      BinaryLocator.Found found = locator.find("/opt/fleet/bin/server", buildId);
      assertTrue(found.ok(), found.problem());
      try (BinarySymbols s = found.symbols()) {
        assertEquals(good.candidate(), found.binary());
        assertEquals(good.file(), s.runtime().path());
      }
    }
    Files.delete(good.file());
    BinaryLocator.Found none = locator.find("/opt/fleet/bin/server", null);
    assertFalse(none.ok(), none.binary());
    assertTrue(none.problem().contains(bad + " ("), "names the bad file: " + none.problem());
  }

  // ---- separate debug files ----

  /** addr2line's chains for every instruction of a program, by file offset in its runtime file. */
  private record Reference(Path runtime, Path debug, Map<Long, List<SourceLine>> byOffset) {}

  private static final Map<Path, Reference> references = new HashMap<>();

  private static final Pattern INSN = Pattern.compile("^\\s+([0-9a-f]+):\\t");

  /**
   * {@code addr2line -f -i -C -e DEBUG} at each instruction start of {@code full} (the unstripped
   * build) and the byte before it (where a return address minus one lands) that a function symbol
   * covers, keyed by the file offset in {@code runtime}, from readelf's load segments.
   */
  private static synchronized Reference reference(Path full, Path runtime, Path debug)
      throws Exception {
    Reference r = references.get(debug);
    if (r != null) {
      return r;
    }
    Set<Long> addresses = new LinkedHashSet<>();
    for (String line :
        tool(List.of("objdump", "-d", "--no-show-raw-insn", "-j", ".text", full.toString()))
            .split("\n")) {
      Matcher m = INSN.matcher(line);
      if (m.find()) {
        long a = Long.parseUnsignedLong(m.group(1), 16);
        addresses.add(a);
        addresses.add(a - 1);
      }
    }
    // Only bytes a symbol covers: elsewhere (padding after a function, the byte before .text)
    // addr2line names the closest symbol below, which BinarySymbols deliberately does not.
    List<Toolchain.NmSymbol> symbols = Toolchain.nm(home, full);
    addresses.removeIf(
        a ->
            symbols.stream()
                .noneMatch(
                    s ->
                        "TtWw".indexOf(s.type()) >= 0
                            && a >= s.value()
                            && a - s.value() < s.size()));
    assertTrue(addresses.size() > 100, "objdump found " + addresses.size() + " addresses");
    List<Addr2line.Load> loads = Addr2line.loads(runtime, home);
    Map<Long, List<SourceLine>> byVaddr = Addr2line.chains(debug, new ArrayList<>(addresses), home);
    Map<Long, List<SourceLine>> byOffset = new TreeMap<>();
    for (long a : addresses) {
      Long off = Addr2line.fileOffset(loads, a);
      assertTrue(off != null, "no load segment holds 0x" + Long.toHexString(a));
      byOffset.put(off, byVaddr.get(a));
    }
    r = new Reference(runtime, debug, byOffset);
    references.put(debug, r);
    return r;
  }

  /** Every reference address symbolized through the found binary equals addr2line's chain. */
  private static void assertChainsAsAddr2line(Reference ref, BinaryLocator.Found found)
      throws IOException {
    int same = 0;
    int inlined = 0;
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<Long, List<SourceLine>> e : ref.byOffset().entrySet()) {
      List<SourceLine> got = found.symbols().atFileOffset(e.getKey());
      if (strip(got).equals(strip(e.getValue()))) {
        same++;
        inlined += got.size() > 1 ? 1 : 0;
      } else if (wrong.size() < 10) {
        wrong.add(
            "offset 0x"
                + Long.toHexString(e.getKey())
                + ": addr2line "
                + e.getValue()
                + ", found "
                + got);
      }
    }
    System.out.printf(
        "%s via %s: %d of %d offsets agree with addr2line -f -i -C -e %s"
            + " (%d with inlined frames)%n",
        found.binary(),
        found.debugFile(),
        same,
        ref.byOffset().size(),
        ref.debug().getFileName(),
        inlined);
    if (!wrong.isEmpty()) {
      fail(
          (ref.byOffset().size() - same)
              + " of "
              + ref.byOffset().size()
              + " chains differ from addr2line:\n"
              + String.join("\n", wrong));
    }
    assertTrue(inlined > 0, "the program has inlined frames to compare");
  }

  /**
   * What addr2line prints of a chain: function, file, line. Where it knows no line it may still
   * print a file ({@code crtstuff.c:?}: the STT_FILE symbol before a function no DWARF covers);
   * {@link SourceLine}'s contract makes that file null, so a file without a line is not compared.
   */
  private static List<List<Object>> strip(List<SourceLine> chain) {
    return chain.stream()
        .map(l -> Arrays.<Object>asList(l.function(), l.line() == 0 ? null : l.file(), l.line()))
        .toList();
  }

  /**
   * A stripped binary's debug file: by build ID ({@code DIR/.build-id/xx/rest.debug}, then {@code
   * DIR/xx/rest.debug}, folder by folder), then by its .gnu_debuglink name (beside the binary, in
   * the binary's {@code .debug/}, in each folder). Each one found gives addr2line's chains.
   */
  @Test
  void debugFileByBuildIdThenByDebugLink() throws Exception {
    Path c = folder("debug-order");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    String module = "/opt/fleet/bin/server";
    String id = stripped.id();
    String rest = id.substring(0, 2) + "/" + id.substring(2) + ".debug";
    Path binary = under(d1, module);
    place(stripped, binary);
    Build debug = new Build(strippedDebug, id);
    List<Placed> order =
        List.of(
            place(debug, d1.resolve(".build-id").resolve(rest)),
            place(debug, d1.resolve(rest)),
            place(debug, d2.resolve(".build-id").resolve(rest)),
            place(debug, d2.resolve(rest)),
            place(debug, binary.resolveSibling("server.debug")),
            place(debug, binary.resolveSibling(".debug").resolve("server.debug")),
            place(debug, d1.resolve("server.debug")),
            place(debug, d2.resolve("server.debug")));
    Reference ref = reference(strippedFull, binary, strippedDebug);
    BinaryLocator locator =
        new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString(), d2.toString()), false);
    for (int i = 0; i < order.size(); i++) {
      BinaryLocator.Found found = locator.find(module, id);
      assertTrue(found.ok(), found.problem());
      try (BinarySymbols s = found.symbols()) {
        assertEquals(binary.toString(), found.binary());
        assertEquals(order.get(i).candidate(), found.debugFile(), "step " + i);
        assertEquals(order.get(i).file(), s.debug().path());
        assertChainsAsAddr2line(ref, found);
      }
      Files.delete(order.get(i).file());
    }
    BinaryLocator.Found alone = locator.find(module, id);
    assertTrue(alone.ok(), alone.problem());
    try (BinarySymbols s = alone.symbols()) {
      assertNull(alone.debugFile(), "no debug file is left");
      assertNull(s.debug());
    }
  }

  @Test
  void debugFileOfAnotherBuildIsRefused() throws Exception {
    Path c = folder("debug-other-build");
    Path d1 = c.resolve("d1");
    Path d2 = c.resolve("d2");
    String id = stripped.id();
    place(stripped, d1.resolve("server"));
    String otherId = buildId(otherDebug).orElseThrow();
    assertNotEquals(id, otherId);
    // Where the build ID and the link name say, but of another build.
    place(
        otherDebug,
        null,
        d1.resolve(".build-id/" + id.substring(0, 2) + "/" + id.substring(2) + ".debug"));
    Placed linked = place(otherDebug, null, d1.resolve("server.debug"));
    BinaryLocator locator =
        new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString(), d2.toString()), false);
    BinaryLocator.Found found = locator.find("/opt/fleet/bin/server", null);
    assertTrue(found.ok(), found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertNull(found.debugFile(), "took the debug file of build " + otherId);
      assertNull(s.debug());
    }

    Placed right = place(strippedDebug, null, d2.resolve("server.debug"));
    BinaryLocator.Found later = locator.find("/opt/fleet/bin/server", null);
    assertTrue(later.ok(), later.problem());
    try (BinarySymbols s = later.symbols()) {
      assertEquals(right.candidate(), later.debugFile());
      assertEquals(right.file(), s.debug().path());
      assertChainsAsAddr2line(reference(strippedFull, d1.resolve("server"), strippedDebug), later);
    }
    // The place was right, the build was not: the matching file there is taken.
    Files.copy(strippedDebug, linked.file(), StandardCopyOption.REPLACE_EXISTING);
    BinaryLocator.Found beside = locator.find("/opt/fleet/bin/server", null);
    try (BinarySymbols s = beside.symbols()) {
      assertEquals(linked.candidate(), beside.debugFile());
      assertEquals(linked.file(), s.debug().path());
    }
  }

  /**
   * A stripped binary whose .gnu_debuglink is malformed (no NUL-terminated name) is still found,
   * with its debug file by build ID; without one there, with no debug file.
   */
  @Test
  void aMalformedDebugLinkLeavesTheBuildIdWay() throws Exception {
    Path c = folder("bad-debuglink");
    Path d1 = c.resolve("d1");
    Matcher link =
        Pattern.compile(
                "\\.gnu_debuglink\\s+\\S+\\s+\\p{XDigit}+\\s+" + "(\\p{XDigit}+)\\s+(\\p{XDigit}+)")
            .matcher(tool(List.of("readelf", "-SW", stripped.file().toString())));
    assertTrue(link.find(), "readelf shows .gnu_debuglink in " + stripped.file());
    int at = Integer.parseInt(link.group(1), 16);
    int size = Integer.parseInt(link.group(2), 16);
    byte[] bytes = Files.readAllBytes(stripped.file());
    Arrays.fill(bytes, at, at + size, (byte) 'A');
    Path binary = d1.resolve("server");
    Files.createDirectories(d1);
    Files.write(binary, bytes);
    String id = stripped.id();
    Placed byId =
        place(
            strippedDebug,
            null,
            d1.resolve(".build-id/" + id.substring(0, 2) + "/" + id.substring(2) + ".debug"));
    place(strippedDebug, null, d1.resolve("server.debug"));
    BinaryLocator locator = new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString()), false);

    BinaryLocator.Found found = locator.find("/opt/fleet/bin/server", id);
    assertTrue(found.ok(), found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertEquals(byId.candidate(), found.debugFile());
      assertEquals(byId.file(), s.debug().path());
    }
    Files.delete(byId.file());
    BinaryLocator.Found unlinked = locator.find("/opt/fleet/bin/server", id);
    assertTrue(unlinked.ok(), unlinked.problem());
    try (BinarySymbols s = unlinked.symbols()) {
      assertEquals(binary.toString(), unlinked.binary());
      assertNull(s.debug(), "a debug file through a link that names none");
    }
  }

  @Test
  void withoutBuildIdsTheDebugLinksCrcDecides() throws Exception {
    Path c = folder("debug-crc");
    Path d1 = c.resolve("d1");
    String module = "/usr/bin/server";
    Path binary = under(d1, module);
    place(noIdStripped, binary);
    // Beside the binary under the linked name, but from a rebuild: another CRC.
    Placed rebuilt = place(noIdRebuiltDebug, null, binary.resolveSibling("server.debug"));
    Placed right = place(noIdDebug, null, binary.resolveSibling(".debug/server.debug"));
    BinaryLocator locator = new BinaryLocator(new NioBinaryFiles(), List.of(d1.toString()), false);
    Reference ref = reference(noIdFull, binary, noIdDebug);

    BinaryLocator.Found found = locator.find(module, null);
    assertTrue(found.ok(), found.problem());
    try (BinarySymbols s = found.symbols()) {
      assertEquals(binary.toString(), found.binary());
      assertEquals(right.candidate(), found.debugFile(), "the rebuild's debug file was taken");
      assertChainsAsAddr2line(ref, found);
      assertEquals(right.file(), s.debug().path());
    }

    Files.delete(right.file());
    BinaryLocator.Found none = locator.find(module, null);
    assertTrue(none.ok(), none.problem());
    try (BinarySymbols s = none.symbols()) {
      assertNull(none.debugFile(), "took the rebuild's debug file, CRC and all");
      assertNull(s.debug());
    }
    // The place is right: the matching file there is taken.
    Files.copy(noIdDebug, rebuilt.file(), StandardCopyOption.REPLACE_EXISTING);
    BinaryLocator.Found beside = locator.find(module, null);
    try (BinarySymbols s = beside.symbols()) {
      assertEquals(rebuilt.candidate(), beside.debugFile());
      assertEquals(rebuilt.file(), s.debug().path());
    }
  }

  // ---- names that are no files ----

  @Test
  void modulesThatNameNoFileNeverTouchTheFileSystem() throws Exception {
    BinaryFiles untouchable =
        new BinaryFiles() {
          @Override
          public boolean isFile(String path) {
            throw new AssertionError("isFile(" + path + ")");
          }

          @Override
          public List<String> filesIn(String dir) {
            throw new AssertionError("filesIn(" + dir + ")");
          }

          @Override
          public Path local(String path) {
            throw new AssertionError("local(" + path + ")");
          }
        };
    BinaryLocator locator = new BinaryLocator(untouchable, List.of("/nonexistent"), true);
    for (String module :
        Arrays.asList(
            "[vdso]", "", "/memfd:x (deleted)", "//anon", "[vsyscall]", "[stack]", null)) {
      assertFalse(BinaryLocator.symbolizable(module), module);
      for (String buildId : Arrays.asList(null, builds.get(0).id())) {
        BinaryLocator.Found f = locator.find(module, buildId);
        assertFalse(f.ok(), module);
        assertNull(f.binary());
        assertTrue(f.problem().contains("names no file"), f.problem());
      }
    }
    // The stub does notice a search: a real name is looked for.
    assertTrue(BinaryLocator.symbolizable("/usr/bin/server"));
    assertThrows(AssertionError.class, () -> locator.find("/usr/bin/server", null));
  }

  /**
   * Folders on the local disk through java.nio, as the search needs them; a {@code file:} prefix
   * (the module's own path, the system debug folder) is the same file. Remembers every path probed.
   */
  static final class NioBinaryFiles implements BinaryFiles {
    final List<String> probed = new ArrayList<>();

    private static Path path(String p) {
      return Path.of(p.startsWith("file:") ? p.substring("file:".length()) : p);
    }

    @Override
    public boolean isFile(String p) {
      probed.add(p);
      try {
        return Files.isRegularFile(path(p));
      } catch (InvalidPathException e) {
        return false;
      }
    }

    @Override
    public List<String> filesIn(String dir) throws IOException {
      probed.add(dir + "/*");
      Path d;
      try {
        d = path(dir);
      } catch (InvalidPathException e) {
        return List.of();
      }
      if (!Files.isDirectory(d)) {
        return List.of();
      }
      try (Stream<Path> s = Files.list(d)) {
        return s.filter(Files::isRegularFile)
            .map(f -> f.getFileName().toString())
            .sorted()
            .map(name -> join(dir, name))
            .toList();
      }
    }

    @Override
    public Path local(String p) {
      return path(p);
    }
  }
}
