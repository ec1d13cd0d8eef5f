package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hand-built files for what the real samples do not contain: basic-block records in both ncounts
 * widths, version-0 headers, ambiguous files, other dimensions, 32-bit and big-endian BSD files.
 * Expected values are written out by hand.
 */
class GmonSyntheticTest {
  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

  private static List<Row> read(String name, byte[] data) throws IOException {
    List<Row> rows = Row.readAll(TestSources.bytes(name, data), GmonOptions.auto());
    assertEquals(
        rows,
        Row.readAll(TestSources.gzip(name + ".gz", data), GmonOptions.auto()),
        "same rows from a stream of unknown length");
    return rows;
  }

  private static Row hist(long pc, long end, long count, long rate, long offset, long container) {
    return new Row("histogram", count, pc, -1, end, rate, "seconds", 's', offset, container);
  }

  private static Row arc(long self, long from, long count, long offset) {
    return new Row("arc", count, self, from, 0, 0, null, (char) 0, offset, offset);
  }

  private static Row bb(long addr, long count, long offset, long container) {
    return new Row("basic_block", count, addr, -1, 0, 0, null, (char) 0, offset, container);
  }

  @Test
  void binRangesFollowGprofsArithmeticNotTheExactFraction() throws IOException {
    // 10 bytes in 3 bins: gprof's scale is (10/2)/3 = 1.67 units of 2 bytes, so the bins start at
    // 2*(0x800 + floor(1.67*i)) = 0x1000, 0x1002, 0x1006 (not 0x1000, 0x1003, 0x1006) and the last
    // ends at 0x100a.
    byte[] f =
        new GmonBuilder(LE, 8)
            .gnuHeader(1)
            .hist(0x1000, 0x100a, 100, "seconds", 's', 7, 0, 65535)
            .bytes();
    int bins = 20 + 1 + 16 + 24;
    assertEquals(
        List.of(
            hist(0x1000, 0x1002, 7, 100, bins, 20), hist(0x1006, 0x100a, 65535, 100, bins + 4, 20)),
        read("bins", f));
  }

  @Test
  void glibcStyleBasicBlocksWithEightByteNcounts() throws IOException {
    GmonBuilder b = new GmonBuilder(LE, 8).gnuHeader(1).arc(0x401020, 0x401100, 5);
    int bbAt = b.size();
    b.bb(8, 0x401100, 3, 0x401180, 0x1_0000_0001L);
    byte[] f = b.arc(0x401030, 0x401180, 9).bytes();
    GmonLayout layout = GmonFile.detect(TestSources.bytes("bb8", f), GmonOptions.auto());
    assertEquals(8, layout.pointerSize());
    assertEquals(8, layout.bbCountWidth());
    assertTrue(
        layout.pointerSizeBasis().contains("ncounts read as 8 bytes"), layout.pointerSizeBasis());
    assertEquals(
        List.of(
            arc(0x401100, 0x401020, 5, 20),
            bb(0x401100, 3, bbAt + 9, bbAt),
            bb(0x401180, 0x1_0000_0001L, bbAt + 25, bbAt),
            arc(0x401180, 0x401030, 9, bbAt + 41)),
        read("bb8", f));
  }

  @Test
  void gprofStyleBasicBlocksWithFourByteNcounts() throws IOException {
    for (ByteOrder order : List.of(LE, BE)) {
      GmonBuilder b = new GmonBuilder(order, 8).gnuHeader(1).arc(0x401020, 0x401100, 5);
      int bbAt = b.size();
      byte[] f = b.bb(4, 0x401100, 3, 0x401180, 4).arc(0x401030, 0x401180, 9).bytes();
      GmonLayout layout = GmonFile.detect(TestSources.bytes("bb4", f), GmonOptions.auto());
      assertEquals(4, layout.bbCountWidth(), order.toString());
      assertEquals(order, layout.byteOrder());
      assertTrue(
          layout.pointerSizeBasis().contains("ncounts read as 4 bytes"), layout.pointerSizeBasis());
      assertEquals(
          List.of(
              arc(0x401100, 0x401020, 5, 20),
              bb(0x401100, 3, bbAt + 5, bbAt),
              bb(0x401180, 4, bbAt + 21, bbAt),
              arc(0x401180, 0x401030, 9, bbAt + 37)),
          read("bb4-" + order, f));
    }
  }

