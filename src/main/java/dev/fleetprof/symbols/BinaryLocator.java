package dev.fleetprof.symbols;

import dev.fleetprof.symbols.elf.DebugLink;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.ElfFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * Finds the binary (and its separate debug file) for a profile's module, searching folders the way
 * pprof searches {@code PPROF_BINARY_PATH} ({@code locateBinaries} in pprof's {@code
 * internal/driver/fetch.go}), in this order, in each folder DIR:
 *
 * <ol>
 *   <li>by GNU build ID, where the profile knows one: {@code DIR/<id>/<base name>}, any file in
 *       {@code DIR/<id>/}, {@code DIR/<module path>/<id>};
 *   <li>{@code DIR/<module path>} (the module's full path under DIR, e.g. {@code
 *       DIR/usr/lib/libfoo.so});
 *   <li>{@code DIR/<base name>};
 * </ol>
 *
 * and last the module's own path, where it exists on this machine (and {@code useModulePath} is
 * on). A candidate that is not an ELF file is passed over; one whose build ID differs from the one
 * the profile recorded, or that has none, is refused (never used: its addresses would name the
 * wrong code).
 *
 * <p>gperftools' maps text records no build IDs, so a module found by path may be another build
 * than the one that ran: a build-ID folder layout is the safe one where the user has it.
 *
 * <p>When the binary found carries no DWARF, its separate debug file is looked for as gdb does: by
 * build ID ({@code DIR/.build-id/xx/rest.debug}, {@code DIR/xx/rest.debug}, and with {@code
 * useModulePath} {@code /usr/lib/debug/.build-id/xx/rest.debug}), then by the {@code
 * .gnu_debuglink} name (beside the binary, in its {@code .debug/} folder, in each DIR, and with
 * {@code useModulePath} under {@code /usr/lib/debug/<binary's folder>/}). A debug file must have
 * the binary's build ID, or (without build IDs) the CRC32 its debug link records.
 *
 * <p>With a {@link DebuginfodClient}, what the folders lack is fetched by build ID: the debug file
 * of a binary found without DWARF ({@code /debuginfo}, when no local debug file matched), and the
 * binary itself when no candidate is found but the profile records its build ID ({@code
 * /executable}, then its debug file as above). A fetch that fails leaves the search's result as it
 * was and says why in {@link Found#problem}.
 */
public final class BinaryLocator {
  /**
   * Paths on the machine that runs the search, whatever the default FileSystem is: the module's own
   * path and the system debug folder are local files, never HDFS paths.
   */
  private static final String LOCAL = "file:";

  private static final String SYSTEM_DEBUG = LOCAL + "/usr/lib/debug";

  private final BinaryFiles files;
  private final List<String> dirs;
  private final boolean useModulePath;
  private final DebuginfodClient debuginfod;

  /**
   * What the search found: the symbols, or null with the reason in {@code problem}. With symbols,
   * {@code problem} is null, or says why no debug file could be fetched for a binary without DWARF.
   */
  public record Found(BinarySymbols symbols, String binary, String debugFile, String problem) {
    public boolean ok() {
      return symbols != null;
    }
  }

  /**
   * @param dirs the folders to search (the job's {@code --binaries}), in order
   * @param useModulePath whether the module's own path on this machine is the last resort
   */
  public BinaryLocator(BinaryFiles files, List<String> dirs, boolean useModulePath) {
    this(files, dirs, useModulePath, null);
  }

  /**
   * @param debuginfod where to fetch what the folders lack by build ID, or null
   */
  public BinaryLocator(
      BinaryFiles files, List<String> dirs, boolean useModulePath, DebuginfodClient debuginfod) {
    this.files = files;
    this.dirs = List.copyOf(dirs);
    this.useModulePath = useModulePath;
    this.debuginfod = debuginfod;
  }

  /** How the kernel's maps name a file that was deleted (or replaced) after it was mapped. */
  private static final String DELETED = " (deleted)";

  /** Whether a module name can name a file at all ({@code [vdso]}, anonymous, memfd cannot). */
  public static boolean symbolizable(String module) {
    return module != null
        && !module.isEmpty()
        && !module.startsWith("[")
        && !module.startsWith("/memfd:")
        && !module.startsWith("//anon")
        && !module.equals(DELETED.strip());
  }

  /**
   * Finds and opens the binary of {@code module}.
   *
   * @param module the module's path as the profile names it (or a bare program name)
   * @param buildId the lowercase hex GNU build ID the profile records, or null
   */
  public Found find(String module, String buildId) throws IOException {
    if (!symbolizable(module)) {
      return new Found(null, null, null, "'" + module + "' names no file");
    }
    List<String> refused = new ArrayList<>();
    // A binary replaced by a deploy while it ran shows as "/usr/bin/server (deleted)": its build
    // may be in --binaries under its name, but the file now at its path is another build.
    boolean deleted = module.endsWith(DELETED);
    String path = deleted ? module.substring(0, module.length() - DELETED.length()) : module;
    for (String candidate : candidates(path, buildId, useModulePath && !deleted)) {
      if (!files.isFile(candidate)) {
        continue;
      }
      ElfFile elf = null;
      Optional<String> id;
      try {
        elf = ElfFile.open(files.local(candidate));
        // Read here with the headers: a file whose notes lie is as unusable as one that is not
        // ELF, and one bad file in a folder must not end the search (nor the job around it).
        id = elf.buildId();
      } catch (IOException e) {
        if (elf != null) {
          elf.close();
        }
        refused.add(candidate + " (" + e.getMessage() + ")");
        continue;
      }
      // A file without a build ID cannot be the build the profile names either: the note is part
      // of the loaded image, and strip keeps it. pprof refuses it too.
      if (buildId != null && (id.isEmpty() || !id.get().equalsIgnoreCase(buildId))) {
        refused.add(
            candidate
                + " (build-id mismatch: "
                + id.orElse("none")
                + ", the profile has "
                + buildId
                + ")");
        elf.close();
        continue;
      }
      return withDebugFile(candidate, elf, id, baseName(path));
    }
    String searched = dirs.isEmpty() ? "no --binaries folders" : "searched " + dirs;
    String fetchProblem = "";
    if (buildId != null && debuginfod != null) {
      DebuginfodClient.Fetched exe =
          debuginfod.fetch(buildId, DebuginfodClient.Artifact.EXECUTABLE);
      String fetched = exe.ok() ? LOCAL + exe.file() : null;
      ElfFile elf = null;
      try {
        if (fetched != null) {
          elf = ElfFile.open(files.local(fetched));
          Optional<String> id = elf.buildId();
          return withDebugFile(fetched, elf, id, baseName(path));
        }
      } catch (IOException e) {
        // The client checked the file; one that changed since is as missing as one not sent.
        if (elf != null) {
          elf.close();
        }
        refused.add(fetched + " (" + e.getMessage() + ")");
      }
      fetchProblem = exe.ok() ? "" : "; " + exe.problem();
    }
    return new Found(
        null,
        null,
        null,
        "no binary for "
            + module
            + " ("
            + searched
            + (refused.isEmpty() ? "" : "; refused " + String.join(", ", refused))
            + fetchProblem
            + ")");
  }

  /** The binary {@code elf} found at {@code path}, with its debug file where it needs one. */
  private Found withDebugFile(String path, ElfFile elf, Optional<String> id, String moduleName)
      throws IOException {
    try {
      String debugPath = null;
      ElfFile debug = null;
      String problem = null;
      if (!BinarySymbols.hasDwarf(elf)) {
        debugPath = findDebugFile(path, elf, id);
        if (debugPath == null && id.isPresent() && debuginfod != null) {
          DebuginfodClient.Fetched f =
              debuginfod.fetch(id.get(), DebuginfodClient.Artifact.DEBUGINFO);
          if (f.ok()) {
            try {
              debug = ElfFile.open(files.local(LOCAL + f.file()));
              debugPath = LOCAL + f.file();
            } catch (IOException e) {
              problem = "no debug info for " + path + ": " + f.file() + ": " + e.getMessage();
            }
          } else {
            problem = "no debug info for " + path + ": " + f.problem();
          }
        } else if (debugPath != null) {
          debug = ElfFile.open(files.local(debugPath));
        }
      }
      return new Found(new BinarySymbols(elf, debug, moduleName), path, debugPath, problem);
    } catch (IOException | RuntimeException e) {
      elf.close();
      throw e;
    }
  }

  /** The runtime binary's candidate paths, in search order, without repeats. */
  List<String> candidates(String module, String buildId, boolean withModulePath)
      throws IOException {
    Set<String> out = new LinkedHashSet<>();
    String base = baseName(module);
    for (String dir : dirs) {
      if (buildId != null) {
        String idDir = files.join(dir, buildId);
        out.add(files.join(idDir, base));
        out.addAll(files.filesIn(idDir));
        out.add(files.join(files.join(dir, module), buildId));
      }
      if (module.contains("/")) {
        out.add(files.join(dir, module));
      }
      out.add(files.join(dir, base));
    }
    if (withModulePath && module.startsWith("/")) {
      out.add(LOCAL + module);
    }
    return new ArrayList<>(out);
  }

  private String findDebugFile(String binary, ElfFile elf, Optional<String> id) throws IOException {
    List<String> roots = new ArrayList<>(dirs);
    if (useModulePath) {
      roots.add(SYSTEM_DEBUG);
    }
    if (id.isPresent() && id.get().length() > 2) {
      String rest = id.get().substring(0, 2) + "/" + id.get().substring(2) + ".debug";
      for (String root : roots) {
        for (String c : List.of(files.join(root, ".build-id/" + rest), files.join(root, rest))) {
          if (matchingDebugFile(c, id.get(), null)) {
            return c;
          }
        }
      }
    }
    Optional<DebugLink> link;
    try {
      link = elf.debugLink();
    } catch (ElfFormatException e) {
      link = Optional.empty(); // a malformed link names no file: the binary's own symbols remain
    }
    if (link.isPresent()) {
      String name = link.get().fileName();
      int slash = binary.lastIndexOf('/');
      String binaryDir = slash < 0 ? "." : binary.substring(0, slash);
      List<String> linked = new ArrayList<>();
      linked.add(files.join(binaryDir, name));
      linked.add(files.join(binaryDir, ".debug/" + name));
      for (String dir : dirs) {
        linked.add(files.join(dir, name));
      }
      String localDir =
          binaryDir.startsWith(LOCAL) ? binaryDir.substring(LOCAL.length()) : binaryDir;
      if (useModulePath && localDir.startsWith("/")) {
        linked.add(SYSTEM_DEBUG + localDir + "/" + name);
      }
      for (String c : linked) {
        if (!c.equals(binary) && matchingDebugFile(c, id.orElse(null), link.get())) {
          return c;
        }
      }
    }
    return null;
  }

  /** A debug file with DWARF that belongs to the binary (same build ID, else the link's CRC). */
  private boolean matchingDebugFile(String path, String buildId, DebugLink link)
      throws IOException {
    if (!files.isFile(path)) {
      return false;
    }
    Path local = files.local(path);
    try (ElfFile elf = ElfFile.open(local)) {
      if (!BinarySymbols.hasDwarf(elf)) {
        return false;
      }
      Optional<String> id = elf.buildId();
      if (buildId != null && id.isPresent()) {
        return id.get().equalsIgnoreCase(buildId);
      }
    } catch (IOException e) {
      return false;
    }
    return link != null && (crc32(local) & 0xffffffffL) == link.crc32();
  }

  private static int crc32(Path file) throws IOException {
    CRC32 crc = new CRC32();
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        crc.update(buf, 0, n);
      }
    }
    return (int) crc.getValue();
  }

  static String baseName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
