package dev.fleetprof.format.pprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.perftools.profiles.ProfileProto.Function;
import com.google.perftools.profiles.ProfileProto.Line;
import com.google.perftools.profiles.ProfileProto.Location;
import com.google.perftools.profiles.ProfileProto.Profile;
import com.google.perftools.profiles.ProfileProto.Sample;
import com.google.perftools.profiles.ProfileProto.ValueType;
import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.TestSources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Malformed and lying pprof files: each is refused with a {@link ProfileFormatException} naming the
 * file, the byte offset and the problem (as pprof's own parser refuses them), quickly and without
 * allocating by a length field, whether the file's length is known or not (a .gz file).
 */
class PprofHostileInputTest {
  /** A small valid profile: one sample type, one function, one location, one sample. */
  private static Profile.Builder valid() {
    return Profile.newBuilder()
        .addSampleType(ValueType.newBuilder().setType(1).setUnit(2))
        .addSample(Sample.newBuilder().addLocationId(1).addValue(5))
        .addLocation(
            Location.newBuilder()
                .setId(1)
                .setAddress(0x1000)
                .addLine(Line.newBuilder().setFunctionId(1).setLine(7)))
        .addFunction(Function.newBuilder().setId(1).setName(3))
        .addStringTable("")
        .addStringTable("samples")
        .addStringTable("count")
        .addStringTable("main");
  }

  /** The problem reported for {@code data}, the same with a known and an unknown length. */
  private static ProfileFormatException refused(byte[] data) {
    ProfileFormatException known = failure(TestSources.bytes("bad.pb", data));
    ProfileFormatException streamed = failure(TestSources.unknownLength("bad.pb", data));
    assertEquals("bad.pb", known.file());
    assertTrue(known.offset() >= 0 && known.offset() <= data.length, known.getMessage());
    assertTrue(streamed.offset() >= 0 && streamed.offset() <= data.length, streamed.getMessage());
    return known;
  }

  private static ProfileFormatException failure(ByteSource src) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () ->
            assertThrows(
                ProfileFormatException.class,
                () -> {
                  try (PprofReader r = PprofReader.open(src, null)) {
                    while (r.next()) {
                      r.pc(0);
                    }
                  }
                }));
  }

  private static byte[] concat(byte[] a, String hex) {
    byte[] b = HexFormat.of().parseHex(hex);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }

  @Test
  void theValidProfileReads() throws IOException {
    try (PprofReader r =
        PprofReader.open(TestSources.bytes("ok.pb", valid().build().toByteArray()), null)) {
      assertTrue(r.next());
      assertEquals(5, r.count());
      assertEquals(0x1000, r.pc(0));
      assertEquals("main", r.tables().lineFunction(r.location(0), 0));
    }
  }

  @Test
  void aStringLongerThanTheFileIsRefusedBeforeItIsAllocated() {
    // string_table entry (field 6) claiming 2^31 - 1 bytes, then 3 bytes.
    byte[] data = concat(valid().build().toByteArray(), "32ffffffff07616263");
    ProfileFormatException e = refused(data);
    assertTrue(e.problem().contains("2147483647 bytes long"), e.getMessage());
    assertEquals(valid().build().getSerializedSize() + 1, e.offset(), "the length's offset");
  }

  @Test
  void aSampleClaimingGigabytesInAStreamIsRefusedAtTheLimit() {
    // A sample (field 2) of 2^40 bytes: over any file; in a stream, over the field limit.
    byte[] data = concat(valid().build().toByteArray(), "1280808080808001");
    ProfileFormatException e = failure(TestSources.unknownLength("bad.pb", data));
    assertTrue(e.problem().contains("over the limit"), e.getMessage());
    refused(data);
  }

  @Test
  void aNestedLengthPastItsMessageIsRefused() {
    // A location (field 4) of 4 bytes whose line (field 4) claims 100.
    byte[] data = concat(valid().build().toByteArray(), "22040801" + "2264");
    ProfileFormatException e = refused(data);
    assertTrue(e.problem().contains("enclosing message"), e.getMessage());
  }

  @Test
  void groupsAndBadWireTypesAreRefused() {
    assertTrue(refused(concat(new byte[0], "0b0c")).problem().contains("wire type 3"));
    // sample_type (field 1) as a varint
    ProfileFormatException e = refused(concat(valid().build().toByteArray(), "0801"));
    assertTrue(e.problem().contains("sample_type"), e.getMessage());
  }

  @Test
  void anOverlongVarintIsRefused() {
    refused(concat(valid().build().toByteArray(), "48ffffffffffffffffffff01"));
  }

  @Test
  void inconsistentTablesAreRefusedAsPprofRefusesThem() {
    assertTrue(
        refused(
                valid()
                    .addSample(Sample.newBuilder().addLocationId(9).addValue(1))
                    .build()
                    .toByteArray())
            .problem()
            .contains("location 9"));
    assertTrue(
        refused(
                valid()
                    .addSample(Sample.newBuilder().addValue(1).addValue(2))
                    .build()
                    .toByteArray())
            .problem()
            .contains("more values"));
    assertTrue(
        refused(valid().setStringTable(0, "x").build().toByteArray())
            .problem()
            .contains("string_table[0]"));
    assertTrue(
        refused(valid().setDefaultSampleType(99).build().toByteArray())
            .problem()
            .contains("string index 99"));
    assertTrue(
        refused(valid().addLocation(Location.newBuilder().setId(1)).build().toByteArray())
            .problem()
            .contains("id 1"));
    assertTrue(
        refused(
                valid()
                    .addLocation(
                        Location.newBuilder().setId(2).addLine(Line.newBuilder().setFunctionId(4)))
                    .build()
                    .toByteArray())
            .problem()
            .contains("function 4"));
    assertTrue(
        refused(valid().clearSampleType().clearSample().build().toByteArray())
            .problem()
            .contains("no sample_type"));
  }

  @Test
  void manySamplesCostNoMemoryPerSample() throws IOException {
    // 200,000 samples over one location: the tables stay one location, and reading them all
    // allocates far less than the samples would take as objects.
    Profile.Builder p = valid();
    for (int i = 0; i < 200_000; i++) {
      p.addSample(Sample.newBuilder().addLocationId(1).addValue(i));
    }
    byte[] data = p.build().toByteArray();
    var threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    long n = 0;
    try (PprofReader r = PprofReader.open(TestSources.bytes("many.pb", data), null)) {
      while (r.next()) {
        n++;
      }
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertEquals(200_001, n);
    assertTrue(allocated < 4L << 20, "allocated " + allocated + " bytes for 200,000 samples");
  }

  /** A profile whose one location is in a mapping with the given build_id string index. */
  private static Profile.Builder withMapping(long buildIdIndex) {
    return valid()
        .addMapping(
            com.google.perftools.profiles.ProfileProto.Mapping.newBuilder()
                .setId(1)
                .setMemoryStart(0x1000)
                .setMemoryLimit(0x2000)
                .setFileOffset(0x1000)
                .setFilename(4)
                .setBuildId(buildIdIndex))
        .setLocation(
            0,
            Location.newBuilder()
                .setId(1)
                .setMappingId(1)
                .setAddress(0x1000)
                .addLine(Line.newBuilder().setFunctionId(1).setLine(7)))
        .addStringTable("/usr/lib/libfoo.so")
        .addStringTable("8230C9E461F3F70CB67FB6FB223E5F97896BFDB5");
  }

  private static dev.fleetprof.format.Mapping onlyMapping(byte[] data) throws IOException {
    try (PprofReader r = PprofReader.open(TestSources.bytes("m.pb", data), null)) {
      assertEquals(1, r.mappings().size());
      return r.mappings().get(0);
    }
  }

  @Test
  void aMappingsBuildIdIsReadFromTheStringTableLowercased() throws IOException {
    dev.fleetprof.format.Mapping m = onlyMapping(withMapping(5).build().toByteArray());
    assertEquals("/usr/lib/libfoo.so", m.path());
    assertEquals("8230c9e461f3f70cb67fb6fb223e5f97896bfdb5", m.buildId());
    // Index 0, the empty string: none recorded.
    assertEquals(null, onlyMapping(withMapping(0).build().toByteArray()).buildId());
  }

  @Test
  void aBuildIdIndexOutOfTheStringTableIsRefused() {
    ProfileFormatException e = refused(withMapping(99).build().toByteArray());
    assertTrue(e.getMessage().contains("string index 99 is out of range"), e.getMessage());
  }
}
