package dev.fleetprof.symbols.elf;

import dev.fleetprof.symbols.testing.Toolchain;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** The test program (funcs.c plus generated functions) and the ways the tests build it. */
final class TestPrograms {
  private TestPrograms() {}

  /** Build variants: name to gcc flags (all -g0: symbols only, no DWARF). */
  static final Map<String, List<String>> VARIANTS =
      Map.of(
          "pie", List.of(),
          "nopie", List.of("-no-pie"),
          "m32", List.of("-m32"),
          "m32nopie", List.of("-m32", "-no-pie"),
          "lld", List.of("-fuse-ld=lld"),
          "sha1", List.of("-Wl,--build-id=sha1"),
          "noid", List.of("-Wl,--build-id=none"),
          "shared", List.of("-shared", "-fPIC"),
          "object", List.of("-c"));

  /** funcs.c and 300 generated functions of varied sizes. */
  static String source() throws IOException {
    String base;
    try (InputStream in = TestPrograms.class.getResourceAsStream("funcs.c")) {
      base = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    StringBuilder sb = new StringBuilder(base);
    int n = 300;
    for (int i = 0; i < n; i++) {
      sb.append("__attribute__((noinline)) ")
          .append(i % 5 == 0 ? "static " : "")
          .append("int gen_")
          .append(i)
          .append("(int x) {");
      // Some loops so that sizes differ.
      for (int j = 0; j < i % 7; j++) {
        sb.append(" for (int k")
            .append(j)
            .append(" = 0; k")
            .append(j)
            .append(" < x; k")
            .append(j)
            .append("++) x = x * ")
            .append(j + 3)
            .append(" + k")
            .append(j)
            .append(';');
      }
      sb.append(" return x * ").append(i + 1).append(" + ").append(i).append("; }\n");
    }
    sb.append("int generated_sum(int x) { int s = 0;");
    for (int i = 0; i < n; i++) {
      sb.append(" s += gen_").append(i).append("(x);");
    }
    sb.append(" return s; }\n");
    return sb.toString();
  }

  /** Builds a variant into dir (once per dir) and returns the binary. */
  static Path build(Path dir, String variant, String... extraFlags) throws Exception {
    Path out =
        dir.resolve(
            variant
                + (extraFlags.length == 0
                    ? ""
                    : "-" + Math.abs(String.join(" ", extraFlags).hashCode())));
    if (Files.exists(out)) {
      return out;
    }
    List<String> flags = new ArrayList<>(List.of("-O2", "-g0"));
    flags.addAll(VARIANTS.get(variant));
    flags.addAll(Arrays.asList(extraFlags));
    return Toolchain.gcc(dir, out.getFileName().toString(), source(), flags.toArray(String[]::new));
  }
}
