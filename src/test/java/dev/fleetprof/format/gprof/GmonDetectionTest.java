package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Pointer size and byte order detection on every real sample file. */
class GmonDetectionTest {
  static List<SampleData.Gmon> samples() {
    return SampleData.gmonSamples();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void detectsFlavorPointerSizeAndByteOrder(SampleData.Gmon s) throws IOException {
    GmonLayout layout = GmonFile.detect(TestSources.file(s.gmon()), GmonOptions.auto());
    System.out.println("[detection] " + s + " (" + s.howMade() + "): " + layout.describe());
    assertEquals(s.flavor(), layout.flavor());
    assertEquals(s.pointerSize(), layout.pointerSize());
    assertEquals(ByteOrder.LITTLE_ENDIAN, layout.byteOrder());
    assertEquals(Files.size(s.gmon()), layout.length());
    assertTrue(layout.records() > 0);
    if (s.flavor().isGnu()) {
      assertTrue(
          layout.byteOrderBasis().startsWith("version word 01 00 00 00"), layout.byteOrderBasis());
      assertTrue(
          layout.pointerSizeBasis().startsWith("the only size under which all"),
          layout.pointerSizeBasis());
    } else if (s.flavor() == GmonFlavor.BSD_44) {
      assertTrue(
          layout.pointerSizeBasis().startsWith("4.4BSD version word 0x00051879 at offset 20"),
          layout.pointerSizeBasis());
    } else {
      assertTrue(
          layout.pointerSizeBasis().startsWith("the only old-BSD reading"),
          layout.pointerSizeBasis());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void sameLayoutFromAStreamOfUnknownLength(SampleData.Gmon s) throws IOException {
    byte[] data = Files.readAllBytes(s.gmon());
    GmonLayout fromFile = GmonFile.detect(TestSources.file(s.gmon()), GmonOptions.auto());
    GmonLayout fromGzip =
        GmonFile.detect(TestSources.gzip(s.toString() + ".gz", data), GmonOptions.auto());
    assertEquals(fromFile.flavor(), fromGzip.flavor());
    assertEquals(fromFile.pointerSize(), fromGzip.pointerSize());
    assertEquals(fromFile.byteOrder(), fromGzip.byteOrder());
    assertEquals(fromFile.length(), fromGzip.length());
    assertEquals(fromFile.records(), fromGzip.records());
    assertEquals(
        Row.readAll(TestSources.file(s.gmon()), GmonOptions.auto()),
        Row.readAll(TestSources.gzip(s + ".gz", data), GmonOptions.auto()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void forcingTheRightValuesGivesTheSameRows(SampleData.Gmon s) throws IOException {
    ByteSource src = TestSources.file(s.gmon());
    GmonOptions forced =
        GmonOptions.auto().withPointerSize(s.pointerSize()).withByteOrder(ByteOrder.LITTLE_ENDIAN);
    GmonLayout layout = GmonFile.detect(src, forced);
    assertTrue(
        layout.pointerSizeBasis().startsWith("forced by gmon.pointerSize"),
        layout.pointerSizeBasis());
    assertEquals(Row.readAll(src, GmonOptions.auto()), Row.readAll(src, forced));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void forcingTheWrongValuesFailsClearly(SampleData.Gmon s) {
    ByteSource src = TestSources.file(s.gmon());
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> GmonFile.detect(src, GmonOptions.auto().withPointerSize(12 - s.pointerSize())));
    assertEquals(src.name(), e.file());
    e =
        assertThrows(
            ProfileFormatException.class,
            () -> GmonFile.detect(src, GmonOptions.auto().withByteOrder(ByteOrder.BIG_ENDIAN)));
    assertEquals(src.name(), e.file());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void sniffRecognisesEverySample(SampleData.Gmon s) throws IOException {
    byte[] data = Files.readAllBytes(s.gmon());
    byte[] head = Arrays.copyOf(data, 64);
    assertEquals(s.flavor(), GmonFile.sniff(head, Math.min(64, data.length), data.length));
  }

  @Test
  void sniffRejectsOtherProfileFormats() {
    // gperftools CPU profile header (64-bit): 0, 3, 0, 10000, 0 then a record and the trailer
    byte[] cpu = new byte[64];
    cpu[8] = 3;
    cpu[24] = 0x10;
    cpu[25] = 0x27;
    assertNull(GmonFile.sniff(cpu, cpu.length, 4096));
    byte[] dcpi =
        "version\tpdb-0.0\nimage\t0x1234\nepoch\t9901011200\nsamples\n"
            .getBytes(StandardCharsets.US_ASCII);
    assertNull(GmonFile.sniff(dcpi, dcpi.length, 100000));
    assertNull(GmonFile.sniff(new byte[0], 0, 0));
  }
}
