package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jobs/lib/small-local} and {@code jobs/lib/local-tier}, which pick the JVM options of a
 * local run by its inputs' size ({@code jobs/fleet-aggregate}: below 32 MiB {@code launch --small},
 * below 256 MiB {@code launch --medium}), run as the launchers run it.
 */
class SmallLocalTest {
  @Test
  void aRunIsSmallOrMediumByTheBytesOfItsLocalInputs(@TempDir Path tmp) throws Exception {
    Path demo = Path.of("sample-fleet").toAbsolutePath();
    Path forty = sized(tmp.resolve("forty"), 40L << 20);
    Path three = sized(tmp.resolve("three-hundred"), 300L << 20);
    assertEquals(0, smallLocal(demo.toString()), "the demo fleet is small");
    assertEquals(1, smallLocal(forty.toString()), "40 MiB is not small");
    assertEquals(0, smallLocal("--below", "256", forty.toString()), "40 MiB is below 256 MiB");
    assertEquals(1, smallLocal("--below", "256", three.toString()), "300 MiB is not");
    // Together: 40 MiB and the demo fleet are below 256 MiB; with 300 MiB more they are not.
    assertEquals(0, smallLocal("--below", "256", forty.toString(), demo.toString()));
    assertEquals(1, smallLocal("--below", "256", forty.toString(), three.toString()));
    // Not local files: never small, whatever the limit.
    assertEquals(1, smallLocal("--below", "256", "hdfs://namenode/fleet"));
    assertEquals(1, smallLocal("--below", "256"));
    // jobs/lib/local-tier, which jobs/fleet-aggregate and bench/run ask, names the same tiers.
    assertEquals("small", localTier(demo.toString()));
    assertEquals("medium", localTier(forty.toString()));
    assertEquals("", localTier(three.toString()));
    assertEquals("", localTier("hdfs://namenode/fleet"));
  }

  private static String localTier(String... paths) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("bash", "jobs/lib/local-tier"));
    cmd.addAll(List.of(paths));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String tier = new String(p.getInputStream().readAllBytes()).strip();
    assertEquals(0, p.waitFor(), "local-tier's exit");
    return tier;
  }

  /** A directory holding one sparse file of {@code bytes} (its listed size, as du -b counts). */
  private static Path sized(Path dir, long bytes) throws IOException {
    Files.createDirectories(dir);
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("cpu.prof").toFile(), "rw")) {
      f.setLength(bytes);
    }
    return dir;
  }

  private static int smallLocal(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("bash", "jobs/lib/small-local"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).inheritIO().start();
    return p.waitFor();
  }
}
