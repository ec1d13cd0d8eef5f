package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed files made from the real samples: each must give a ProfileFormatException naming the
 * file and the offset the test computes from its own structure walk, from a file of known length
 * and from a compressed stream of unknown length alike.
 */
class GmonMalformedTest {
  static List<SampleData.Gmon> gnuSamples() {
    return List.of(
        SampleData.GMON_C_PIE_64,
        SampleData.GMON_C_32,
        SampleData.GMON_CXX_NOPIE_64,
        SampleData.GMON_SUM);
  }

  static List<SampleData.Gmon> bsdSamples() {
    return List.of(SampleData.GMON_BSD44, SampleData.GMON_BSD_OLD);
  }

  private static byte[] data(SampleData.Gmon s) throws IOException {
    return Files.readAllBytes(s.gmon());
  }

  private static GmonStructure structure(SampleData.Gmon s, byte[] d) {
    return new GmonStructure(d, s.flavor(), s.pointerSize(), ByteOrder.LITTLE_ENDIAN, 4);
  }

  /**
   * Decodes {@code bad} fully, as a known-length file and as a gzip stream; both must fail at
   * {@code offset}.
   */
  private static ProfileFormatException expectFailure(
      String name, byte[] bad, long offset, String words) {
    ProfileFormatException first = null;
    for (ByteSource src :
        List.of(TestSources.bytes(name, bad), TestSources.gzip(name + ".gz", bad))) {
      ProfileFormatException e =
          assertThrows(
              ProfileFormatException.class, () -> Row.readAll(src, GmonOptions.auto()), src.name());
      assertEquals(src.name(), e.file(), e.getMessage());
      assertEquals(offset, e.offset(), e.getMessage());
      assertTrue(
          e.getMessage().startsWith(src.name() + ": at byte offset " + offset + ": "),
          e.getMessage());
      assertTrue(e.problem().contains(words), e.getMessage());
      if (first == null) {
        first = e;
      }
    }
    System.out.println("[malformed] " + first.getMessage());
    return first;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void truncatedInsideAnArcRecord(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    List<GmonStructure.Rec> arcs = structure(s, d).of('A');
    GmonStructure.Rec arc = arcs.get(arcs.size() / 2);
    byte[] bad = Arrays.copyOf(d, arc.offset() + 1 + 5);
    expectFailure(s + "-cut-in-arc", bad, arc.offset(), "truncated call-arc record");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void truncatedInsideTheHistogramHeader(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    GmonStructure.Rec h = structure(s, d).of('H').get(0);
    expectFailure(
        s + "-cut-in-hist-header",
        Arrays.copyOf(d, h.offset() + 11),
        h.offset(),
        "truncated histogram record header");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void truncatedInsideTheBins(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    GmonStructure.Rec h = structure(s, d).of('H').get(0);
    expectFailure(
        s + "-cut-in-bins",
        Arrays.copyOf(d, h.countField() + 8 + 16 + 101),
        h.countField(),
        "hist_size");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void badTagByte(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    List<GmonStructure.Rec> arcs = structure(s, d).of('A');
    GmonStructure.Rec arc = arcs.get(arcs.size() / 3);
    for (int tag : new int[] {3, 0x7f, 0xff}) {
      byte[] bad = d.clone();
      bad[arc.offset()] = (byte) tag;
      expectFailure(s + "-tag-" + tag, bad, arc.offset(), "bad record tag " + tag);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void absurdHistSizeIsRejectedWithoutReadingTheBins(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    GmonStructure.Rec h = structure(s, d).of('H').get(0);
    for (int n : new int[] {0xfffffff0, 0x7fffffff, d.length}) {
      byte[] bad = d.clone();
      ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(h.countField(), n);
      assertTimeoutPreemptively(
          Duration.ofSeconds(20),
          () ->
              expectFailure(
                  s + "-hist-size-" + Integer.toUnsignedString(n),
                  bad,
                  h.countField(),
                  "hist_size " + Integer.toUnsignedString(n) + " bins"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void glibcLdProfileHeaderIsRejected(SampleData.Gmon s) throws IOException {
    byte[] bad = data(s);
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 0x1ffff);
    expectFailure(s + "-ld-profile", bad, 4, "LD_PROFILE");
    ByteBuffer.wrap(bad).order(ByteOrder.BIG_ENDIAN).putInt(4, 0x1ffff);
    expectFailure(s + "-ld-profile-be", bad, 4, "LD_PROFILE");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void unknownVersionIsRejected(SampleData.Gmon s) throws IOException {
    byte[] bad = data(s);
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 2);
    expectFailure(s + "-v2", bad, 4, "unsupported gmon version");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void headerCutShort(SampleData.Gmon s) throws IOException {
    expectFailure(s + "-10-bytes", Arrays.copyOf(data(s), 10), 10, "too short");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("gnuSamples")
  void partlyOverlappingHistogramIsRejectedAndAnIdenticalOneIsSummable(SampleData.Gmon s)
      throws IOException {
    byte[] d = data(s);
    GmonStructure.Rec h = structure(s, d).of('H').get(0);
    int p = s.pointerSize();
    // a second histogram record with no bins: same range (fine), or shifted by 0x100 (overlap)
    byte[] header = Arrays.copyOfRange(d, h.offset(), h.countField() + 8 + 16);
    ByteBuffer hb = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    hb.putInt(1 + 2 * p, 0);
    byte[] same = concat(d, header);
    assertEquals(
        Row.readAll(TestSources.bytes("orig", d), GmonOptions.auto()),
        Row.readAll(TestSources.bytes("same-range", same), GmonOptions.auto()));
    long low = p == 8 ? hb.getLong(1) : Integer.toUnsignedLong(hb.getInt(1));
    long high = p == 8 ? hb.getLong(1 + p) : Integer.toUnsignedLong(hb.getInt(1 + p));
    if (p == 8) {
      hb.putLong(1, low + 0x100).putLong(1 + p, high + 0x100);
    } else {
      hb.putInt(1, (int) low + 0x100).putInt(1 + p, (int) high + 0x100);
    }
    expectFailure(s + "-overlap", concat(d, header), d.length, "partly overlaps");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bsdSamples")
  void bsdTruncatedInsideAnArc(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    List<GmonStructure.Rec> arcs = structure(s, d).of('a');
    GmonStructure.Rec last = arcs.get(arcs.size() - 1);
    expectFailure(
        s + "-cut-in-arc",
        Arrays.copyOf(d, last.offset() + 7),
        last.offset(),
        "not a whole 24-byte arc");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bsdSamples")
  void bsdTruncatedInsideTheBinsOrAbsurdNcnt(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    GmonStructure.Rec h = structure(s, d).of('h').get(0);
    expectFailure(s + "-cut-in-bins", Arrays.copyOf(d, h.end() - 100), h.countField(), "ncnt");
    byte[] bad = d.clone();
    ByteBuffer.wrap(bad).order(ByteOrder.LITTLE_ENDIAN).putInt(h.countField(), 0x7ffffff0);
    expectFailure(s + "-absurd-ncnt", bad, h.countField(), "ncnt");
  }

  @Test
  void emptyAndTinyFiles() {
    expectFailure("empty", new byte[0], 0, "empty file");
    expectFailure("tiny", new byte[] {1, 2, 3, 4, 5}, 5, "too short");
  }

  // ------------------------------------------------------------------ robustness

  static List<SampleData.Gmon> prefixSamples() {
    return List.of(
        SampleData.GMON_C_PIE_64,
        SampleData.GMON_C_32,
        SampleData.GMON_BSD_OLD,
        SampleData.GMON_BSD44);
  }

  /**
   * Every prefix of a real file: a result or a ProfileFormatException, never anything else, never a
   * hang.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("prefixSamples")
  void everyPrefixFailsCleanlyOrParses(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    List<Row> full = Row.readAll(TestSources.bytes("full", d), GmonOptions.auto());
    int[] outcomes = new int[2];
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          for (int len = 0; len <= d.length; len++) {
            byte[] prefix = Arrays.copyOf(d, len);
            for (int mode = 0; mode < (len % 17 == 0 ? 2 : 1); mode++) {
              String name = s + "-prefix-" + len;
              ByteSource src =
                  mode == 0 ? TestSources.bytes(name, prefix) : TestSources.gzip(name, prefix);
              try {
                List<Row> rows = Row.readAll(src, GmonOptions.auto());
                outcomes[0]++;
                // a prefix that parses must end at a record boundary and give the first rows of the
                // file
                assertTrue(
                    rows.size() <= full.size() && rows.equals(full.subList(0, rows.size())),
                    "prefix " + len + " parsed into rows that are not the file's first rows");
                if (len == d.length) {
                  assertEquals(full, rows);
                }
              } catch (ProfileFormatException e) {
                outcomes[1]++;
                assertEquals(name, e.file());
                assertTrue(e.offset() >= 0 && e.offset() <= len, e.getMessage());
              }
            }
          }
        });
    System.out.println(
        "[prefixes] "
            + s
            + ": "
            + outcomes[0]
            + " parsed, "
            + outcomes[1]
            + " ProfileFormatException");
  }

  /** Random byte corruption of real files: a result or a ProfileFormatException, nothing else. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("prefixSamples")
  void randomCorruptionFailsCleanlyOrParses(SampleData.Gmon s) throws IOException {
    byte[] d = data(s);
    java.util.Random rnd = new java.util.Random(20240611L ^ s.dir().hashCode());
    Function<byte[], byte[]> mutate =
        in -> {
          byte[] out = in.clone();
          int n = 1 + rnd.nextInt(4);
          for (int i = 0; i < n; i++) {
            out[rnd.nextInt(out.length)] = (byte) rnd.nextInt(256);
          }
          return rnd.nextInt(4) == 0 ? Arrays.copyOf(out, rnd.nextInt(out.length + 1)) : out;
        };
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          for (int i = 0; i < 1500; i++) {
            byte[] bad = mutate.apply(d);
            try {
              Row.readAll(TestSources.bytes("fuzz", bad), GmonOptions.auto());
            } catch (ProfileFormatException e) {
              assertEquals("fuzz", e.file());
              assertTrue(e.offset() >= 0 && e.offset() <= bad.length, e.getMessage());
            }
          }
        });
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
