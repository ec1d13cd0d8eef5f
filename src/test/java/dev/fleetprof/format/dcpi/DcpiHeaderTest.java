package dev.fleetprof.format.dcpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ProfileFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The ASCII header grammar, on headers built in memory. */
class DcpiHeaderTest {
  static final String BASE =
      "version pdb-0.07\n"
          + "image 00ff\n"
          + "epoch 9707151200\n"
          + "platform alpha\n"
          + "event cycles\n"
          + "period 62464\n"
          + "tstart 120000000\n"
          + "tsize 4096\n"
          + "cpuspeed 500\n";

  static DcpiHeader parse(String text) throws IOException {
    return DcpiHeader.parse(text.getBytes(StandardCharsets.UTF_8), "mem.prof");
  }

  static ProfileFormatException bad(String text, String fragment) {
    ProfileFormatException e = assertThrows(ProfileFormatException.class, () -> parse(text));
    assertTrue(e.problem().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
    assertTrue(e.getMessage().startsWith("mem.prof: at byte offset "), e.getMessage());
    return e;
  }

  @Test
  void minimalHeader() throws IOException {
    DcpiHeader h = parse(BASE + "samples\n");
    assertEquals(BASE.length() + 8, h.binaryStart());
    assertEquals(0x120000000L, h.tstart());
    assertEquals(4096, h.tsize());
    assertEquals(0x120001000L, h.textLimit());
    assertEquals(62464, h.period().getAsLong());
    assertEquals(Instant.parse("1997-07-15T12:00:00Z"), h.epoch());
    assertTrue(h.unknown().isEmpty());
    assertTrue(
        h.cpuamask().isEmpty()
            && h.cpucount().isEmpty()
            && h.cpuimplv().isEmpty()
            && h.path().isEmpty());
  }

  @Test
  void terminatorMayHaveTrailingSpacesAndTabsAndBinaryStartsAfterItsNewline() throws IOException {
    String text = BASE + "samples \t \n";
    byte[] bytes = (text + "\u0001\u0002").getBytes(StandardCharsets.ISO_8859_1);
    assertEquals(text.length(), DcpiHeader.parse(bytes, "m").binaryStart());
  }

  @Test
  void samplesWithTextIsAnUnknownLineNotTheTerminator() throws IOException {
    DcpiHeader h = parse(BASE + "samples 12\nsamples\n");
    assertEquals("12", h.unknown().get("samples"));
  }

  @Test
  void tabsSeparateKeyAndValueAndEpochForms() throws IOException {
    String t =
        BASE.replace("epoch 9707151200", "epoch\t\t202401311559")
            .replace("tstart 120000000", "tstart \t0X120000000");
    DcpiHeader h = parse(t + "samples\n");
    assertEquals(Instant.parse("2024-01-31T15:59:00Z"), h.epoch());
    assertEquals(0x120000000L, h.tstart());
    assertEquals(
        Instant.parse("2069-12-31T23:59:00Z"),
        parse(BASE.replace("9707151200", "6912312359") + "samples\n").epoch());
    assertEquals(
        Instant.parse("1970-01-01T00:00:00Z"),
        parse(BASE.replace("9707151200", "7001010000") + "samples\n").epoch());
    assertEquals(
        Instant.parse("2004-02-29T23:59:58Z"),
        parse(BASE.replace("9707151200", "20040229235958") + "samples\n").epoch());
  }

  @Test
  void tstartUpTo64Bits() throws IOException {
    assertEquals(
        0xfffffc0000000000L,
        parse(
                BASE.replace("tstart 120000000", "tstart fffffc0000000000")
                        .replace("tsize 4096", "tsize 4096")
                    + "samples\n")
            .tstart());
    bad(
        BASE.replace("tstart 120000000", "tstart 1fffffc0000000000") + "samples\n",
        "larger than 2^64-1");
    bad(BASE.replace("tstart 120000000", "tstart ffffffffffffff00") + "samples\n", "exceeds 2^64");
    bad(BASE.replace("tstart 120000000", "tstart 0x") + "samples\n", "bad 'tstart' value");
    bad(BASE.replace("tstart 120000000", "tstart 12g") + "samples\n", "hexadecimal");
  }

  @Test
  void versionSyntax() throws IOException {
    DcpiHeader h = parse(BASE.replace("pdb-0.07", "pdb-12.345") + "samples\n");
    assertEquals(12, h.versionMajor());
    assertEquals(345, h.versionMinor());
    for (String v :
        new String[] {
          "pdb0.07", "pdb-.07", "pdb-0.", "pdb-0", "pdb-0.07.1", "PDB-0.07", "pdb-a.07", "pdb-0.07 "
        }) {
      ProfileFormatException e =
          bad(BASE.replace("pdb-0.07", v) + "samples\n", "bad 'version' value");
      assertEquals("version ".length(), e.offset());
      assertTrue(e.problem().contains("pdb-<major>.<minor>"), e.getMessage());
    }
    bad(BASE.replace("pdb-0.07", "pdb-99999999999.0") + "samples\n", "too large");
  }

  @Test
  void epochErrors() {
    bad(BASE.replace("9707151200", "970715120") + "samples\n", "10 digits");
    bad(BASE.replace("9707151200", "97071512000") + "samples\n", "10 digits");
    bad(BASE.replace("9707151200", "9702301200") + "samples\n", "not a valid date");
    bad(BASE.replace("9707151200", "9707152400") + "samples\n", "not a valid date");
  }

  @Test
  void typedValuesFollowTheGrammarStrictly() {
    bad(BASE.replace("tsize 4096", "tsize 4096 ") + "samples\n", "trailing whitespace");
    bad(BASE.replace("tsize 4096", "tsize -4") + "samples\n", "decimal digits");
    bad(
        BASE.replace("tsize 4096", "tsize 99999999999999999999") + "samples\n",
        "larger than 2^63-1");
    bad(BASE.replace("image 00ff", "image 0x00ff") + "samples\n", "hexadecimal");
    bad(BASE.replace("cpuspeed 500", "cpuspeed 5e2") + "samples\n", "decimal");
    bad(BASE + "cpuamask zz\nsamples\n", "bad 'cpuamask' value");
  }

  @Test
  void malformedLines() {
    ProfileFormatException e = bad(BASE + "\nsamples\n", "is empty");
    assertEquals(BASE.length(), e.offset());
    bad(BASE + " path /x\nsamples\n", "starts with a space");
    bad(BASE + "path\nsamples\n", "'path' has no value");
    bad(BASE + "path \t \nsamples\n", "'path' has no value");
    bad(BASE + "samples\r\n", "carriage return");
  }

  @Test
  void requiredOnceOptionalAtMostOnce() {
    ProfileFormatException e =
        bad(BASE + "tsize 4096\nsamples\n", "duplicated header line 'tsize'");
    assertEquals(BASE.length(), e.offset());
    assertTrue(e.problem().contains("exactly once"));
    bad(BASE + "period 5\nsamples\n", "duplicated header line 'period'");
    bad(BASE + "path /a\npath /b\nsamples\n", "at most once");
    ProfileFormatException m =
        bad(
            BASE.replace("image 00ff\n", "").replace("cpuspeed 500\n", "") + "samples\n",
            "missing required header lines image, cpuspeed");
    assertEquals(BASE.length() - 11 - 13, m.offset());
  }

  @Test
  void periodMayBeAbsent() throws IOException {
    assertTrue(parse(BASE.replace("period 62464\n", "") + "samples\n").period().isEmpty());
  }

  @Test
  void keysAreCaseSensitiveAndUnknownKeysKeptInOrder() throws IOException {
    DcpiHeader h = parse(BASE + "Version 2\nzeta z\nalpha a\nzeta y\nsamples\n");
    assertEquals(
        java.util.List.of("Version", "zeta", "alpha"),
        new java.util.ArrayList<>(h.unknown().keySet()));
    assertEquals("z\ny", h.unknown().get("zeta"));
    assertEquals("pdb-0.07", h.version());
  }

  @Test
  void headerIsBounded() {
    StringBuilder sb = new StringBuilder(BASE);
    sb.append("note ");
    while (sb.length() < 200_000) {
      sb.append('x');
    }
    ProfileFormatException e = bad(sb.toString(), "header too long");
    assertEquals(DcpiHeader.MAX_HEADER_BYTES, e.offset());
    // a header of exactly the cap is fine
    StringBuilder ok = new StringBuilder(BASE).append("note ");
    while (ok.length() < DcpiHeader.MAX_HEADER_BYTES - "\nsamples\n".length()) {
      ok.append('y');
    }
    ok.append("\nsamples\n");
    assertEquals(DcpiHeader.MAX_HEADER_BYTES, ok.length());
    assertThrows(
        ProfileFormatException.class,
        () -> parse(ok.toString().replace("\nsamples\n", "y\nsamples\n")));
  }

  @Test
  void headerOfExactlyTheCapParses() throws IOException {
    StringBuilder ok = new StringBuilder(BASE).append("note ");
    while (ok.length() < DcpiHeader.MAX_HEADER_BYTES - "\nsamples\n".length()) {
      ok.append('y');
    }
    ok.append("\nsamples\n");
    assertEquals(DcpiHeader.MAX_HEADER_BYTES, parse(ok.toString()).binaryStart());
  }

  @Test
  void truncatedHeader() {
    ProfileFormatException e = bad(BASE, "truncated header");
    assertEquals(BASE.length(), e.offset());
    bad("", "truncated header");
  }

  @Test
  void utf8PathIsDecoded() throws IOException {
    DcpiHeader h = parse(BASE + "path /opt/caf\u00e9/lib.so\nsamples\n");
    assertEquals("/opt/caf\u00e9/lib.so", h.path().orElseThrow());
  }
}
