package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.format.gperftools.ProcMapsParser;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * One test per defect the decoder audit found, each on an input built to trigger it; every test
 * here failed (or ran out of memory or time) before the fix it names.
 */
class AuditFindingsTest {
  private static final Path X86_32 = SampleData.GPERFTOOLS.resolve("x86_32.prof");

  /**
   * Maps-text variables were substituted one after another over the whole line, so a value naming
   * the next variable was expanded again: 12 definitions of 8 references each asked for 8^11
   * characters. Substitution is now one pass, as in pprof.
   */
  @Test
  void nestedMapsVariablesExpandOnce() {
    StringBuilder text = new StringBuilder();
    for (char v = 'a'; v < 'l'; v++) {
      text.append(v).append('=').append(("$" + (char) (v + 1)).repeat(8)).append('\n');
    }
    text.append("00400000-00500000: /opt/$a/server\n");
    List<Mapping> m =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10), () -> ProcMapsParser.parse(text.toString()));
    assertEquals(
        List.of(new Mapping(0x400000, 0x500000, 0, "/opt/" + "$b".repeat(8) + "/server", true)), m);
  }

  /**
   * Substitution adds at most 4 characters per character of text (plus 1 Mi), however it is asked.
   */
  @Test
  void mapsVariableSubstitutionIsBounded() {
    StringBuilder text = new StringBuilder("a=" + "x".repeat(4096) + "\n");
    String line = "00400000-00500000: /" + "$a".repeat(200) + "\n";
    text.append(line.repeat(2000)); // 850 KB that would expand to 1.6 GB
    byte[] bytes = text.toString().getBytes(StandardCharsets.ISO_8859_1);
    Decoded d =
        assertTimeoutPreemptively(
            Duration.ofSeconds(20),
            () ->
                Decode.checked(
                    src ->
                        new Decoded(
                            List.of(),
                            null,
                            Decoded.COMPLETE,
                            ProcMapsParser.parse(text.toString())),
                    TestSources.bytes("vars.maps", bytes, bytes.length),
                    bytes.length));
    assertEquals(2000, d.mappings().size());
    assertTrue(d.mappings().get(0).path().startsWith("/xxxx"), "the first lines are expanded");
    assertEquals("/" + "$a".repeat(200), d.mappings().get(1999).path(), "the last are not");
  }

  /**
   * A stream (a .gz file) that ends inside a header claiming many header slots made {@code
   * CpuProfileReader.wholeFile} throw EOFException, not a ProfileFormatException.
   */
  @Test
  void aStreamEndingInsideTheHeaderIsAFormatError() {
    ByteBuffer b = ByteBuffer.allocate(100).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0).putLong(1000).putLong(0).putLong(10000).putLong(0); // 1000 header slots
    ProfileFormatException e =
        assertThrows(
            ProfileFormatException.class,
            () ->
                CpuProfileLayout.read(
                    TestSources.unknownLength("hdr.prof.gz", b.array(), 100, true)));
    assertEquals(100, e.offset());
    assertTrue(e.problem().contains("ends inside its header"), e.getMessage());
  }

  /**
   * A stream with a corrupt call-chain length gave no records at all: the layout walk, which runs
   * before the records are read, failed first. It now leaves the error to the record reader, which
   * yields the good records before it, as from a plain file.
   */
  @Test
  void aCorruptRecordInAStreamKeepsTheRecordsBeforeIt() throws Exception {
    byte[] d = Files.readAllBytes(X86_32);
    Decoded full =
        Decode.checked(Decode::gperftools, TestSources.bytes("x", d, d.length), d.length);
    DecodedRecord tenth = full.records().get(10);
    ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN).putInt((int) tenth.offset() + 4, 0x7fffffff);
    Decoded known =
        Decode.checked(Decode::gperftools, TestSources.bytes("bad", d, d.length), d.length);
    Decoded streamed =
        Decode.checked(
            Decode::gperftools, TestSources.unknownLength("bad", d, d.length, true), d.length);
    assertEquals(full.records().subList(0, 10), known.records());
    assertEquals(known.records(), streamed.records());
    assertNotNull(streamed.error());
    assertEquals(tenth.offset() + 4, streamed.error().offset());
  }

  /**
   * A file cut inside its maps text kept the cut line: {@code 0804a000-0804b000 r-xp 00001000 08:01
   * 12 /usr/li} gave a mapping of a file that does not exist (and frames named after it). The line
   * after the last newline is now dropped: gperftools ends every line with one.
   */
  @Test
  void aMapsLineCutShortIsNotBelieved() throws Exception {
    byte[] d = Files.readAllBytes(X86_32);
    List<Mapping> all =
        Decode.checked(Decode::gperftools, TestSources.bytes("x", d, d.length), d.length)
            .mappings();
    String text = new String(d, StandardCharsets.ISO_8859_1);
    int lineStart = text.lastIndexOf('\n', text.lastIndexOf(" r-xp ")) + 1;
    int cut = text.indexOf('/', text.indexOf(" r-xp ", lineStart)) + 4; // inside the path
    Decoded part = Decode.checked(Decode::gperftools, TestSources.bytes("cut", d, cut), cut);
    assertTrue(part.clean(), part.outcome());
    assertTrue(all.containsAll(part.mappings()), part.mappings() + " not all in " + all);
    assertFalse(part.mappings().isEmpty(), "the whole lines before the cut are kept");
  }

  /**
   * Overlapping mappings were searched one by one for every PC: a maps text of a few hundred
   * thousand overlapping lines made each frame cost as many checks. The index now cuts them into
   * disjoint segments owned by the first-listed mapping, checked here against a scan of the list.
   */
  @Test
  void overlappingMappingsCostOneSearchPerPc() {
    Random rnd = new Random(3);
    List<Mapping> listed = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      long start = rnd.nextInt(10_000);
      listed.add(new Mapping(start, start + 1 + rnd.nextInt(3000), 0, "m" + i, rnd.nextInt(5) > 0));
    }
    MappingIndex index = new MappingIndex(listed);
    for (long pc = 0; pc < 14_000; pc++) {
      final long p = pc;
      Mapping first =
          listed.stream().filter(m -> m.executable() && m.contains(p)).findFirst().orElse(null);
      int found = index.find(pc);
      assertEquals(first, found < 0 ? null : index.get(found), "pc " + pc);
    }
    int n = 300_000; // innermost listed first: a PC outside them all was checked against each
    List<Mapping> nested = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      nested.add(new Mapping((n - k) * 16L, (1L << 40) - (n - k) * 16L, 0, "n" + k, true));
    }
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          MappingIndex big = new MappingIndex(nested);
          for (long pc = 0; pc < 7_000_000; pc += 7) {
            long first = pc < 16 ? -1 : Math.max(0, n - pc / 16);
            if (big.find(pc) != first) {
              assertEquals(first, big.find(pc), "pc " + pc);
            }
          }
        });
  }
}
