package dev.fleetprof.format.dcpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sample files of sample-data/dcpi against the generator's expected values and the footers. The
 * profiles that read cleanly with the default options are directly in {@link #DIR}; the README, the
 * {@code .expected} files, the instruction-unit and the malformed variants are in {@link #REF}.
 */
class DcpiSamplesTest {
  static final Path DIR = SampleData.DCPI;
  static final Path REF = SampleData.DCPI_REFERENCE;

  static Stream<String> validFiles() throws IOException {
    return list("valid-");
  }

  static Stream<String> malformedFiles() throws IOException {
    return list("bad-");
  }

  /**
   * Every {@code *.prof} of {@link #DIR} and {@link #REF} by file name (names are unique across
   * both).
   */
  static Map<String, Path> profiles() throws IOException {
    Map<String, Path> m = new java.util.TreeMap<>();
    for (Path d : List.of(DIR, REF)) {
      try (Stream<Path> s = Files.list(d)) {
        for (Path p : s.filter(Files::isRegularFile).collect(Collectors.toList())) {
          String n = p.getFileName().toString();
          if (n.endsWith(".prof") && m.put(n, p) != null) {
            throw new IllegalStateException(n + " is both in " + DIR + " and in " + REF);
          }
        }
      }
    }
    return m;
  }

  /** The path of sample profile {@code name}, in {@link #DIR} or {@link #REF}. */
  static Path path(String name) throws IOException {
    Path p = profiles().get(name);
    if (p == null) {
      throw new IllegalStateException(
          "no " + name + " in " + DIR.toAbsolutePath() + " or " + REF.toAbsolutePath());
    }
    return p;
  }

  private static Stream<String> list(String prefix) throws IOException {
    List<String> names =
        profiles().keySet().stream().filter(n -> n.startsWith(prefix)).collect(Collectors.toList());
    if (names.isEmpty()) {
      throw new IllegalStateException(
          "no " + prefix + "*.prof in " + DIR.toAbsolutePath() + " or its " + REF.getFileName());
    }
    return names.stream();
  }

  static Map<String, String> expected(String name) throws IOException {
    return SampleData.dcpiExpected(name);
  }

  /** All rows of a file, plus what the reader reports at the end. */
  static final class Rows {
    final List<long[]> rows = new ArrayList<>(); // {address, count, recordOffset}
    long chunks;
    long nonZero;
    long sum;
    long footerOffsets;
    long footerSamples;
    DcpiHeader header;
  }

  static Rows readAll(ByteSource source, DcpiOffsetUnit unit) throws IOException {
    Rows r = new Rows();
    try (DcpiProfileReader reader = DcpiProfileReader.open(source, unit)) {
      r.header = reader.header();
      while (reader.next()) {
        assertEquals("sample", reader.kind());
        assertEquals(1, reader.depth());
        assertEquals(reader.address(), reader.pc(0));
        r.rows.add(new long[] {reader.pc(0), reader.count(), reader.recordOffset()});
      }
      assertTrue(reader.finished());
      assertFalse(reader.next(), "next() after the end stays false");
      r.chunks = reader.chunksRead();
      r.nonZero = reader.nonZeroAddresses();
      r.sum = reader.sampleSum();
      r.footerOffsets = reader.footerTotalOffsets();
      r.footerSamples = reader.footerTotalSamples();
    }
    return r;
  }

  static long u32(byte[] b, int at) {
    return (b[at] & 0xffL)
        | (b[at + 1] & 0xffL) << 8
        | (b[at + 2] & 0xffL) << 16
        | (b[at + 3] & 0xffL) << 24;
  }

  static DcpiOffsetUnit unitOf(Map<String, String> exp) {
    return DcpiOffsetUnit.parse(exp.get("offset_unit"));
  }

  /** Relative paths (with {@code /}) of every file and folder under {@code root}, sorted. */
  private static List<String> tree(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> !p.equals(root))
          .map(
              p ->
                  root.relativize(p).toString().replace('\\', '/')
                      + (Files.isDirectory(p) ? "/" : ""))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  @Test
  void committedSamplesEqualAFreshGeneration(@TempDir Path tmp) throws IOException {
    DcpiSampleGenerator.generate(tmp);
    List<String> fresh = tree(tmp);
    List<String> committed = tree(DIR);
    assertEquals(
        fresh, committed, "file set of " + DIR + " (regenerate it, see " + REF + "/README.md)");
    for (String n : fresh) {
      if (!n.endsWith("/")) {
        assertArrayEquals(
            Files.readAllBytes(tmp.resolve(n)),
            Files.readAllBytes(DIR.resolve(n)),
            n + " differs from a fresh generation");
      }
    }
  }

  @Test
  void regeneratingOverTheOldFlatLayoutLeavesNoStaleCopy(@TempDir Path tmp) throws IOException {
    Path clean = tmp.resolve("clean");
    DcpiSampleGenerator.generate(clean);
    // the layout before _reference/: everything flat in the folder
    Path old = Files.createDirectory(tmp.resolve("old"));
    for (String n :
        List.of(
            "README.md",
            "bad-crlf.prof",
            "bad-crlf.prof.expected",
            "valid-small.prof.expected",
            "valid-instructions.prof")) {
      Files.writeString(old.resolve(n), "old");
    }
    DcpiSampleGenerator.generate(old);
    assertEquals(tree(clean), tree(old));
  }

  @Test
  void theProfileSourceSeesOnlyDefaultReadableProfiles() throws IOException {
    // what the profile source lists: every file under DIR, skipping names starting with _ or . (as
    // Spark)
    List<Path> visible = new ArrayList<>();
    try (Stream<Path> s = Files.walk(DIR)) {
      for (Path p : s.filter(Files::isRegularFile).collect(Collectors.toList())) {
        boolean hidden = false;
        for (Path part : DIR.relativize(p)) {
          String n = part.toString();
          hidden |= n.startsWith("_") || n.startsWith(".");
        }
        if (!hidden) {
          visible.add(p);
        }
      }
    }
    visible.sort(null);
    List<String> names = new ArrayList<>();
    for (Path p : visible) {
      String n = p.getFileName().toString();
      names.add(n);
      assertEquals(DIR, p.getParent(), n + " is directly in " + DIR);
      assertTrue(n.startsWith("valid-") && n.endsWith(".prof"), n + " is a valid-*.prof");
      // the default options: DcpiProfileReader.open without a unit
      try (DcpiProfileReader reader = DcpiProfileReader.open(TestSources.file(p))) {
        while (reader.next()) {
          // drain
        }
        assertTrue(reader.finished(), n);
      }
    }
    List<String> expectedNames = new ArrayList<>();
    for (String n : validFiles().collect(Collectors.toList())) {
      if (unitOf(expected(n)) == DcpiOffsetUnit.DEFAULT) {
        expectedNames.add(n);
      }
    }
    assertEquals(expectedNames, names);
    assertTrue(Files.isRegularFile(REF.resolve("valid-instructions.prof")));
    assertTrue(malformedFiles().allMatch(n -> Files.isRegularFile(REF.resolve(n))));
  }

  @Test
  void readmeHoldsTheRegenerationCommandAndExplainsTheReferenceFolder() throws IOException {
    assertFalse(Files.exists(DIR.resolve("README.md")), "README.md would be read as a profile");
    String readme = Files.readString(REF.resolve("README.md"));
    assertTrue(readme.contains(DcpiSampleGenerator.README_COMMAND));
    List<String> lines = readme.lines().collect(Collectors.toList());
    assertTrue(
        lines.get(2).startsWith("This `_reference/` folder is skipped by the `profile` source"),
        lines.get(2));
    // every table path names a committed file
    for (String line : lines) {
      if (line.startsWith("| `")) {
        String rel = line.substring(3, line.indexOf('`', 3));
        assertTrue(Files.isRegularFile(DIR.resolve(rel)), "README table path " + rel);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("validFiles")
  void validFileTotalsMatchFooterAndGenerator(String name) throws IOException {
    Path path = path(name);
    byte[] bytes = Files.readAllBytes(path);
    Map<String, String> exp = expected(name);
    DcpiOffsetUnit unit = unitOf(exp);
    Rows r = readAll(TestSources.file(path), unit);

    // against the footer, read here independently of the decoder
    long footerOffsets = u32(bytes, bytes.length - 8);
    long footerSamples = u32(bytes, bytes.length - 4);
    assertEquals(footerOffsets, r.footerOffsets);
    assertEquals(footerSamples, r.footerSamples);
    assertEquals(footerOffsets, r.rows.size() & 0xffffffffL, "rows vs footer total_offsets");
    long sum = 0;
    for (long[] row : r.rows) {
      sum += row[1];
    }
    assertEquals(footerSamples, sum & 0xffffffffL, "sum of counts vs footer total_samples");

    // against what the generator wrote
    assertEquals(Long.parseLong(exp.get("length")), bytes.length);
    assertEquals(Long.parseLong(exp.get("binary_start")), r.header.binaryStart());
    assertEquals(Long.parseLong(exp.get("chunks")), r.chunks);
    assertEquals(Long.parseLong(exp.get("nonzero_addresses")), r.rows.size());
    assertEquals(Long.parseLong(exp.get("nonzero_addresses")), r.nonZero);
    assertEquals(Long.parseLong(exp.get("sum_counts")), sum);
    assertEquals(Long.parseLong(exp.get("sum_counts")), r.sum);
    assertEquals(Long.parseLong(exp.get("sum_counts_mod_2_32")), r.footerSamples);
    if (r.rows.isEmpty()) {
      assertEquals("none", exp.get("first_address"));
      assertEquals("none", exp.get("last_address"));
    } else {
      assertEquals(exp.get("first_address"), "0x" + Long.toHexString(r.rows.get(0)[0]));
      assertEquals(
          exp.get("last_address"), "0x" + Long.toHexString(r.rows.get(r.rows.size() - 1)[0]));
    }

    // rows: non-zero counts, increasing addresses inside the text, increasing record offsets
    long lo = r.header.tstart();
    long hi = r.header.textLimit();
    for (int i = 0; i < r.rows.size(); i++) {
      long[] row = r.rows.get(i);
      assertTrue(row[1] > 0 && row[1] <= 0xffffffffL, "count in (0, 2^32)");
      assertTrue(
          Long.compareUnsigned(row[0], lo) >= 0 && Long.compareUnsigned(row[0], hi) < 0,
          "address in text");
      assertEquals(0, (row[0] - lo) % 4, "instruction aligned");
      assertEquals(row[1], u32(bytes, (int) row[2]), "recordOffset points at the count");
      if (i > 0) {
        assertTrue(Long.compareUnsigned(row[0], r.rows.get(i - 1)[0]) > 0, "addresses increase");
        assertTrue(row[2] > r.rows.get(i - 1)[2], "record offsets increase");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("validFiles")
  void unknownLengthAndGzipSourcesGiveTheSameRows(String name) throws IOException {
    byte[] bytes = Files.readAllBytes(path(name));
    DcpiOffsetUnit unit = unitOf(expected(name));
    Rows known = readAll(TestSources.bytes(name, bytes), unit);
    for (ByteSource s :
        List.of(TestSources.unknownLength(name, bytes), TestSources.gzip(name, bytes))) {
      Rows other = readAll(s, unit);
      assertEquals(known.rows.size(), other.rows.size());
      for (int i = 0; i < known.rows.size(); i++) {
        assertArrayEquals(known.rows.get(i), other.rows.get(i));
      }
      assertEquals(known.footerSamples, other.footerSamples);
    }
  }

  @ParameterizedTest
  @MethodSource("malformedFiles")
  void malformedFileFailsNamingFileOffsetAndProblem(String name) throws IOException {
    Path path = path(name);
    Map<String, String> exp = expected(name);
    ProfileFormatException e = failure(TestSources.file(path));
    assertNotNull(e, name + " was read without error");
    assertEquals(path.toString(), e.file());
    assertTrue(
        e.getMessage().contains(path.toString()), "message names the file: " + e.getMessage());
    assertTrue(
        e.problem().contains(exp.get("error")),
        "expected '" + exp.get("error") + "' in: " + e.getMessage());
    assertEquals(Long.parseLong(exp.get("offset")), e.offset(), "offset of: " + e.getMessage());
    assertEquals(exp.get("stage"), stage, "stage of: " + e.getMessage());

    // streamed without a known length: still a ProfileFormatException naming the file
    byte[] bytes = Files.readAllBytes(path);
    ProfileFormatException s = failure(TestSources.unknownLength(name, bytes));
    assertNotNull(s, name + " was read without error from an unknown-length source");
    assertTrue(s.getMessage().startsWith(name + ": at byte offset "), s.getMessage());
  }

  private String stage;

  /**
   * Opens and reads everything; returns the ProfileFormatException (and sets the stage) or null.
   */
  private ProfileFormatException failure(ByteSource source) throws IOException {
    DcpiProfileReader reader;
    try {
      reader = DcpiProfileReader.open(source);
    } catch (ProfileFormatException e) {
      stage = "header";
      return e;
    }
    try (reader) {
      while (reader.next()) {
        // drain
      }
      return null;
    } catch (ProfileFormatException e) {
      stage = "records";
      // the reader stays failed
      ProfileFormatException again = assertThrows(ProfileFormatException.class, reader::next);
      assertEquals(e, again);
      return e;
    }
  }

  @Test
  void unknownAndOptionalHeaderKeysAreKept() throws IOException {
    DcpiHeader h = DcpiHeader.read(TestSources.file(path("valid-optional-unknown.prof")));
    assertEquals(
        List.of("hostname", "note", "x-custom-key"), new ArrayList<>(h.unknown().keySet()));
    assertEquals("alpha7.example.com", h.unknown().get("hostname"));
    assertEquals("first\nsecond", h.unknown().get("note"));
    assertEquals("value with\ttab", h.unknown().get("x-custom-key"));
    assertEquals(17, h.lines().size());
    assertEquals("note", h.lines().get(16).getKey());
    assertEquals("second", h.lines().get(16).getValue());
    assertEquals("0000000f", h.cpuamask().orElseThrow());
    assertEquals(2, h.cpuimplv().getAsLong());
    assertEquals(4, h.cpucount().getAsLong());
    assertEquals("/vmunix with spaces  ", h.path().orElseThrow());
    assertEquals("/vmunix with spaces  ", h.pathOrImage());
    assertEquals(4096, h.period().getAsLong());
    assertEquals("9B7D2468ABCDEF01", h.image());
    assertEquals("alpha-osf1-v4.0 (DEC 3000/500)", h.platform());
    assertEquals("dmiss", h.event());
    assertEquals(0x140000000L, h.tstart());
    assertEquals(333, h.cpuspeed());
    assertEquals(java.time.Instant.parse("1999-07-04T12:30:59Z"), h.epoch());
    assertEquals("19990704123059", h.epochText());
    assertEquals("pdb-0.07", h.version());
    assertEquals(0, h.versionMajor());
    assertEquals(7, h.versionMinor());
  }

  @Test
  void headerFactsOfOtherSamples() throws IOException {
    DcpiHeader v6 = DcpiHeader.read(TestSources.file(path("valid-v006.prof")));
    assertEquals("pdb-0.06", v6.version());
    assertEquals(6, v6.versionMinor());
    assertEquals(java.time.Instant.parse("1996-12-25T08:00:00Z"), v6.epoch());
    assertEquals(v6.image(), v6.pathOrImage());
    DcpiHeader y2k = DcpiHeader.read(TestSources.file(path("valid-unaligned.prof")));
    assertEquals(java.time.Instant.parse("2000-01-02T03:04:00Z"), y2k.epoch());
    assertTrue(y2k.binaryStart() % 4 != 0, "unaligned sample has an unaligned binary part");
    DcpiHeader noPeriod = DcpiHeader.read(TestSources.file(path("valid-no-period.prof")));
    assertTrue(noPeriod.period().isEmpty());
    DcpiHeader medium = DcpiHeader.read(TestSources.file(path("valid-medium.prof")));
    assertEquals(java.time.Instant.parse("1998-03-01T12:30:00Z"), medium.epoch());
    assertEquals(0, medium.binaryStart() % 4);
    DcpiHeader v1 = DcpiHeader.read(TestSources.file(path("bad-version-major1.prof")));
    assertEquals(1, v1.versionMajor());
    assertEquals(1, v1.versionMinor());
    assertFalse(v1.binarySupported());
  }

  @Test
  void bigCountsWrapTheFooter() throws IOException {
    Rows r = readAll(TestSources.file(path("valid-bigcounts.prof")), DcpiOffsetUnit.BYTES);
    assertTrue(r.sum > 0xffffffffL, "sum exceeds 2^32");
    assertEquals(r.sum & 0xffffffffL, r.footerSamples);
    assertTrue(r.rows.stream().anyMatch(x -> x[1] == 0xffffffffL));
  }

  @Test
  void theOtherOffsetUnitIsReportedAsAProblem() throws IOException {
    // a byte-offset file read in instruction units puts ranges beyond tsize
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () ->
                readAll(TestSources.file(path("valid-medium.prof")), DcpiOffsetUnit.INSTRUCTIONS));
    assertTrue(e.problem().contains("beyond tsize"), e.getMessage());
    // an instruction-unit file read in bytes has offsets that are not multiples of 4
    ProfileFormatException f =
        assertThrows(
            ProfileFormatException.class,
            () -> readAll(TestSources.file(path("valid-instructions.prof")), DcpiOffsetUnit.BYTES));
    assertTrue(f.problem().contains("not a multiple of 4"), f.getMessage());
    assertTrue(f.problem().contains("INSTRUCTIONS"), f.getMessage());
  }

  @Test
  void instructionUnitAddresses() throws IOException {
    byte[] bytes = Files.readAllBytes(path("valid-instructions.prof"));
    Rows r = readAll(TestSources.bytes("i", bytes), DcpiOffsetUnit.INSTRUCTIONS);
    int at = (int) r.header.binaryStart();
    long firstOffset = u32(bytes, at);
    long i = 0;
    while (u32(bytes, at + 8 + (int) (4 * i)) == 0) {
      i++;
    }
    assertEquals(r.header.tstart() + 4 * (firstOffset + i), r.rows.get(0)[0]);
  }

  @Test
  void unitOption() {
    assertEquals(DcpiOffsetUnit.BYTES, DcpiOffsetUnit.DEFAULT);
    assertEquals(DcpiOffsetUnit.BYTES, DcpiOffsetUnit.parse(null));
    assertEquals(DcpiOffsetUnit.INSTRUCTIONS, DcpiOffsetUnit.parse(" Instructions "));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DcpiOffsetUnit.parse("words"));
    assertTrue(e.getMessage().contains("words"));
  }

  @Test
  void unsupportedVersionKeepsHeaderAndRefusesRecords() throws IOException {
    try (DcpiProfileReader reader =
        DcpiProfileReader.open(TestSources.file(path("bad-version-major1.prof")))) {
      assertEquals("pdb-1.01", reader.header().version());
      ProfileFormatException e = assertThrows(ProfileFormatException.class, reader::next);
      assertTrue(e.problem().startsWith("unsupported DCPI binary version"), e.getMessage());
    }
  }
}
