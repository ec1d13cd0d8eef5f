package dev.fleetprof.symbols.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The reference: one real {@code c++filt} process fed a list of names, one per line. */
final class CppFilt {
  private CppFilt() {}

  /** What c++filt prints for each name (skips the test, or fails it under CI, without it). */
  static List<String> demangle(List<String> names, Path dir)
      throws IOException, InterruptedException {
    Path cppfilt = ExternalTool.require("c++filt", "binutils");
    Files.createDirectories(dir);
    Path in = Files.createTempFile(dir, "names", ".txt");
    Path out = Files.createTempFile(dir, "demangled", ".txt");
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Files.write(in, names, StandardCharsets.UTF_8);
    Process p = new ProcessBuilder(cppfilt.toString()).redirectInput(in.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("c++filt did not finish in 300 s");
    }
    assertEquals(0, p.exitValue(), Files.readString(err));
    List<String> lines = new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
    assertEquals(names.size(), lines.size(), "c++filt printed one line per name");
    return lines;
  }

  /** Runs a command to completion, failing the test if it fails; returns its standard output. */
  static String run(List<String> command, Path home) throws IOException, InterruptedException {
    ExternalTool.Result r = ExternalTool.run(command, home, java.util.Map.of(), 600);
    assertEquals(0, r.exit(), command + ": " + r.stderr());
    return r.stdout();
  }
}
