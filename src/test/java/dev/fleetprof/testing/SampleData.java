package dev.fleetprof.testing;

import dev.fleetprof.format.gprof.GmonFlavor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The repo's real sample profiles (paths relative to the Maven project root, the working directory
 * of surefire), the references saved beside them and what those say about them.
 *
 * <p>Each format has a folder; references (what the real tools printed, the binaries the profiles
 * were taken of) sit in its {@code _reference} folder, which the {@code profile} source skips.
 */
public final class SampleData {
  public static final Path ROOT = Path.of("sample-data");
  public static final Path GPERFTOOLS = ROOT.resolve("gperftools");
  public static final Path GPERFTOOLS_REFERENCE = GPERFTOOLS.resolve("_reference");

  /** The binaries the gperftools samples were taken of, for symbolization. */
  public static final Path GPERFTOOLS_BINARIES = GPERFTOOLS_REFERENCE.resolve("bin");

  public static final Path GPROF = ROOT.resolve("gprof");
  public static final Path GPROF_REFERENCE = GPROF.resolve("_reference");

  /** The binaries the gprof samples were taken of. */
  public static final Path GPROF_BINARIES = GPROF_REFERENCE.resolve("bin");

  public static final Path DCPI = ROOT.resolve("dcpi");
  public static final Path DCPI_REFERENCE = DCPI.resolve("_reference");

  /**
   * The demo fleet the quick start aggregates ({@code date=/host=/program=} directories), beside
   * {@link #ROOT} rather than in it: a partitioned subtree next to the per-format folders would
   * make {@link #ROOT} a conflicting directory structure.
   */
  public static final Path FLEET = Path.of("sample-fleet");

  public static final Path FLEET_REFERENCE = FLEET.resolve("_reference");