  @Test
  void thirtyTwoBitBasicBlocks() throws IOException {
    byte[] f = new GmonBuilder(BE, 4).gnuHeader(1).bb(4, 0x8048100, 7).bytes();
    GmonLayout layout = GmonFile.detect(TestSources.bytes("bb32", f), GmonOptions.auto());
    assertEquals(4, layout.pointerSize());
    assertEquals(List.of(bb(0x8048100, 7, 25, 20)), read("bb32", f));
  }

  @Test
  void absurdBasicBlockCountIsRejectedAtItsField() {
    byte[] f =
        new GmonBuilder(LE, 8).gnuHeader(1).arc(1, 2, 3).raw(2).num(0x0fff_ffff_ffffL, 8).bytes();
    for (ByteSource src :
        List.of(TestSources.bytes("bb-absurd", f), TestSources.gzip("bb-absurd.gz", f))) {
      ProfileFormatException e =
          assertThrows(
              ProfileFormatException.class,
              () -> Row.readAll(src, GmonOptions.auto().withPointerSize(8)));
      assertEquals(42, e.offset(), e.getMessage());
      assertTrue(e.problem().contains("ncounts"), e.getMessage());
    }
  }

  @Test
  void versionZeroFilesInBothByteOrders() throws IOException {
    for (ByteOrder order : List.of(LE, BE)) {
      byte[] f =
          new GmonBuilder(order, 4)
              .gnuHeader(0)
              .hist(0x8048000, 0x8048010, 60, "seconds", 's', 0, 2, 0, 0)
              .arc(0x8048004, 0x8048008, 11)
              .bytes();
      GmonLayout layout = GmonFile.detect(TestSources.bytes("v0", f), GmonOptions.auto());
      assertEquals(GmonFlavor.GNU_V0, layout.flavor());
      assertEquals(order, layout.byteOrder(), layout.describe());
      assertEquals(4, layout.pointerSize());
      assertTrue(layout.byteOrderBasis().startsWith("version word 0"), layout.byteOrderBasis());
      assertEquals(
          List.of(
              hist(0x8048004, 0x8048008, 2, 60, 20 + 1 + 8 + 24 + 2, 20),
              arc(0x8048008, 0x8048004, 11, 20 + 1 + 8 + 24 + 8)),
          read("v0-" + order, f));
    }
  }

