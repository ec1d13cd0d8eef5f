package dev.fleetprof.output;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real tools the output tests check against ({@code go tool pprof}, Chromium). Locally a
 * missing tool skips the test with a message naming it; with {@code CI=true} it fails the test, so
 * CI cannot pass by skipping.
 */
public final class ExternalTool {
  private ExternalTool() {}

  /** What a finished command printed. */
  public record Result(int exit, String stdout, String stderr) {}

  /** The tool's path on PATH; skips (or fails on CI) naming the Debian package when absent. */
  public static Path require(String command, String debianPackage) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, command);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    String why = "needs " + command + " on PATH (Debian package " + debianPackage + ")";
    if ("true".equals(System.getenv("CI"))) {
      fail(why + ": CI=true, so a missing tool is a failure");
    }
    Assumptions.assumeTrue(false, why);
    return null;
  }

  /**
   * Runs a command to completion with a private HOME (tools write caches and profiles there),
   * failing the test if it outlives {@code timeoutSeconds}.
   */
  public static Result run(
      List<String> command, Path home, Map<String, String> env, long timeoutSeconds)
      throws IOException, InterruptedException {
    Files.createDirectories(home);
    Path out = Files.createTempFile(home, "stdout", ".txt");
    Path err = Files.createTempFile(home, "stderr", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    pb.environment().put("HOME", home.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      fail(command + " did not finish in " + timeoutSeconds + " s");
    }
    return new Result(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
