package dev.fleetprof.format.dcpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.dcpi.DcpiChunkBoundaryChecker.Verdict;
import dev.fleetprof.testing.TestSources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Evaluation of {@link DcpiChunkBoundaryChecker} in the manner of spark-bam: at EVERY 4-byte
 * position of the binary part of every valid sample file, the checker's verdict against the ground
 * truth of a sequential walk of the chunks. False negatives must be 0 (every rule is a necessary
 * condition). False positives and undecided verdicts are asserted to be 0 on the samples (the
 * forward rules alone are also measured and printed: they do produce false positives); {@link
 * #aCraftedChunkFoolsTheChecker} shows false positives remain possible in general.
 *
 * <p>DCPI files are never split: the source reads each in one partition. That crafted chunk is why
 * (nothing in the format marks a chunk start, and counts are free 32-bit values), so the checker
 * lives here, in test code, as the record of that evaluation rather than in the decoder.
 */
class DcpiChunkBoundaryCheckerTest {
  static List<String> validFiles() throws IOException {
    return DcpiSamplesTest.validFiles().collect(java.util.stream.Collectors.toList());
  }

  /** Chunk starts (relative to the binary start) by a plain sequential walk. */
  static Set<Long> groundTruth(byte[] file, long binaryStart) {
    Set<Long> starts = new HashSet<>();
    long footer = file.length - binaryStart - 8;
    long p = 0;
    while (p < footer) {
      starts.add(p);
      long n = DcpiSamplesTest.u32(file, (int) (binaryStart + p + 4));
      p += 8 + 4 * n;
    }
    assertEquals(footer, p, "walk ends at the footer");
    return starts;
  }

  static final class Score {
    long positions;
    long truePositives;
    final List<String> falsePositives = new ArrayList<>();
    final List<String> falseNegatives = new ArrayList<>();
    final List<String> undecided = new ArrayList<>();
  }

  static Score evaluate(byte[] file, DcpiOffsetUnit unit, int maxChunks, long maxBack)
      throws IOException {
    DcpiHeader h = DcpiHeader.parse(file, "eval");
    Set<Long> truth = groundTruth(file, h.binaryStart());
    DcpiChunkBoundaryChecker checker =
        new DcpiChunkBoundaryChecker(h, unit, file.length, maxChunks, maxBack);
    Score s = new Score();
    for (long p = 0; p < checker.binaryLength(); p += 4) {
      s.positions++;
      DcpiChunkBoundaryChecker.Result r = checker.check(file, p);
      boolean isStart = truth.contains(p);
      if (r.verdict() == Verdict.UNDECIDED) {
        s.undecided.add(p + ": " + r.reason());
      } else if (r.verdict() == Verdict.START && !isStart) {
        s.falsePositives.add(String.valueOf(p));
      } else if (r.verdict() == Verdict.NOT_START && isStart) {
        s.falseNegatives.add(p + ": " + r.reason());
      } else if (isStart) {
        s.truePositives++;
      }
    }
    return s;
  }

  @ParameterizedTest
  @MethodSource("validFiles")
  void zeroFalsePositivesAndNegativesAtEveryPosition(String name) throws IOException {
    byte[] file = Files.readAllBytes(DcpiSamplesTest.path(name));
    DcpiOffsetUnit unit = DcpiSamplesTest.unitOf(DcpiSamplesTest.expected(name));
    Score s =
        evaluate(
            file,
            unit,
            DcpiChunkBoundaryChecker.DEFAULT_MAX_CHUNKS,
            DcpiChunkBoundaryChecker.DEFAULT_MAX_BACK_BYTES);
    // for information: the forward rules alone (no backward scan)
    Score forward = evaluate(file, unit, DcpiChunkBoundaryChecker.DEFAULT_MAX_CHUNKS, 0);
    System.out.printf(
        "checker %-28s %-12s positions %6d, chunk starts %5d: false positives %d, false negatives %d,"
            + " undecided %d (forward rules only: FP %d, FN %d)%n",
        name,
        unit,
        s.positions,
        s.truePositives + s.falseNegatives.size(),
        s.falsePositives.size(),
        s.falseNegatives.size(),
        s.undecided.size(),
        forward.falsePositives.size(),
        forward.falseNegatives.size());
    assertEquals(List.of(), s.falseNegatives, name + ": false negatives");
    assertEquals(
        List.of(), forward.falseNegatives, name + ": false negatives of the forward rules");
    assertEquals(List.of(), s.falsePositives, name + ": false positives");
    assertEquals(List.of(), s.undecided, name + ": undecided");
  }

  @Test
  void streamingAndInMemoryVerdictsAgree() throws IOException {
    Path path = DcpiSamplesTest.path("valid-unaligned.prof");
    byte[] file = Files.readAllBytes(path);
    ByteSource src = TestSources.file(path);
    DcpiHeader h = DcpiHeader.read(src);
    DcpiChunkBoundaryChecker c = new DcpiChunkBoundaryChecker(h, DcpiOffsetUnit.BYTES, file.length);
    int starts = 0;
    for (long p = -4; p < c.binaryLength() + 8; p += 2) {
      String a = c.check(src, p).toString();
      String b = c.check(file, p).toString();
      assertEquals(b, a, "position " + p);
      starts += a.equals("START") ? 1 : 0;
    }
    assertEquals(
        DcpiSamplesTest.expected("valid-unaligned.prof").get("chunks"), String.valueOf(starts));
  }

  @Test
  void streamingVerdictsAgreeAcrossBlockBoundariesOfALargeFile() throws IOException {
    byte[] file = Files.readAllBytes(DcpiSamplesTest.path("valid-large.prof"));
    ByteSource src = TestSources.bytes("large", file);
    DcpiHeader h = DcpiHeader.read(src);
    DcpiChunkBoundaryChecker c = new DcpiChunkBoundaryChecker(h, DcpiOffsetUnit.BYTES, file.length);
    Set<Long> positions = new java.util.TreeSet<>(groundTruth(file, h.binaryStart()));
    for (long p = 63_000; p < 68_000; p += 4) {
      positions.add(p);
    }
    for (long p : positions) {
      assertEquals(c.check(file, p).toString(), c.check(src, p).toString(), "position " + p);
    }
  }

  /**
   * Counts are free 32-bit values, so a chunk's counts can spell chunks: here chunk A's counts
   * {@code 8, 1, 7} read as a one-address chunk at offset 8 that ends where counts {@code 4000, 1,
   * 3} read as a one-address chunk at offset 4000, which ends exactly where the next true chunk
   * (offset 8192) begins. Every rule of the format holds forward and backward along that chain, so
   * no local checker can reject position 24; it is a false positive by construction. The file
   * itself is valid.
   */
  @Test
  void aCraftedChunkFoolsTheChecker() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String header =
        "version pdb-0.07\nimage 1\nepoch 9707151200\nplatform alpha\nevent cycles\nperiod 1\n"
            + "tstart 120000000\ntsize 65536\ncpuspeed 500\nsamples\n";
    out.writeBytes(header.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    long[][] chunks = {{0, 5, 8, 1, 7, 4000, 1, 3}, {8192, 2, 2}};
    long nonZero = 0;
    long sum = 0;
    for (long[] c : chunks) {
      DcpiSampleGenerator.u32(out, c[0]);
      DcpiSampleGenerator.u32(out, c.length - 1);
      for (int i = 1; i < c.length; i++) {
        DcpiSampleGenerator.u32(out, c[i]);
        nonZero += c[i] != 0 ? 1 : 0;
        sum += c[i];
      }
    }
    DcpiSampleGenerator.u32(out, nonZero);
    DcpiSampleGenerator.u32(out, sum);
    byte[] file = out.toByteArray();
    assertTrue(DcpiTruncationTest.readsCleanly(TestSources.bytes("crafted", file), "crafted"));
    Score s =
        evaluate(file, DcpiOffsetUnit.BYTES, 64, DcpiChunkBoundaryChecker.DEFAULT_MAX_BACK_BYTES);
    assertEquals(List.of(), s.falseNegatives);
    assertEquals(List.of("24"), s.falsePositives);
    // the forward rules alone also accept 12 (offset 8, number 1), which the backward scan rejects
    Score forward = evaluate(file, DcpiOffsetUnit.BYTES, 64, 0);
    assertEquals(List.of("12", "24"), forward.falsePositives);
  }

  @Test
  void undecidedWhenThePreviousChunkIsBeyondTheBackwardBound() throws IOException {
    byte[] file = Files.readAllBytes(DcpiSamplesTest.path("valid-medium.prof"));
    DcpiHeader h = DcpiHeader.parse(file, "m");
    Set<Long> truth = groundTruth(file, h.binaryStart());
    DcpiChunkBoundaryChecker c =
        new DcpiChunkBoundaryChecker(h, DcpiOffsetUnit.BYTES, file.length, 8, 16);
    int undecided = 0;
    for (long p : truth) {
      Verdict v = c.check(file, p).verdict();
      assertTrue(v != Verdict.NOT_START, "true start " + p + " rejected");
      undecided += v == Verdict.UNDECIDED ? 1 : 0;
    }
    assertTrue(undecided > 0, "chunks longer than 8 counts exist in valid-medium.prof");
  }

  @Test
  void minAddresses() {
    assertEquals(0, DcpiChunkBoundaryChecker.minAddresses(0));
    assertEquals(-1, DcpiChunkBoundaryChecker.minAddresses(4));
    assertEquals(-1, DcpiChunkBoundaryChecker.minAddresses(8));
    assertEquals(1, DcpiChunkBoundaryChecker.minAddresses(12));
    assertEquals(2, DcpiChunkBoundaryChecker.minAddresses(16));
    assertEquals(2, DcpiChunkBoundaryChecker.minAddresses(24)); // two chunks of one
    assertEquals(3, DcpiChunkBoundaryChecker.minAddresses(28));
    assertEquals(3, DcpiChunkBoundaryChecker.minAddresses(36));
  }
}
