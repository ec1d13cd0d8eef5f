package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SampleData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's jobs read all of {@code sample-data/} with the profile source, which treats every
 * file it lists as a profile. It skips, inside directories, names starting with {@code _} (without
 * {@code =}) or {@code .} as Spark does (dev.fleetprof.spark.listing.FileLister#hidden, repeated
 * here since it is package-private there); so under {@code sample-data/gprof/} those listed files
 * must be exactly the profiles, and everything else must live under {@code _reference/}.
 */
class SampleLayoutTest {
  private static boolean hidden(String name) {
    return (name.startsWith("_") && !name.contains("="))
        || name.startsWith(".")
        || name.endsWith("._COPYING_");
  }

  private static void list(Path dir, List<Path> out) throws IOException {
    try (Stream<Path> children = Files.list(dir)) {
      for (Path p : (Iterable<Path>) children::iterator) {
        if (hidden(p.getFileName().toString())) {
          continue;
        }
        if (Files.isDirectory(p)) {
          list(p, out);
        } else {
          out.add(p);
        }
      }
    }
  }

  @Test
  void theProfileSourceListsExactlyTheProfiles() throws IOException {
    List<Path> listed = new ArrayList<>();
    list(SampleData.GPROF, listed);
    Set<String> expected = new TreeSet<>();
    for (SampleData.Gmon s : SampleData.gmonSamples()) {
      expected.add(s.gmon().toString());
    }
    Set<String> actual = new TreeSet<>();
    for (Path p : listed) {
      actual.add(p.toString());
    }
    assertEquals(expected, actual);
  }

  @Test
  void everyProfileHasItsReferenceFiles() {
    for (SampleData.Gmon s : SampleData.gmonSamples()) {
      for (String name : List.of("gprof-p.txt", "gprof-q.txt", "gprof-assign.txt", "nm.txt")) {
        assertTrue(Files.isRegularFile(s.text(name)), s.text(name).toString());
      }
    }
    for (String name :
        List.of(
            "README.md",
            "regenerate.sh",
            "versions.txt",
            "src/workload.c",
            "src/shapes.cpp",
            "src/gnu2bsd44.py")) {
      assertTrue(Files.isRegularFile(SampleData.GPROF_REFERENCE.resolve(name)), name);
    }
  }
}
