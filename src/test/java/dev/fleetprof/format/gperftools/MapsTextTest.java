package dev.fleetprof.format.gperftools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import dev.fleetprof.testing.TestSpark;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maps text of real sample profiles, modified as hostile or unusual files have it (a NUL byte,
 * UTF-8 and invalid UTF-8 paths, 100 MB of lines, a million lines, a line longer than pprof reads,
 * text over the limit), checked against what {@code go tool pprof -raw} reads from the same bytes:
 * the records' totals and the module of each leaf address. Where a limit is hit, the records are
 * read with no module and a problem naming the file and the maps text's offset comes after them.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MapsTextTest {
  @TempDir static Path dir;

  /** The library most of the sample's leaf PCs are in. */
  private static final String LIBWORK = "/tmp/fleetprof-gperftools-build/libwork.so";

  private static final Path SAMPLE = SampleData.GPERFTOOLS.resolve("shared_library.prof");
  private static byte[] binary; // the sample's header, records and trailer
  private static String maps; // its maps text
  private static PprofRaw original; // pprof's reading of the unmodified sample
  private static Path hundredMegabytes;

  @BeforeAll
  static void split() throws Exception {
    byte[] data = SampleData.read(SAMPLE);
    int textStart = textStart(data);
    binary = Arrays.copyOf(data, textStart);
    maps = new String(data, textStart, data.length - textStart, StandardCharsets.UTF_8);
    original = pprof(SAMPLE);
    assertTrue(original.totalSamples() > 0);
  }

  /**
   * Where the maps text starts, found as the format says (records {@code count, n, pc...} from the
   * header on, up to the {@code 0, 1, 0} trailer), 64-bit little-endian as the sample was written.
   */
  private static int textStart(byte[] data) {
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    int p = (int) (2 + b.getLong(8)) * 8;
    while (true) {
      long count = b.getLong(p);
      long n = b.getLong(p + 8);
      if (count == 0 && n == 1 && b.getLong(p + 16) == 0) {
        return p + 24;
      }
      p += (int) (2 + n) * 8;
    }
  }

  private static Path write(String name, byte[]... parts) throws IOException {
    Path p = dir.resolve(name);
    try (OutputStream out = Files.newOutputStream(p)) {
      for (byte[] part : parts) {
        out.write(part);
      }
    }
    return p;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** pprof's reading of {@code profile}; its output decoded as UTF-8, invalid bytes as U+FFFD. */
  private static PprofRaw pprof(Path profile) throws Exception {
    Run r = runPprof(profile);
    assertEquals(0, r.exit, "go tool pprof -raw " + profile + ": " + r.stderr);
    return PprofRaw.parse(r.stdout);
  }

  private record Run(int exit, String stdout, String stderr) {}

  private static Run runPprof(Path profile) throws Exception {
    Path go = ExternalTool.require("go", "golang-go");
    Path out = Files.createTempFile(dir, "pprof", ".out");
    Path err = Files.createTempFile(dir, "pprof", ".err");
    ProcessBuilder pb =
        new ProcessBuilder(
                go.toString(),
                "tool",
                "pprof",
                "-raw",
                "-symbolize=none",
                profile.toAbsolutePath().toString())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    Files.createDirectories(dir.resolve("home"));
    pb.environment().put("HOME", dir.resolve("home").toString());
    pb.environment().put("PPROF_TMPDIR", dir.resolve("pprof-tmp").toString());
    pb.environment().put("PPROF_BINARY_PATH", "");
    Process p = pb.start();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "go tool pprof did not finish");
    // new String replaces each invalid UTF-8 sequence with U+FFFD, as the decoder must.
    return new Run(
        p.exitValue(),
        new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
        new String(Files.readAllBytes(err), StandardCharsets.UTF_8));
  }

  /** What pprof says of each leaf address: its mapping's file, or null. */
  private static Map<Long, String> leafModules(PprofRaw raw) {
    Map<Long, String> out = new HashMap<>();
    for (PprofRaw.Sample s : raw.samples) {
      PprofRaw.Location l = raw.locations.get(s.locationIds().get(0));
      PprofRaw.Mapping m = raw.mappings.get(l.mappingId());
      out.put(l.address(), m == null ? null : m.file());
    }
    return out;
  }

  /** What our reader gave: totals, leaf modules, the problem after the records. */
  private record Ours(
      long total,
      long records,
      Map<Long, String> leafModules,
      ProfileFormatException problem,
      long invalidUtf8) {}

  private static Ours read(ByteSource src, long maxMapsText) throws IOException {
    CpuProfileHeader header = CpuProfileLayout.readHeader(src, src.length());
    long total = 0;
    long records = 0;
    Map<Long, String> modules = new HashMap<>();
    ProfileFormatException problem = null;
    try (CpuProfileSplitReader r =
        CpuProfileSplitReader.wholeFile(src, header, DecodeOptions.ALL, maxMapsText)) {
      try {
        while (r.next()) {
          total += r.count();
          records++;
          MappingIndex m = r.mappings();
          int i = m.find(r.pc(0));
          modules.put(r.pc(0), i < 0 ? null : m.get(i).path());
        }
      } catch (ProfileFormatException e) {
        problem = e;
      }
      assertFalse(r.next(), "nothing after the problem");
      return new Ours(total, records, modules, problem, r.mapsTextInvalidUtf8());
    }
  }

  private static Ours read(Path p) throws IOException {
    return read(TestSources.file(p), CpuProfileLayout.MAX_MAPS_TEXT);
  }

  private static void assertAgrees(PprofRaw pprof, Ours ours) {
    assertNull(ours.problem(), () -> "no problem expected: " + ours.problem());
    assertEquals(pprof.totalSamples(), ours.total());
    Map<Long, String> expected = leafModules(pprof);
    assertTrue(expected.values().stream().anyMatch(m -> m != null), "pprof names modules");
    assertEquals(expected, ours.leafModules());
  }

  private static void assertModulesMissing(Ours ours, String file, long textStart, String why) {
    assertEquals(original.totalSamples(), ours.total(), "every record is still read");
    assertTrue(ours.leafModules().values().stream().allMatch(m -> m == null), "no module");
    ProfileFormatException e = ours.problem();
    assertNotNull(e, "a limit hit is a problem, not a silent loss of modules");
    assertEquals(file, e.file());
    assertEquals(textStart, e.offset());
    assertTrue(e.getMessage().contains(file), e.getMessage());
    assertTrue(e.problem().contains("module names are missing"), e.problem());
    assertTrue(e.problem().contains(why), e.problem());
  }

  @Test
  void theSampleAsIsAgreesWithPprof() throws Exception {
    assertAgrees(original, read(SAMPLE));
  }

  @Test
  void aNulByteInsideTheMapsTextIsOnlyAByte() throws Exception {
    // In a non-executable line, in an executable line's path, and on a line of its own.
    String text =
        maps.replace("[heap]", "[he\0ap]")
            .replace(LIBWORK, "/tmp/fleetprof-gperftools-build/lib\0work.so")
            .replaceFirst("\n", "\n\0\n");
    assertNotEquals(maps, text);
    Path p = write("nul.prof", binary, utf8(text));
    Ours ours = read(p);
    PprofRaw pprof = pprof(p);
    assertAgrees(pprof, ours);
    assertTrue(
        ours.leafModules().containsValue("/tmp/fleetprof-gperftools-build/lib\0work.so"),
        "the NUL is part of the path, as pprof reads it: " + ours.leafModules());
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.file(p));
    assertEquals(binary.length - 24, layout.trailerOffset());
    assertTrue(layout.splittable(), layout.whyNotSplittable());
  }

  @Test
  void pathsAreUtf8AndInvalidBytesAreReplacedAndCounted() throws Exception {
    byte[] text =
        utf8(
            maps.replace(
                "/tmp/fleetprof-gperftools-build/shared_library", "/opt/caf\u00e9/shared_library"));
    // libwork's path with bytes that are no UTF-8: a lone continuation byte, two invalid bytes.
    text =
        replace(
            text,
            utf8(LIBWORK),
            concat(
                utf8("/usr/lib/bad"),
                new byte[] {(byte) 0x80, (byte) 0xff, (byte) 0xfe},
                utf8("/libwork.so")));
    Path p = write("utf8.prof", binary, text);
    Ours ours = read(p);
    assertAgrees(pprof(p), ours);
    assertTrue(ours.leafModules().containsValue("/opt/caf\u00e9/shared_library"), "" + ours);
    assertTrue(
        ours.leafModules().containsValue("/usr/lib/bad\ufffd\ufffd\ufffd/libwork.so"), "" + ours);
    // The JDK's own decoding of the whole text says how many sequences are invalid.
    long expected =
        new String(text, StandardCharsets.UTF_8).chars().filter(c -> c == 0xfffd).count();
    assertTrue(expected > 0);
    assertEquals(expected, ours.invalidUtf8());
  }

  @Test
  void aMillionShortLinesAreAllParsed() throws Exception {
    ByteArrayOutputStream filler = new ByteArrayOutputStream();
    byte[] line = utf8("7fff00000000-7fff00001000 r--p 00000000 00:00 0 [anon]\n");
    for (int i = 0; i < 1_000_000; i++) {
      filler.write(line);
    }
    Path p = write("million.prof", binary, filler.toByteArray(), utf8(maps));
    Ours ours = read(p);
    assertAgrees(pprof(p), ours);
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.file(p));
    assertEquals(1_000_000 + maps.split("\n").length, layout.mappingsListed());
  }

  @Test
  void aLineLongerThanPprofReadsIsStillParsed() throws Exception {
    // pprof reads maps text with a bufio.Scanner, whose 64 KiB token limit makes it fail the
    // whole profile on a longer line; the original file is then the reference.
    String longLine = "00400000-00401000 r--p 00000000 00:00 0 /" + "x".repeat(4 << 20) + "\n";
    Path p = write("longline.prof", binary, utf8(longLine), utf8(maps));
    Run pprof = runPprof(p);
    assertNotEquals(0, pprof.exit(), "pprof refuses lines over 64 KiB: " + pprof.stderr());
    assertTrue(pprof.stderr().contains("token too long"), pprof.stderr());
    assertAgrees(original, read(p));
  }

  /** 100 MB of non-executable lines before the sample's maps lines, written once. */
  private static synchronized Path hundredMegabytes() throws IOException {
    if (hundredMegabytes == null) {
      Path p = dir.resolve("hundred-mb.prof");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(p), 1 << 20)) {
        out.write(binary);
        long written = 0;
        for (long i = 0; written < 100_000_000L; i++) {
          byte[] line =
              utf8(
                  String.format(
                      "%012x-%012x rw-p 00000000 00:00 0 /var/cache/filler-%d%n",
                      0x100000000000L + i * 0x1000, 0x100000001000L + i * 0x1000, i));
          out.write(line);
          written += line.length;
        }
        out.write(utf8(maps));
      }
      hundredMegabytes = p;
    }
    return hundredMegabytes;
  }

  @Test
  void hundredMegabytesOfMapsTextOverTheLimitIsAProblemAfterTheRecords() throws Exception {
    Path p = hundredMegabytes();
    long textStart = binary.length;
    Ours ours = read(p);
    assertModulesMissing(ours, p.toString(), textStart, "more than the limit of 67108864 bytes");

    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.file(p));
    assertFalse(layout.splittable());
    assertTrue(
        layout.whyNotSplittable().contains("longer than the limit"), layout.whyNotSplittable());
  }

  @Test
  void hundredMegabytesOfMapsTextWithinARaisedLimitAgreesWithPprof() throws Exception {
    Path p = hundredMegabytes();
    long limit = 128L << 20;
    assertAgrees(pprof(p), read(TestSources.file(p), limit));
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.file(p), limit);
    assertEquals(binary.length - 24, layout.trailerOffset());
    assertTrue(layout.splittable(), layout.whyNotSplittable());
  }

  @Test
  void sparkGivesTheRecordsAndOneErrorRowNamingTheFile() throws Exception {
    Path only = Files.createDirectories(dir.resolve("spark"));
    Path p = Files.createLink(only.resolve("hundred-mb.prof"), hundredMegabytes());
    SparkSession spark = TestSpark.get();
    List<Row> rows =
        spark
            .read()
            .format("profile")
            .option("mode", "PERMISSIVE")
            .load(only.toString())
            .selectExpr(
                "kind", "count", "error", "exists(frames, f -> f.module IS NOT NULL)", "path")
            .collectAsList();
    long total = 0;
    List<String> errors = new ArrayList<>();
    for (Row r : rows) {
      if (r.getString(0).equals("error")) {
        errors.add(r.getString(2));
      } else {
        total += r.getLong(1);
        assertFalse(r.getBoolean(3), "no module in any frame");
      }
    }
    assertEquals(original.totalSamples(), total, "every record is read");
    assertEquals(1, errors.size(), "one error row: " + errors);
    assertTrue(errors.get(0).contains(p.getFileName().toString()), errors.get(0));
    assertTrue(errors.get(0).contains("module names are missing"), errors.get(0));
    assertTrue(errors.get(0).contains("byte offset " + binary.length), errors.get(0));
  }

  /**
   * Through Spark: the limit is the read option {@code gperftools.maxMapsTextBytes} (a bad value
   * fails at load, naming it), a file over it keeps its records and gets one error row naming the
   * file and the text's offset, and invalid UTF-8 in module paths shows in the scan's metric.
   */
  @Test
  void theLimitIsAReadOptionAndReplacedBytesAreAScanMetric() throws Exception {
    SparkSession spark = TestSpark.get();
    Path only = Files.createDirectories(dir.resolve("spark-limit"));
    write("spark-limit/small.prof", binary, utf8(maps));
    List<Row> rows =
        spark
            .read()
            .format("profile")
            .option(GperftoolsFormat.MAX_MAPS_TEXT, "1000")
            .load(only.toString())
            // Module names are read when a query needs them: frames does.
            .selectExpr("kind", "count", "error", "frames")
            .collectAsList();
    long total = 0;
    List<String> errors = new ArrayList<>();
    for (Row r : rows) {
      if (r.getString(0).equals("error")) {
        errors.add(r.getString(2));
      } else {
        total += r.getLong(1);
      }
    }
    assertEquals(original.totalSamples(), total, "every record is read");
    assertEquals(1, errors.size(), "" + errors);
    assertTrue(errors.get(0).contains("small.prof"), errors.get(0));
    assertTrue(errors.get(0).contains("byte offset " + binary.length), errors.get(0));
    assertTrue(errors.get(0).contains("limit of 1000 bytes"), errors.get(0));

    IllegalArgumentException bad =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option(GperftoolsFormat.MAX_MAPS_TEXT, "lots")
                    .load(only.toString()));
    assertTrue(
        bad.getMessage().contains(GperftoolsFormat.MAX_MAPS_TEXT + "=lots"), bad.getMessage());

    Path invalid = Files.createDirectories(dir.resolve("spark-utf8"));
    byte[] text =
        replace(
            utf8(maps),
            utf8(LIBWORK),
            concat(
                utf8("/usr/lib/bad"), new byte[] {(byte) 0x80, (byte) 0xff}, utf8("/libwork.so")));
    write("spark-utf8/bad-path.prof", binary, text);
    long expected =
        new String(text, StandardCharsets.UTF_8).chars().filter(c -> c == 0xfffd).count();
    assertTrue(expected > 0);
    org.apache.spark.sql.Dataset<Row> read =
        spark.read().format("profile").load(invalid.toString()).select("frames");
    read.collectAsList();
    assertEquals(expected, TestSpark.scanMetric(read, "replacedCharacters"));
  }

  @Test
  void mapsTextOverAConfiguredLimitIsAProblemHoweverTheFileIsRead() throws Exception {
    byte[] data = concat(binary, utf8(maps));
    long limit = 1000; // the sample's maps text is a few KB
    assertTrue(maps.length() > limit);
    // Length known: the tail holds no trailer within the limit.
    assertModulesMissing(
        read(TestSources.bytes("small-limit.prof", data), limit),
        "small-limit.prof",
        binary.length,
        "more than the limit of 1000 bytes");
    // Length unknown (compressed): the walk reaches the trailer and the text is too long.
    assertModulesMissing(
        read(TestSources.gzip("small-limit.prof.gz", data), limit),
        "small-limit.prof.gz",
        binary.length,
        "longer than the limit of 1000 bytes");
    // Within the limit, the same bytes give pprof's modules.
    assertAgrees(original, read(TestSources.bytes("small-limit.prof", data), maps.length()));
  }

  @Test
  void aTrailerLikePatternInsideTheMapsTextIsNotTakenForTheTrailer() throws Exception {
    // 0, 1, 0 slots slot-aligned in a non-executable line: the text after them parses as maps
    // lines, but no record ends there.
    int pad = (8 - (binary.length + maps.indexOf("[heap]") + "[heap".length()) % 8) % 8;
    byte[] fake = new byte[24];
    fake[8] = 1;
    byte[] text =
        replace(
            utf8(maps),
            utf8("[heap]\n"),
            concat(utf8("[heap" + "x".repeat(pad)), fake, utf8("\n")));
    Path p = write("fake-trailer.prof", binary, text);
    assertEquals(0, (indexOf(Files.readAllBytes(p), fake, binary.length) - binary.length) % 8);
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.file(p));
    assertEquals(binary.length - 24, layout.trailerOffset());
    assertAgrees(pprof(p), read(p));
  }

  @Test
  void aTruncatedFileStillSaysItHasNoTrailer() throws Exception {
    byte[] cut = Arrays.copyOf(binary, binary.length - 100);
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.bytes("cut.prof", cut));
    assertFalse(layout.hasTrailer());
    assertEquals("it has no trailer (truncated?)", layout.whyNotSplittable());
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] b : parts) {
      out.writeBytes(b);
    }
    return out.toByteArray();
  }

  private static int indexOf(byte[] data, byte[] what, int from) {
    for (int i = from; i + what.length <= data.length; i++) {
      if (Arrays.equals(data, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    return -1;
  }

  /** {@code data} with every occurrence of {@code what} replaced. */
  private static byte[] replace(byte[] data, byte[] what, byte[] with) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = 0;
    int found;
    while ((found = indexOf(data, what, at)) >= 0) {
      out.write(data, at, found - at);
      out.writeBytes(with);
      at = found + what.length;
    }
    out.write(data, at, data.length - at);
    assertTrue(at > 0, "replaced something");
    return out.toByteArray();
  }
}
