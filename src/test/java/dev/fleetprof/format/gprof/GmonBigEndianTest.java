package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Big-endian files: each real little-endian sample is converted field by field (by the test's own
 * structure walk, {@link GmonStructure}) and must decode to the same rows.
 */
class GmonBigEndianTest {
  static List<SampleData.Gmon> samples() {
    return SampleData.gmonSamples();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void bigEndianCopyGivesIdenticalRows(SampleData.Gmon s) throws IOException {
    byte[] le = Files.readAllBytes(s.gmon());
    GmonStructure st =
        new GmonStructure(le, s.flavor(), s.pointerSize(), ByteOrder.LITTLE_ENDIAN, 4);
    byte[] be = st.swapped(le);
    assertFalse(java.util.Arrays.equals(le, be));
    assertArrayEquals(
        le,
        new GmonStructure(be, s.flavor(), s.pointerSize(), ByteOrder.BIG_ENDIAN, 4).swapped(be),
        "the conversion is its own inverse");

    ByteSource beSource = TestSources.bytes(s + ".be", be);
    GmonLayout layout = GmonFile.detect(beSource, GmonOptions.auto());
    System.out.println("[detection] " + s + " converted to big-endian: " + layout.describe());
    assertEquals(ByteOrder.BIG_ENDIAN, layout.byteOrder());
    assertEquals(s.flavor(), layout.flavor());
    assertEquals(s.pointerSize(), layout.pointerSize());
    if (s.flavor().isGnu()) {
      assertTrue(layout.byteOrderBasis().startsWith("version word 00 00 00 01 reads 1 big-endian"));
    }

    List<Row> expected = Row.readAll(TestSources.file(s.gmon()), GmonOptions.auto());
    assertFalse(expected.isEmpty());
    assertEquals(expected, Row.readAll(beSource, GmonOptions.auto()));
    assertEquals(expected, Row.readAll(TestSources.gzip(s + ".be.gz", be), GmonOptions.auto()));
    assertEquals(
        expected,
        Row.readAll(
            beSource,
            GmonOptions.auto()
                .withByteOrder(ByteOrder.BIG_ENDIAN)
                .withPointerSize(s.pointerSize())));
  }
}
