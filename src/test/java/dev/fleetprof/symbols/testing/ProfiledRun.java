package dev.fleetprof.symbols.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import dev.fleetprof.format.gperftools.ProcMapsParser;
import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.DecodedRecord;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real program run under gperftools' CPU profiler ({@code LD_PRELOAD=libprofiler.so.0}), and the
 * code addresses of its samples, read back with the project's gperftools decoder, by module.
 */
public final class ProfiledRun {
  /** libgoogle-perftools-dev's profiler, preloaded into programs that were not linked with it. */
  public static final Path LIBPROFILER = Path.of("/usr/lib/x86_64-linux-gnu/libprofiler.so.0");

  private ProfiledRun() {}

  /** Skips (or, with {@code CI=true}, fails) the test when libprofiler is not installed. */
  public static void requireLibprofiler() {
    if (!Files.isReadable(LIBPROFILER)) {
      String why = "needs " + LIBPROFILER + " (Debian package libgoogle-perftools-dev)";
      if ("true".equals(System.getenv("CI"))) {
        fail(why + ": CI=true, so a missing tool is a failure");
      }
      Assumptions.assumeTrue(false, why);
    }
  }

  /**
   * Runs {@code command} in {@code dir} (a relative program name is looked up on PATH) with the
   * profiler preloaded, sampling at 1000 Hz, and returns the profile's path; fails the test if the
   * program fails or writes no profile.
   */
  public static Path run(Path dir, String name, List<String> command) throws Exception {
    Path profile = dir.resolve(name + ".prof");
    Files.deleteIfExists(profile);
    // Started directly, not through a shell: a shell would load the profiler too, and its exec
    // leaves the program's profile under another name.
    Path log = dir.resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().putAll(Toolchain.ENV);
    pb.environment().put("LD_PRELOAD", LIBPROFILER.toString());
    pb.environment().put("CPUPROFILE", profile.toString());
    pb.environment().put("CPUPROFILE_FREQUENCY", "1000");
    Process p = pb.start();
    if (!p.waitFor(600, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(command + " did not finish in 600 s");
    }
    assertEquals(0, p.exitValue(), command + ": " + Files.readString(log));
    assertTrue(Files.isRegularFile(profile) && Files.size(profile) > 0, name + " wrote no profile");
    return profile;
  }

  /**
   * The file offsets sampled in each file-backed executable module of a profile (by the module's
   * path), as pprof looks them up: a sample's first pc as it is, every caller's pc minus 1 (a
   * return address; minus 1 lands on the call).
   */
  public static Map<String, TreeSet<Long>> sampledOffsets(Path profile) throws Exception {
    byte[] data = Files.readAllBytes(profile);
    CpuProfiles.Decoded d = CpuProfiles.decode(profile.toString(), data);
    assertEquals(CpuProfileReader.End.TRAILER, d.end(), profile + " is incomplete");
    int mapsStart = (int) d.stopOffset() + 3 * d.header().slotWidth(); // the trailer: 0, 1, 0
    String maps = new String(data, mapsStart, data.length - mapsStart, StandardCharsets.UTF_8);
    List<Mapping> mappings = new ArrayList<>();
    for (Mapping m : ProcMapsParser.parse(maps)) {
      if (m.executable() && m.path() != null && m.path().startsWith("/")) {
        mappings.add(m);
      }
    }
    assertTrue(!mappings.isEmpty(), profile + " lists no executable file mappings");
    Map<String, TreeSet<Long>> out = new LinkedHashMap<>();
    for (DecodedRecord rec : d.records()) {
      long[] pcs = rec.pcs();
      for (int i = 0; i < pcs.length; i++) {
        long pc = i == 0 ? pcs[i] : pcs[i] - 1;
        for (Mapping m : mappings) {
          if (m.contains(pc)) {
            out.computeIfAbsent(m.path(), k -> new TreeSet<>()).add(pc - m.start() + m.offset());
            break;
          }
        }
      }
    }
    return out;
  }
}
