package dev.fleetprof.format.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.PprofRaw;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code go tool pprof}, the reference the pprof decoder is checked against: its {@code -raw} dump
 * (values and locations, parsed by {@link PprofRaw}) and its {@code -traces -lines} listing (each
 * sample's labels and frames, parsed here). Locally a missing {@code go} skips the test; with
 * {@code CI=true} it fails.
 */
public final class GoPprof {
  /** One sample of {@code -traces}: its label lines ("key: value") and frame lines. */
  public record Trace(List<String> labels, List<String> frames) {}

  private final Path home;

  public GoPprof(Path home) {
    ExternalTool.require("go", "golang-go");
    this.home = home;
  }

  /** {@code go tool pprof ARGS}'s standard output; fails the test when it fails. */
  public String run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("go", "tool", "pprof"));
    command.addAll(List.of(args));
    ExternalTool.Result r = ExternalTool.run(command, home, Map.of(), 120);
    assertEquals(0, r.exit(), command + " failed: " + r.stderr());
    return r.stdout();
  }

  public PprofRaw raw(Path profile) throws IOException, InterruptedException {
    return PprofRaw.parse(run("-raw", profile.toString()));
  }

  /** {@code -traces -lines} for the sample type at {@code index}. */
  public List<Trace> traces(Path profile, int index) throws IOException, InterruptedException {
    String text = run("-traces", "-lines", "-sample_index=" + index, profile.toString());
    List<Trace> out = new ArrayList<>();
    Trace current = null;
    boolean inFrames = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("-----------+")) {
        current = new Trace(new ArrayList<>(), new ArrayList<>());
        out.add(current);
        inFrames = false;
        continue;
      }
      if (current == null || line.isBlank()) {
        continue; // the header (File:, Type:, ...)
      }
      // Before the frames: "      key:  value"; the first frame: "     30ms   frame"; then
      // "             frame". Columns: 11 characters of label or value, then 3 spaces.
      String left = line.length() > 11 ? line.substring(0, 11).strip() : line.strip();
      String right = line.length() > 13 ? line.substring(13) : "";
      if (!inFrames && left.endsWith(":")) {
        current.labels().add(left + " " + line.substring(Math.min(line.length(), 13)).strip());
      } else {
        inFrames = true;
        current.frames().add(right.replaceFirst(" \\(inline\\)$", "").strip());
      }
    }
    out.removeIf(t -> t.frames().isEmpty()); // after the last separator
    return out;
  }

  static List<Path> write(Path dir, String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return List.of(p);
  }
}