  /**
   * Where a program's file of a day and host sits in {@link #FLEET}, relative to it: {@code
   * date=D/host=H/program=P/version=V/FILE}, V being the one version that ran there (see
   * sample-fleet/_reference/regenerate.sh).
   */
  public static String fleetProfile(String date, String host, String program, String file) {
    Path dir = FLEET.resolve("date=" + date).resolve("host=" + host).resolve("program=" + program);
    try (Stream<Path> versions = Files.list(dir)) {
      List<Path> found =
          versions.filter(v -> v.getFileName().toString().startsWith("version=")).toList();
      if (found.size() != 1) {
        throw new IllegalStateException(dir + ": not one version= directory: " + found);
      }
      return FLEET.relativize(found.get(0).resolve(file)).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The demo fleet's programs and libfleetwork.so, for symbolization. */
  public static final Path FLEET_BINARIES = FLEET_REFERENCE.resolve("bin");

  /** Go profiles (runtime/pprof) in pprof's profile.proto; see its _reference/regenerate.sh. */
  public static final Path PPROF = ROOT.resolve("pprof");

  public static final Path PPROF_REFERENCE = PPROF.resolve("_reference");

  private SampleData() {}

  /**
   * Every sample file the {@code profile} source lists under {@link #ROOT}: none with a part of its
   * path starting with {@code _} or {@code .}.
   */
  public static List<Path> listed() {
    try (Stream<Path> s = Files.walk(ROOT)) {
      return s.filter(Files::isRegularFile).filter(SampleData::isListed).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies the samples the {@code profile} source lists ({@link #listed()}) to {@code to}. */
  public static Path copyListed(Path to) throws IOException {
    return copy(to, p -> true);
  }

  /**
   * Copies the samples a job reads to {@code to}, but for {@code dcpi/valid-large.prof}: 290 KB of
   * one-instruction DCPI records, 50,000 of the samples' 59,000 stacks, which the source's tests
   * read. Every format and writer variant is still there, for tests of what a job does with them
   * rather than how the source decodes a large file. Returns {@code to}.
   */
  public static Path everyFormat(Path to) throws IOException {
    Path leftOut = DCPI.resolve("valid-large.prof");
    return copy(to, p -> !p.equals(leftOut));
  }

  private static Path copy(Path to, Predicate<Path> keep) throws IOException {
    for (Path p : listed()) {
      if (keep.test(p)) {
        Path target = to.resolve(ROOT.relativize(p).toString());
        Files.createDirectories(target.getParent());
        Files.copy(p, target);
      }
    }
    return to;
  }

  private static boolean isListed(Path p) {
    for (Path part : ROOT.relativize(p)) {
      if (part.toString().startsWith("_") || part.toString().startsWith(".")) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code gperftools}, {@code gprof}, {@code dcpi} or {@code pprof}: the folder a sample sits in.
   */
  public static String formatOf(Path sample) {
    return ROOT.relativize(sample).getName(0).toString();
  }

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

  /** How many samples {@code go tool pprof} counted in a gperftools sample profile. */
  public static long pprofSampleCount(Path profile) {
    return PprofRaw.read(pprofRaw(profile)).totalSamples();
  }

  /**
   * A gprof sample, with what is known about it independently of the decoder: how it was made (see
   * {@code _reference/regenerate.sh}), hence its format, pointer size and byte order. The profile
   * is {@code GPROF/<dir>/<gmonName>}; what gprof printed for it, and the binary's symbols, are in
   * {@code GPROF_REFERENCE/<dir>/}.
   */
  public record Gmon(
      String dir, String gmonName, GmonFlavor flavor, int pointerSize, String howMade) {
    public Path gmon() {
      return GPROF.resolve(dir).resolve(gmonName);
    }

    /** A reference file for this profile: gprof-p.txt, gprof-q.txt, gprof-assign.txt, nm.txt. */
    public Path text(String name) {
      return GPROF_REFERENCE.resolve(dir).resolve(name);
    }

    public ByteOrder byteOrder() {
      return ByteOrder.LITTLE_ENDIAN; // every sample was written on x86
    }

    @Override
    public String toString() {
      return dir + "/" + gmonName;
    }
  }

  public static final Gmon GMON_C_PIE_64 =
      new Gmon("c-pie-64", "gmon.out", GmonFlavor.GNU_V1, 8, "gcc -pg, x86-64 PIE, glibc");
  public static final Gmon GMON_CXX_NOPIE_64 =
      new Gmon("cxx-nopie-64", "gmon.out", GmonFlavor.GNU_V1, 8, "g++ -pg -no-pie, x86-64, glibc");
  public static final Gmon GMON_C_32 =
      new Gmon("c-32", "gmon.out", GmonFlavor.GNU_V1, 4, "gcc -m32 -pg, i386 PIE, glibc");
  public static final Gmon GMON_SUM =
      new Gmon("c-pie-64-sum", "gmon.sum", GmonFlavor.GNU_V1, 8, "gprof -s of two runs");
  public static final Gmon GMON_BSD44 =
      new Gmon("c-pie-64-bsd44", "gmon.bsd44", GmonFlavor.BSD_44, 8, "gprof -s -O 4");
  public static final Gmon GMON_BSD_OLD =
      new Gmon("c-pie-64-bsd", "gmon.bsd", GmonFlavor.BSD_OLD, 8, "gprof -s -O b");

  /** Every gprof sample. */
  public static List<Gmon> gmonSamples() {
    return List.of(GMON_C_PIE_64, GMON_CXX_NOPIE_64, GMON_C_32, GMON_SUM, GMON_BSD44, GMON_BSD_OLD);
  }

  /** The {@code gmon.out} of a gprof sample folder ({@code c-pie-64}, {@code cxx-nopie-64}...). */
  public static Path gmonOut(String sample) {
    return GPROF.resolve(sample).resolve("gmon.out");
  }

  /**
   * The values the DCPI generator wrote for a DCPI sample ({@code _reference/NAME.expected}, lines
   * of {@code key=value}; {@code #} starts a comment line).
   */
  public static Map<String, String> dcpiExpected(String name) {
    Map<String, String> out = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(DCPI_REFERENCE.resolve(name + ".expected"))) {
        int eq = line.indexOf('=');
        if (!line.startsWith("#") && eq > 0) {
          out.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  public static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