  @Test
  void versionZeroBasicBlocksAreRefused() {
    byte[] f = new GmonBuilder(LE, 8).gnuHeader(0).raw(2).num(0, 4).raw(0).bytes();
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> Row.readAll(TestSources.bytes("v0bb", f), GmonOptions.auto()));
    assertEquals(20, e.offset());
    assertTrue(
        e.problem().contains("version-0 basic-block records are not supported"), e.getMessage());
  }

  @Test
  void headerOnlyFileHasNoRows() throws IOException {
    byte[] f = new GmonBuilder(LE, 8).gnuHeader(1).bytes();
    GmonLayout layout = GmonFile.detect(TestSources.bytes("empty-gmon", f), GmonOptions.auto());
    assertEquals(8, layout.pointerSize());
    assertEquals(0, layout.records());
    assertTrue(layout.pointerSizeBasis().contains("no records"), layout.pointerSizeBasis());
    assertTrue(read("empty-gmon", f).isEmpty());
  }

  @Test
  void fileParsingCompletelyWithBothPointerSizesIsAmbiguous() throws IOException {
    // 273 bytes = 21 arcs of 13 bytes (pointer size 4) = 13 arcs of 21 bytes (pointer size 8)
    byte[] body = new byte[273];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (i % 13 == 0 || i % 21 == 0 ? 1 : 0);
    }
    byte[] f = new GmonBuilder(LE, 8).gnuHeader(1).raw(toInts(body)).bytes();
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> GmonFile.detect(TestSources.bytes("both", f), GmonOptions.auto()));
    assertEquals(20, e.offset());
    assertTrue(e.problem().contains("ambiguous pointer size"), e.getMessage());
    assertTrue(e.problem().contains("gmon.pointerSize"), e.getMessage());
    assertEquals(
        21,
        Row.readAll(TestSources.bytes("both", f), GmonOptions.auto().withPointerSize(4)).size());
    assertEquals(
        13,
        Row.readAll(TestSources.bytes("both", f), GmonOptions.auto().withPointerSize(8)).size());
  }

  @Test
  void otherDimensionsAndRatesArePassedThrough() throws IOException {
    byte[] f =
        new GmonBuilder(LE, 8)
            .gnuHeader(1)
            .hist(0, 8, 1, "i-cache misses", '1', 0, 40000)
            .hist(0, 8, 1, "i-cache misses", '1', 5, 0)
            .bytes();
    List<Row> rows = read("dim", f);
    assertEquals(
        2,
        rows.size(),
        "identical ranges are not summed by the decoder: one row per record and bin");
    for (Row r : rows) {
      assertEquals("i-cache misses", r.dimension());
      assertEquals('1', r.abbrev());
      assertEquals(1, r.rate());
    }
    assertEquals(40000, rows.get(0).count());
    assertEquals(4, rows.get(0).pc0());
    assertEquals(0, rows.get(1).pc0());
  }

  @Test
  void lowAboveHighIsRejected() {
    byte[] f =
        new GmonBuilder(LE, 8)
            .gnuHeader(1)
            .arc(1, 2, 3)
            .hist(0x2000, 0x1000, 100, "seconds", 's', 1)
            .bytes();
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () ->
                Row.readAll(
                    TestSources.bytes("low-high", f), GmonOptions.auto().withPointerSize(8)));
    assertEquals(41, e.offset());
    assertTrue(e.problem().contains("above high_pc"), e.getMessage());
  }

  @Test
  void bsdFilesIn32BitAndBigEndian() throws IOException {
    // 4.4BSD, 32-bit, big-endian: header 32 bytes, 4 bins, 2 arcs of 12 bytes; rate from the header
    GmonBuilder b =
        new GmonBuilder(BE, 4)
            .ptr(0x10000)
            .ptr(0x10010)
            .num(32 + 8, 4)
            .num(0x00051879, 4)
            .num(1000, 4)
            .raw(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            .num(0, 2)
            .num(3, 2)
            .num(0, 2)
            .num(1, 2)
            .ptr(0x10004)
            .ptr(0x1000c)
            .ptr(77)
            .ptr(0x10008)
            .ptr(0x1000c)
            .ptr(0xffffffffL);
    byte[] f = b.bytes();
    GmonLayout layout = GmonFile.detect(TestSources.bytes("bsd44-be32", f), GmonOptions.auto());
    assertEquals(GmonFlavor.BSD_44, layout.flavor());
    assertEquals(BE, layout.byteOrder());
    assertEquals(4, layout.pointerSize());
    assertEquals(32, layout.headerSize());
    assertEquals(
        List.of(
            hist(0x10004, 0x10008, 3, 1000, 34, 0),
            hist(0x1000c, 0x10010, 1, 1000, 38, 0),
            arc(0x1000c, 0x10004, 77, 40),
            arc(0x1000c, 0x10008, 0xffffffffL, 52)),
        read("bsd44-be32", f));

    // the same as old BSD (12-byte header): no rate in the file, the option's rate is reported
    byte[] old =
        new GmonBuilder(BE, 4)
            .ptr(0x10000)
            .ptr(0x10010)
            .num(12 + 8, 4)
            .num(0, 2)
            .num(3, 2)
            .num(0, 2)
            .num(1, 2)
            .ptr(0x10004)
            .ptr(0x1000c)
            .ptr(77)
            .bytes();
    GmonLayout oldLayout = GmonFile.detect(TestSources.bytes("bsd-be32", old), GmonOptions.auto());
    assertEquals(GmonFlavor.BSD_OLD, oldLayout.flavor());
    assertEquals(BE, oldLayout.byteOrder());
    assertEquals(4, oldLayout.pointerSize());
    List<Row> rows =
        Row.readAll(TestSources.bytes("bsd-be32", old), GmonOptions.auto().withOldBsdProfRate(60));
    assertEquals(
        List.of(
            hist(0x10004, 0x10008, 3, 60, 14, 0),
            hist(0x1000c, 0x10010, 1, 60, 18, 0),
            arc(0x1000c, 0x10004, 77, 20)),
        rows);
    assertEquals(100, read("bsd-be32", old).get(0).rate(), "default old-BSD rate");
  }

  @Test
  void manualLayoutSkipsDetection() throws IOException {
    byte[] f = new GmonBuilder(BE, 8).gnuHeader(1).arc(0x10, 0x20, 4).bytes();
    GmonLayout layout = GmonLayout.of(GmonFlavor.GNU_V1, 8, BE, 4);
    try (GmonReader r = GmonFile.open(TestSources.bytes("manual", f), layout)) {
      assertTrue(r.next());
      assertEquals("arc", r.kind());
      assertEquals(2, r.depth());
      assertEquals(0x20, r.pc(0));
      assertEquals(0x10, r.pc(1));
      assertThrows(IndexOutOfBoundsException.class, () -> r.pc(2));
      assertEquals(0, r.binEnd());
      assertNull(r.dimension());
      assertFalse(r.next());
      assertFalse(r.next());
    }
  }

  @Test
  void sniffClaimsEveryGmonMagicButOnlyPlausibleBsdFiles() {
    byte[] v1 = new GmonBuilder(LE, 8).gnuHeader(1).bytes();
    assertEquals(GmonFlavor.GNU_V1, GmonFile.sniff(v1, v1.length, v1.length));
    byte[] ld = new GmonBuilder(LE, 8).gnuHeader(0x1ffff).bytes();
    assertEquals(
        GmonFlavor.GNU_V1, GmonFile.sniff(ld, ld.length, -1), "claimed, so detect() can explain");
    byte[] v0 = new GmonBuilder(BE, 8).gnuHeader(0).bytes();
    assertEquals(GmonFlavor.GNU_V0, GmonFile.sniff(v0, v0.length, v0.length));
    byte[] old =
        new GmonBuilder(LE, 8).ptr(0x1000).ptr(0x2000).num(20 + 4, 4).num(1, 2).num(2, 2).bytes();
    assertEquals(GmonFlavor.BSD_OLD, GmonFile.sniff(old, old.length, old.length));
    assertNull(GmonFile.sniff(old, old.length, -1), "old BSD needs the length");
    assertNull(GmonFile.sniff(old, old.length, old.length + 5));
  }

  @Test
  void optionsFromStrings() {
    GmonOptions o =
        GmonOptions.fromMap(
            Map.of(
                "gmon.pointerSize",
                "4",
                "GMON.BYTEORDER",
                "big",
                "gmon.oldBsdProfRate",
                "1000",
                "unrelated",
                "x"));
    assertEquals(4, o.pointerSize());
    assertEquals(BE, o.byteOrder());
    assertEquals(1000, o.oldBsdProfRate());
    GmonOptions a =
        GmonOptions.fromMap(Map.of("gmon.pointerSize", "auto", "gmon.byteOrder", "auto"));
    assertEquals(0, a.pointerSize());
    assertNull(a.byteOrder());
    assertEquals(8, GmonOptions.fromMap(Map.of("gmon.pointerSize", "64")).pointerSize());
    assertEquals(LE, GmonOptions.fromMap(Map.of("gmon.byteOrder", "LE")).byteOrder());
    assertThrows(
        IllegalArgumentException.class, () -> GmonOptions.fromMap(Map.of("gmon.pointerSize", "2")));
    assertThrows(
        IllegalArgumentException.class,
        () -> GmonOptions.fromMap(Map.of("gmon.byteOrder", "middle")));
    assertThrows(
        IllegalArgumentException.class,
        () -> GmonOptions.fromMap(Map.of("gmon.oldBsdProfRate", "0")));
  }

  private static int[] toInts(byte[] b) {
    int[] out = new int[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = b[i] & 0xff;
    }
    return out;
  }
}
