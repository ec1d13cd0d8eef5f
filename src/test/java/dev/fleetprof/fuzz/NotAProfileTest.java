package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ForeignFiles;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonFlavor;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.spark.read.HadoopByteSource;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What else lands in a profile directory — a README, binaries and core dumps, gzip files, empty
 * files, images — read as the {@code profile} source reads them (a HadoopByteSource on the local
 * file system, which decompresses {@code *.gz}): detection refuses each with a
 * ProfileFormatException saying what the file looks like, and no decoder, even forced, yields a
 * row. The binaries are the system's own, read at test time.
 */
class NotAProfileTest {
  @TempDir Path dir;

  @Test
  void aReadmeIsText() throws IOException {
    Path readme = copy(Path.of("README.md"), "README");
    refused(readme, "text");
  }

  @Test
  void executablesAndCoreDumpsAreElfFiles() throws IOException {
    Path exe = Path.of("/proc/self/exe").toRealPath(); // the JVM running this test
    String what = refused(copy(exe, "java"), "an ELF ");
    assertTrue(what.contains("executable"), what);
    Path ls = Path.of("/bin/ls");
    // Under CI a missing /bin/ls fails the copy below instead of skipping.
    assumeTrue(Files.isRegularFile(ls) || "true".equals(System.getenv("CI")), "needs /bin/ls");
    refused(copy(ls, "ls"), "an ELF ");
    // A core dump is an ELF file of type ET_CORE (4): the same header with e_type 4.
    byte[] core = Arrays.copyOf(Files.readAllBytes(exe), 1 << 16);
    assertEquals(1, core[5], "a little-endian ELF file");
    core[16] = 4;
    core[17] = 0;
    refused(write("core", core), "an ELF core dump");
  }

  @Test
  void gzipFilesAreReadDecompressedOnlyWhenNamedGz() throws IOException {
    byte[] garbage = new byte[20_000];
    new Random(6).nextBytes(garbage);
    byte[] gz = TestSources.compress(garbage);
    refused(write("garbage.gz", gz), "binary data of no known profile format");
    refused(
        write("garbage.bin", gz),
        "gzip data (only files named *.gz, and pprof profiles, are decompressed)");
    refused(
        write("README.gz", TestSources.compress(Files.readAllBytes(Path.of("README.md")))), "text");
    // The same path for a real profile: a .gz profile is detected from its decompressed bytes.
    byte[] prof = SampleData.read(SampleData.GPERFTOOLS.resolve("x86_32.prof"));
    assertEquals(
        GperftoolsFormat.NAME, detect(write("x86_32.prof.gz", TestSources.compress(prof))));
  }

  @Test
  void anEmptyFileIsSaidToBeEmpty() throws IOException {
    refused(write("empty.prof", new byte[0]), "an empty file");
  }

  /**
   * A PNG 256 pixels wide whose length makes an old-BSD gmon header add up: BSD gmon files have no
   * magic, and this one parses as one exactly (the gmon detector accepts it). Only its signature
   * keeps it from being read as histogram bins and arcs of garbage.
   */
  @Test
  void aPngImageIsNotAnOldBsdGmonFile() throws IOException {
    byte[] png = null;
    Random rnd = new Random(11);
    for (int height = 90; png == null; height++) {
      BufferedImage img = new BufferedImage(256, height, BufferedImage.TYPE_INT_RGB);
      for (int y = 0; y < height; y++) {
        for (int x = 0; x < 256; x++) {
          img.setRGB(x, y, rnd.nextInt());
        }
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ImageIO.write(img, "png", out);
      byte[] b = out.toByteArray();
      if (GmonFile.sniff(b, ProfileFormats.HEAD_BYTES, b.length) == GmonFlavor.BSD_OLD) {
        png = b;
      }
    }
    Path file = write("flamegraph.png", png);
    assertEquals(
        GmonFlavor.BSD_OLD,
        GmonFile.detect(source(file), GmonOptions.auto()).flavor(),
        "the trap is real: the gmon detector reads this PNG as an old BSD file");
    refused(file, "a PNG image");
  }

  /** The other side of refusing: every real sample is still detected as what it is. */
  @Test
  void everySampleIsDetectedAsItsFormat() {
    SampleData.listed()
        .forEach(
            p -> {
              try {
                assertEquals(SampleData.formatOf(p), detect(p), p.toString());
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Detection refuses {@code file} with a description starting with {@code looksLike}; forced,
   * every decoder reports an error and yields nothing. Returns the description.
   */
  private static String refused(Path file, String looksLike) throws IOException {
    ByteSource src = source(file);
    byte[] head = new byte[ProfileFormats.HEAD_BYTES];
    int n = Decode.readHead(src, head);
    assertNull(Decode.formatName(head, n, src.length()), file + " detected as a profile");
    String what = ForeignFiles.describe(head, n);
    assertTrue(what.startsWith(looksLike), file + " looks like " + what);
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> ProfileFormats.require(src.name(), head, n, src.length()).name());
    assertEquals(src.name(), e.file());
    assertEquals(0, e.offset());
    assertTrue(
        e.getMessage()
            .endsWith(
                ": not a profile file of any known format (gperftools,"
                    + " gprof, dcpi, pprof): it looks like "
                    + what),
        e.getMessage());
    if (!looksLike.equals("a PNG image")) { // a forced gprof decoder reads the PNG above: forced
      for (Decode.Decoder forced :
          new Decode.Decoder[] {Decode::gperftools, Decode::gprof, Decode::dcpi, Decode::pprof}) {
        Decoded d = Decode.checked(forced, src, bytes(src));
        assertNotNull(d.error(), file + ": a forced decoder read it: " + d.outcome());
        assertEquals(0, d.records().size(), file.toString());
      }
    }
    return what;
  }

  /** The bytes a decoder sees: decompressed for {@code *.gz}. */
  private static int bytes(ByteSource src) throws IOException {
    try (java.io.InputStream in = src.open(0)) {
      return (int) in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }

  private static String detect(Path file) throws IOException {
    ByteSource src = source(file);
    byte[] head = new byte[ProfileFormats.HEAD_BYTES];
    return Decode.formatName(head, Decode.readHead(src, head), src.length());
  }

  private static ByteSource source(Path file) throws IOException {
    return new HadoopByteSource(file.toUri().toString(), Files.size(file), new Configuration());
  }

  private Path copy(Path from, String name) throws IOException {
    return Files.copy(from, dir.resolve(name));
  }

  private Path write(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }
}
