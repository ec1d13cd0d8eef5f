package dev.fleetprof.format.gperftools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.CpuProfiles.Decoded;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.PprofRaw;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the decoder against what {@code go tool pprof -raw} reported for the same real profiles
 * (saved in sample-data/gperftools/_reference), after applying to our records exactly what pprof's
 * legacy CPU profile loader changes (profile/legacy_profile.go, cpuProfile and parseCPUSamples).
 */
class CpuProfileReaderTest {

  static List<Path> profiles() {
    return SampleData.gperftoolsProfiles();
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void callChainsAndCountsMatchPprof(Path profile) throws Exception {
    byte[] data = SampleData.read(profile);
    Decoded d = CpuProfiles.decode(profile.toString(), data);
    PprofRaw pprof = PprofRaw.read(SampleData.pprofRaw(profile));

    assertEquals(CpuProfileReader.End.TRAILER, d.end(), "a complete profile ends at its trailer");
    assertEquals(pprof.period, d.header().periodMicros() * 1000, "sampling period");
    long total = d.records().stream().mapToLong(DecodedRecord::count).sum();
    assertEquals(pprof.totalSamples(), total, "total samples");
    assertEquals(
        pprof.addressChains(), asPprofWouldLoad(d.records()), "call chains summed per chain");
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void mappingsAndFileOffsetsMatchPprof(Path profile) throws Exception {
    byte[] data = SampleData.read(profile);
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.bytes(profile.toString(), data));
    PprofRaw pprof = PprofRaw.read(SampleData.pprofRaw(profile));
    MappingIndex index = layout.mappings();
    assertFalse(index.isEmpty(), "every real profile lists executable mappings");
    for (PprofRaw.Location loc : pprof.locations.values()) {
      if (loc.mappingId() == 0) {
        continue;
      }
      long address = loc.address();
      PprofRaw.Mapping pm = pprof.mappings.get(loc.mappingId());
      int m = index.find(address);
      assertTrue(m >= 0, "a mapping holds 0x" + Long.toHexString(address));
      assertEquals(pm.file(), index.get(m).path(), "file of 0x" + Long.toHexString(address));
      assertEquals(
          address - pm.start() + pm.offset(),
          index.get(m).fileOffset(address),
          "file offset of 0x" + Long.toHexString(address));
    }
  }

  /**
   * Our records as pprof's loader turns them into samples: -1 on non-leaf PCs; up to twice, the
   * second frame removed when nearly all samples share it; a leaf duplicated by the unwinder
   * dropped.
   */
  static Map<List<Long>, Long> asPprofWouldLoad(List<DecodedRecord> records) {
    List<List<Long>> chains = new ArrayList<>();
    for (DecodedRecord r : records) {
      List<Long> c = new ArrayList<>();
      for (int i = 0; i < r.pcs().length; i++) {
        c.add(i > 0 ? r.pcs()[i] - 1 : r.pcs()[i]);
      }
      chains.add(c);
    }
    int margin = chains.size() / 32;
    for (int iter = 0; iter < 2; iter++) {
      Map<Long, Integer> second = new HashMap<>();
      for (List<Long> c : chains) {
        if (c.size() > 1) {
          second.merge(c.get(1), 1, Integer::sum);
        }
      }
      for (Map.Entry<Long, Integer> e : second.entrySet()) {
        if (e.getValue() >= chains.size() - margin) {
          for (List<Long> c : chains) {
            if (c.size() > 1 && c.get(1).equals(e.getKey())) {
              c.remove(1);
            }
          }
          break;
        }
      }
    }
    Map<List<Long>, Long> out = new HashMap<>();
    for (int i = 0; i < chains.size(); i++) {
      List<Long> c = chains.get(i);
      if (c.size() > 1 && c.get(0) == c.get(1) + 1) {
        c.remove(1);
      }
      out.merge(c, records.get(i).count(), Long::sum);
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("profiles")
  void bigEndianCopyDecodesToTheSameRecords(Path profile) throws Exception {
    byte[] data = SampleData.read(profile);
    Decoded le = CpuProfiles.decode("le", data);
    int w = le.header().slotWidth();
    byte[] be = CpuProfiles.swapByteOrder(data, w, le.stopOffset() + 3L * w);
    Decoded swapped = CpuProfiles.decode("be", be);
    assertTrue(swapped.header().bigEndian());
    assertEquals(w, swapped.header().slotWidth());
    assertEquals(le.records(), swapped.records());
    assertEquals(CpuProfileReader.End.TRAILER, swapped.end());
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.bytes("be", be));
    assertEquals(le.stopOffset(), layout.trailerOffset());
  }

  @Test
  void extraHeaderSlotsAreSkipped() throws Exception {
    Path p = SampleData.GPERFTOOLS.resolve("deep_recursion.prof");
    byte[] data = SampleData.read(p);
    Decoded plain = CpuProfiles.decode("plain", data);
    // Header slot 1 says 5 instead of 3: two more slots before the first record.
    byte[] more = new byte[data.length + 16];
    System.arraycopy(data, 0, more, 0, 40);
    System.arraycopy(data, 40, more, 56, data.length - 40);
    more[8] = 5;
    Decoded extra = CpuProfiles.decode("extra", more);
    assertEquals(5, extra.header().headerSlots());
    assertEquals(plain.records().size(), extra.records().size());
    for (int i = 0; i < plain.records().size(); i++) {
      assertEquals(plain.records().get(i).offset() + 16, extra.records().get(i).offset());
      assertArrayEquals(plain.records().get(i).pcs(), extra.records().get(i).pcs());
    }
  }

  @Test
  void javaVariantIsRejectedClearly() {
    byte[] data = SampleData.read(SampleData.GPERFTOOLS.resolve("shared_library.prof"));
    data[16] = 1; // header slot 2 (format version) = 1
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> CpuProfileHeader.parse("java.prof", data, 64, data.length));
    assertTrue(
        e.getMessage().contains("java.prof") && e.getMessage().contains("Java"), e.getMessage());
  }

  @Test
  void notAProfileIsRejectedWithFileAndOffset() {
    byte[] text = "this is a README, not a profile\n".getBytes();
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () -> CpuProfileHeader.parse("README.md", text, text.length, text.length));
    assertEquals("README.md", e.file());
    assertEquals(0, e.offset());
  }

