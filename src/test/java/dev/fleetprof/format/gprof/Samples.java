package dev.fleetprof.format.gprof;

import java.nio.ByteOrder;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The real sample files in {@code sample-data/gprof/} (path relative to the Maven project root, the
 * working directory of surefire), with what is known about them independently of the decoder: how
 * they were made (see _reference/regenerate.sh), hence their format, pointer size and byte order.
 *
 * <p>Profiles are at {@code ROOT/<dir>/<gmonName>}; what gprof printed for each, and the binary's
 * symbols, are at {@code REFERENCE/<dir>/}, under a name starting with {@code _} so that the profile
 * source, which reads every other file under {@code sample-data/}, skips them.
 */
final class Samples {
  static final Path ROOT = Paths.get("sample-data", "gprof");
  static final Path REFERENCE = ROOT.resolve("_reference");

  record Sample(String dir, String gmonName, GmonFlavor flavor, int pointerSize, String howMade) {
    Path gmon() {
      return ROOT.resolve(dir).resolve(gmonName);
    }

    /** A reference file for this profile: gprof-p.txt, gprof-q.txt, gprof-assign.txt, nm.txt. */
    Path text(String name) {
      return REFERENCE.resolve(dir).resolve(name);
    }

    ByteOrder byteOrder() {
      return ByteOrder.LITTLE_ENDIAN; // every sample was written on x86
    }

    @Override
    public String toString() {
      return dir + "/" + gmonName;
    }
  }

  static final Sample C_PIE_64 =
      new Sample("c-pie-64", "gmon.out", GmonFlavor.GNU_V1, 8, "gcc -pg, x86-64 PIE, glibc");
  static final Sample CXX_NOPIE_64 =
      new Sample("cxx-nopie-64", "gmon.out", GmonFlavor.GNU_V1, 8, "g++ -pg -no-pie, x86-64, glibc");
  static final Sample C_32 =
      new Sample("c-32", "gmon.out", GmonFlavor.GNU_V1, 4, "gcc -m32 -pg, i386 PIE, glibc");
  static final Sample SUM =
      new Sample("c-pie-64-sum", "gmon.sum", GmonFlavor.GNU_V1, 8, "gprof -s of two runs");
  static final Sample BSD44 =
      new Sample("c-pie-64-bsd44", "gmon.bsd44", GmonFlavor.BSD_44, 8, "gprof -s -O 4");
  static final Sample BSD_OLD =
      new Sample("c-pie-64-bsd", "gmon.bsd", GmonFlavor.BSD_OLD, 8, "gprof -s -O b");

  static List<Sample> all() {
    return List.of(C_PIE_64, CXX_NOPIE_64, C_32, SUM, BSD44, BSD_OLD);
  }

  private Samples() {}
}
