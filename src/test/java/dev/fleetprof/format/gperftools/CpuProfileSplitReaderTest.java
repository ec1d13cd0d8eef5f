package dev.fleetprof.format.gperftools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.split.SplitPlanner;
import dev.fleetprof.split.SplitPlanner.Slice;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The split hand-off without Spark: a real profile cut into splits of many sizes, each read by its
 * own {@link CpuProfileSplitReader}, gives exactly the records {@code go tool pprof -raw} lists for
 * the whole file, each once; a layout that no longer matches the file fails naming file and offset.
 */
class CpuProfileSplitReaderTest {

  static List<Path> profiles() {
    return SampleData.gperftoolsProfiles();
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void everySplitSizeReadsEachDecodedRecordordOnce(Path profile) throws Exception {
    byte[] data = SampleData.read(profile);
    ByteSource src = TestSources.bytes(profile.toString(), data);
    CpuProfileLayout layout = CpuProfileLayout.read(src);
    List<DecodedRecord> whole = read(new GperftoolsFormat().open(src, DecodeOptions.ALL));
    Map<List<Long>, Long> pprof = PprofRaw.read(SampleData.pprofRaw(profile)).addressChains();
    assertEquals(pprof, CpuProfileReaderTest.asPprofWouldLoad(whole), "the whole file vs pprof");
    if (!layout.splittable()) {
      return; // e.g. a profile without executable mappings: never split
    }
    for (long size : new long[] {1, 7, 24, 64, 333, 1000, 4096, data.length / 3 + 1}) {
      List<DecodedRecord> split = new ArrayList<>();
      int resynced = 0;
      for (Slice s : SplitPlanner.split(src.name(), data.length, layout.trailerOffset(), size)) {
        CpuProfileSplitReader r =
            CpuProfileSplitReader.split(src, layout, s.start(), s.end(), DecodeOptions.ALL);
        resynced += r.resynced() ? 1 : 0;
        split.addAll(read(r));
      }
      assertEquals(whole.size(), split.size(), "records with splits of " + size + " bytes");
      for (int i = 0; i < whole.size(); i++) {
        DecodedRecord a = whole.get(i);
        DecodedRecord b = split.get(i);
        assertTrue(
            a.offset() == b.offset() && a.count() == b.count() && Arrays.equals(a.pcs(), b.pcs()),
            "record " + i + " with splits of " + size);
      }
      assertTrue(size >= layout.trailerOffset() || resynced > 0, "later splits resynchronise");
    }
  }

  @Test
  void aLayoutThatNoLongerMatchesTheFileFailsNamingTheOffset() throws Exception {
    Path profile = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    byte[] data = SampleData.read(profile);
    ByteSource src = TestSources.bytes("changed.prof", data);
    CpuProfileLayout real = CpuProfileLayout.read(src);
    // Planning placed the trailer one record earlier than where reading finds it.
    CpuProfileLayout moved =
        new CpuProfileLayout(
            real.header(),
            real.fileLength(),
            real.trailerOffset() - 3L * real.header().slotWidth(),
            real.mappings(),
            real.mappingsListed());
    CpuProfileSplitReader r =
        CpuProfileSplitReader.split(src, moved, 0, data.length, DecodeOptions.ALL);
    ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> read(r));
    assertEquals(real.trailerOffset(), e.offset(), e.getMessage());
    assertTrue(e.getMessage().startsWith("changed.prof"), e.getMessage());
  }

  @Test
  void aTruncatedWholeFileKeepsItsDecodedRecordordsAndSaysSo() throws Exception {
    Path profile = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    byte[] data = SampleData.read(profile);
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.bytes("full", data));
    int cut = (int) layout.trailerOffset() - 1;
    ByteSource src = TestSources.bytes("cut.prof", Arrays.copyOf(data, cut), cut);
    CpuProfileSplitReader r = new GperftoolsFormat().open(src, DecodeOptions.ALL);
    List<DecodedRecord> got = new ArrayList<>();
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> {
              while (r.next()) {
                got.add(
                    new DecodedRecord(
                        r.recordOffset(), r.count(), Arrays.copyOf(r.pcs(), r.depth())));
              }
            });
    assertTrue(r.truncated(), "reported as truncated");
    assertFalse(got.isEmpty(), "the complete records before the cut are read");
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
  }

  private static List<DecodedRecord> read(CpuProfileSplitReader r) throws IOException {
    List<DecodedRecord> out = new ArrayList<>();
    try (r) {
      while (r.next()) {
        out.add(new DecodedRecord(r.recordOffset(), r.count(), Arrays.copyOf(r.pcs(), r.depth())));
      }
    }
    return out;
  }
}
