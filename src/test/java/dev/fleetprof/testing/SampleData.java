package dev.fleetprof.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repo's real sample profiles, and byte sources over them. */
public final class SampleData {
  public static final Path ROOT = Path.of("sample-data");
  public static final Path GPERFTOOLS = ROOT.resolve("gperftools");
  public static final Path GPERFTOOLS_REFERENCE = GPERFTOOLS.resolve("_reference");

  private SampleData() {}

  /** Every gperftools sample profile. */
  public static List<Path> gperftoolsProfiles() {
    try (Stream<Path> s = Files.list(GPERFTOOLS)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".prof")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** pprof's -raw output saved beside a sample profile. */
  public static Path pprofRaw(Path profile) {
    String name = profile.getFileName().toString().replaceFirst("\\.prof$", "");
    return GPERFTOOLS_REFERENCE.resolve(name + ".pprof-raw.txt");
  }

  public static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

}
