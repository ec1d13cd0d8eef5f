package dev.fleetprof.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Every real sample profile under {@code sample-data/} (not the {@code _reference} folders). */
final class Samples {
  static final Path ROOT = Path.of("sample-data");

  private Samples() {}

  static Stream<Path> all() {
    try (Stream<Path> s = Files.walk(ROOT)) {
      return s.filter(Files::isRegularFile)
          .filter(Samples::listed)
          .sorted()
          .toList()
          .stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** As the {@code profile} source lists files: no part of the path starts with {@code _} or {@code .}. */
  private static boolean listed(Path p) {
    for (Path part : ROOT.relativize(p)) {
      if (part.toString().startsWith("_") || part.toString().startsWith(".")) {
        return false;
      }
    }
    return true;
  }

  /** {@code gperftools}, {@code gprof} or {@code dcpi}: the folder a sample sits in. */
  static String format(Path sample) {
    return ROOT.relativize(sample).getName(0).toString();
  }

  static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
