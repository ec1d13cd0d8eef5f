package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.fleetprof.format.ForeignFiles;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.dcpi.DcpiFormat;
import dev.fleetprof.format.gperftools.GperftoolsFormat;
import dev.fleetprof.format.gperftools.ProcMapsParser;
import dev.fleetprof.testing.TestSources;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of every decoder with Jazzer. In a plain {@code mvn test} each method
 * runs once per file of its checked-in inputs directory ({@code
 * src/test/resources/dev/fleetprof/fuzz/DecoderFuzzTestInputs/<method>/}: the smallest real samples
 * as seeds, plus every finding so far); {@code fuzz/run} fuzzes them for real, one method per JVM,
 * and findings land in the same directories. Each input is decoded from a known-length and from an
 * unknown-length source and held to {@link Decode}'s contract. The timeout is what makes a slow
 * input a finding while fuzzing (Jazzer passes it to libFuzzer as {@code -timeout}).
 */
class DecoderFuzzTest {
  @FuzzTest
  @Timeout(10)
  void gperftools(byte[] data) {
    Decode.both(Decode::gperftools, "fuzz.prof", data, data.length);
  }

  @FuzzTest
  @Timeout(10)
  void gprof(byte[] data) {
    Decode.both(Decode::gprof, "fuzz.gmon", data, data.length);
  }

  @FuzzTest
  @Timeout(10)
  void dcpi(byte[] data) {
    Decode.both(Decode::dcpi, "fuzz.dcpi", data, data.length, false);
  }

  /** pprof's profile.proto: tables read first, then the samples streamed. */
  @FuzzTest
  @Timeout(10)
  void pprof(byte[] data) {
    Decode.both(Decode::pprof, "fuzz.pb", data, data.length);
  }

  /**
   * The maps text at the end of a gperftools profile: free text, never an error, so the fuzz target
   * only asks for a result in bounded time and memory. The binary targets seldom reach it (it needs
   * a trailer first), hence its own target.
   */
  @FuzzTest
  @Timeout(10)
  void procMaps(byte[] data) {
    String text = new String(data, StandardCharsets.ISO_8859_1);
    Decode.checked(
        src -> {
          List<Mapping> m = ProcMapsParser.parse(text);
          long lines = text.chars().filter(c -> c == '\n').count() + 1;
          assertTrue(m.size() <= lines, "more mappings than lines");
          m.forEach(x -> assertNotNull(x.path()));
          return new Decoded(List.of(), null, Decoded.COMPLETE, m);
        },
        TestSources.bytes("fuzz.maps", data, data.length),
        data.length);
  }

  /**
   * Detection, then the detected decoder, as the {@code profile} source reads a directory of
   * anything: non-profiles must be refused by detection, not decoded as garbage.
   */
  @FuzzTest
  @Timeout(10)
  void formatDetector(byte[] data) {
    int n = Math.min(data.length, ProfileFormats.HEAD_BYTES);
    String format = Decode.formatName(data, n, data.length);
    assertEquals(format, Decode.formatName(data.clone(), n, data.length), "deterministic");
    assertNotNull(ForeignFiles.describe(data, n));
    if (GperftoolsFormat.NAME.equals(format)) {
      assertTrue(n >= 20, "a gperftools header needs 20 bytes");
    } else if (DcpiFormat.NAME.equals(format)) {
      assertTrue(new String(data, 0, n, StandardCharsets.ISO_8859_1).startsWith("version"), "dcpi");
    }
    Decode.autoBoth("fuzz.any", data, data.length);
  }
}