  @Test
  void zeroSampleProfileHasNoRecordsButHasMappings() throws Exception {
    Path p = SampleData.GPERFTOOLS.resolve("zero_samples.prof");
    byte[] data = SampleData.read(p);
    Decoded d = CpuProfiles.decode(p.toString(), data);
    assertEquals(0, d.records().size());
    assertEquals(CpuProfileReader.End.TRAILER, d.end());
    assertEquals(40, d.stopOffset());
    CpuProfileLayout layout = CpuProfileLayout.read(TestSources.bytes(p.toString(), data));
    assertEquals(40, layout.trailerOffset());
    assertTrue(layout.mappingsListed() > 0);
  }

  /** Cut at every byte: the complete records before the cut, then TRUNCATED; never an exception. */
  @ParameterizedTest
  @MethodSource("profiles")
  void everyTruncationKeepsTheCompleteRecords(Path profile) throws Exception {
    byte[] data = SampleData.read(profile);
    Decoded full = CpuProfiles.decode("full", data);
    int w = full.header().slotWidth();
    long trailerEnd = full.stopOffset() + 3L * w;
    for (int c = (int) full.header().recordsStart(); c < trailerEnd; c++) {
      final int cut = c;
      byte[] part = java.util.Arrays.copyOf(data, cut);
      Decoded d = CpuProfiles.decode("cut", part);
      assertEquals(CpuProfileReader.End.TRUNCATED, d.end(), "cut at " + cut);
      List<DecodedRecord> expected =
          full.records().stream()
              .filter(r -> r.offset() + (2L + r.pcs().length) * w <= cut)
              .toList();
      assertEquals(expected, d.records(), "cut at " + cut);
      assertFalse(
          CpuProfileLayout.read(TestSources.bytes("cut", part)).hasTrailer()
              && cut < full.stopOffset(),
          "no trailer is seen in a file cut before it");
    }
  }

  @Test
  void aLyingChainLengthIsAnErrorNotAnAllocation() throws Exception {
    byte[] data = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    // First record's n (at offset 48) claims 2^40 PCs.
    data[48 + 5] = 1;
    ProfileFormatException e =
        assertThrows(ProfileFormatException.class, () -> CpuProfiles.decode("lying.prof", data));
    assertEquals(48, e.offset());
    assertTrue(e.getMessage().contains("lying.prof"));
    // Claiming more PCs than the file holds (but under the cap) is a truncation, not an error.
    byte[] data2 = SampleData.read(SampleData.GPERFTOOLS.resolve("x86_32.prof"));
    data2[24] = (byte) 0xff;
    data2[25] = (byte) 0xff; // 4-byte n at offset 24 = 65535
    Decoded d = CpuProfiles.decode("short.prof", data2);
    assertEquals(CpuProfileReader.End.TRUNCATED, d.end());
  }

  @Test
  void countsAndPcsAreUnsigned64BitPatterns() throws Exception {
    // A hand-made 64-bit profile (per the format document) with a vsyscall-page PC and a count
    // above 2^63: both must come back as the same bit patterns.
    java.nio.ByteBuffer b =
        java.nio.ByteBuffer.allocate(8 * 11).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putLong(0).putLong(3).putLong(0).putLong(10000).putLong(0);
    b.putLong(0x8000000000000001L).putLong(1).putLong(0xffffffffff600000L);
    b.putLong(0).putLong(1).putLong(0);
    Decoded d = CpuProfiles.decode("hand.prof", b.array());
    assertEquals(1, d.records().size());
    assertEquals(0x8000000000000001L, d.records().get(0).count());
    assertEquals(0xffffffffff600000L, d.records().get(0).pcs()[0]);
    CpuProfileReader r =
        CpuProfileReader.wholeFile(
            "x", d.header(), new ByteArrayInputStream(b.array()), b.capacity(), false);
    assertTrue(r.next());
    assertEquals(1, r.depth());
  }
}
