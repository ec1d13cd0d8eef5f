package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonLayout;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample file cut at every byte: the decoder yields exactly the records the cut leaves whole
 * (as far as the format lets a reader know them to be whole), then reports the cut — a
 * ProfileFormatException, or gperftools' {@code End.TRUNCATED} — unless the prefix is a valid file
 * itself; never another exception, never a hang.
 *
 * <p>Files up to {@link #EVERY_BYTE} bytes (all but two) are cut at every byte. Decoding a prefix
 * costs its length and the 297 KB DCPI sample has 297,209 prefixes (~44 GB of decoding), so the two
 * DCPI files above the limit are cut where the outcome can change, within a budget: what a DCPI
 * prefix may yield changes only where its last 8 bytes (the footer) start right after a chunk or
 * where a chunk ends, so between those marks every cut gives the same records and the same "chunk
 * does not fit" error. Each is cut on both sides of its first and last 20 marks and of 150 marks
 * spread over the rest, at every byte of its first 2 KiB and last 64, and at 200 spread lengths.
 * {@code -Dfleetprof.everyPrefix=true} cuts them at every byte too (minutes).
 */
class TruncationTest {
  static final int EVERY_BYTE = 40_000;

  /**
   * Files at most this long are also read, at every prefix, as a trickling stream of unknown
   * length.
   */
  static final int EVERY_BYTE_UNKNOWN_LENGTH = 4096;

  private static final boolean EVERY_PREFIX = Boolean.getBoolean("fleetprof.everyPrefix");

  static Stream<Path> samples() {
    return SampleData.listed().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void everyPrefixYieldsTheRecordsItHoldsWhole(Path sample) {
    byte[] d = SampleData.read(sample);
    String name = sample.toString();
    int[] done = new int[1];
    long t0 = System.nanoTime();
    assertTimeoutPreemptively(
        Duration.ofSeconds(EVERY_PREFIX ? 3600 : 120),
        () -> {
          switch (SampleData.formatOf(sample)) {
            case "gperftools" -> done[0] = gperftools(name, d);
            case "gprof" -> done[0] = gprof(name, d);
            case "dcpi" -> done[0] = dcpi(name, d);
            case "pprof" -> done[0] = pprof(name, RecordEnds.inflated(d));
            default -> throw new AssertionError(sample);
          }
        });
    System.out.printf(
        "[truncation] %s: %d bytes, %d prefixes in %.1f s%n",
        name, d.length, done[0], (System.nanoTime() - t0) / 1e9);
  }

  // ------------------------------------------------------------------ gperftools

  private static int gperftools(String name, byte[] d) {
    Decoded full =
        Decode.checked(Decode::gperftools, TestSources.bytes(name, d, d.length), d.length);
    assertTrue(full.clean(), full.outcome());
    CpuProfileHeader h = headerOf(name, d);
    int w = h.slotWidth();
    ToLongFunction<DecodedRecord> end = RecordEnds.gperftools(w);
    List<DecodedRecord> all = full.records();
    long trailerEnd =
        (all.isEmpty() ? h.recordsStart() : end.applyAsLong(all.get(all.size() - 1))) + 3L * w;
    int[] cuts = prefixes(d.length, new long[0]);
    for (int p : cuts) {
      String n = name + "[0.." + p + ")";
      boolean crossCheck = p % 16 == 0 && p >= h.recordsStart();
      Decoded got =
          Decode.checked(src -> Decode.gperftools(src, crossCheck), TestSources.bytes(n, d, p), p);
      assertEquals(RecordEnds.endingBy(all, end, p), got.records(), n);
      if (p < h.recordsStart()) {
        assertNotNull(got.error(), n + ": cut inside the header: " + got.outcome());
      } else if (p < trailerEnd) {
        assertNull(got.error(), n);
        assertEquals(Decoded.TRUNCATED, got.end(), n + ": cut before the trailer's end");
      } else {
        assertTrue(got.clean(), n + ": " + got.outcome());
        // Cut inside the maps text: fewer mappings, never a mapping the file does not list.
        assertTrue(full.mappings().containsAll(got.mappings()), n + ": " + got.mappings());
      }
      if (crossCheck) { // chains skipped, and an unknown length: the same records and outcome
        Decode.both(Decode::gperftools, n, d, p);
      }
    }
    return cuts.length;
  }

  private static CpuProfileHeader headerOf(String name, byte[] d) {
    try {
      return CpuProfileHeader.parse(name, d, Math.min(d.length, 64), d.length);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  // ------------------------------------------------------------------ gprof

  /**
   * The layout detected on the whole file, then forced on each prefix, so that what a cut leaves
   * can be predicted: a histogram record is only read once all its bins are in the file, an arc
   * once its bytes are. Detection itself is run on each prefix too: it must refuse the prefix, or
   * (a prefix ending on a record boundary is a valid gmon file) read the same first records.
   */
  private static int gprof(String name, byte[] d) throws Exception {
    GmonLayout layout = GmonFile.detect(TestSources.bytes(name, d, d.length), GmonOptions.auto());
    Decoded full =
        Decode.checked(
            src -> Decode.gprof(src, layout), TestSources.bytes(name, d, d.length), d.length);
    assertTrue(full.clean(), full.outcome());
    ToLongFunction<DecodedRecord> end = RecordEnds.gprof(layout);
    Set<Long> validEnds = new HashSet<>(); // prefixes that are valid gmon files themselves
    if (layout.flavor().isGnu()) {
      validEnds.add(20L); // the header alone
    }
    full.records().forEach(r -> validEnds.add(end.applyAsLong(r)));
    int[] cuts = prefixes(d.length, new long[0]);
    for (int p : cuts) {
      String n = name + "[0.." + p + ")";
      Decoded forced =
          Decode.checked(src -> Decode.gprof(src, layout), TestSources.bytes(n, d, p), p);
      assertEquals(RecordEnds.endingBy(full.records(), end, p), forced.records(), n);
      assertEquals(
          validEnds.contains((long) p) || p == d.length,
          forced.clean(),
          n + ": " + forced.outcome());
      Decoded auto =
          p % 8 == 0
              ? Decode.both(Decode::gprof, n, d, p)
              : Decode.checked(Decode::gprof, TestSources.bytes(n, d, p), p);
      List<DecodedRecord> rows = auto.records();
      assertEquals(
          full.records().subList(0, Math.min(rows.size(), full.records().size())),
          rows,
          n + ": detection on the prefix read other records");
      assertTrue(
          auto.error() != null || validEnds.contains((long) p) || p == d.length,
          n + ": detection accepted a prefix that does not end on a record boundary");
    }
    return cuts.length;
  }

  // ------------------------------------------------------------------ dcpi

  /**
   * With a known length a chunk is read only if its counts end before the footer (the file's last 8
   * bytes); from a stream of unknown length a count is read once 8 bytes follow it. The chunk
   * boundaries are found by walking the binary part ({@link RecordEnds}), not by the decoder.
   */
  private static int dcpi(String name, byte[] d) throws Exception {
    Decoded full = Decode.checked(Decode::dcpi, TestSources.bytes(name, d, d.length), d.length);
    assertTrue(full.clean(), full.outcome());
    long[] bs = RecordEnds.dcpiChunkBounds(name, d);
    ToLongFunction<DecodedRecord> chunkEnd = RecordEnds.dcpiChunk(bs);
    long[] marks = new long[2 * bs.length];
    for (int i = 0; i < bs.length; i++) {
      marks[2 * i] = bs[i];
      marks[2 * i + 1] = bs[i] + 8; // where a prefix's last 8 bytes would start a footer
    }
    int[] cuts = prefixes(d.length, marks);
    int unknownEvery = d.length <= EVERY_BYTE_UNKNOWN_LENGTH ? 1 : Math.max(1, cuts.length / 300);
    for (int i = 0; i < cuts.length; i++) {
      int p = cuts[i];
      String n = name + "[0.." + p + ")";
      Decoded known = Decode.checked(Decode::dcpi, TestSources.bytes(n, d, p), p);
      assertEquals(RecordEnds.endingBy(full.records(), chunkEnd, p - 8), known.records(), n);
      assertTrue(
          !known.clean() || Arrays.binarySearch(bs, p - 8L) >= 0,
          n + ": read cleanly though its last 8 bytes do not follow a whole chunk");
      if (i % unknownEvery == 0) {
        Decoded unknown =
            Decode.checked(
                Decode::dcpi,
                TestSources.unknownLength(n, d, p, d.length <= EVERY_BYTE_UNKNOWN_LENGTH),
                p);
        assertEquals(
            RecordEnds.endingBy(full.records(), r -> r.offset() + 4, p - 8), unknown.records(), n);
        assertEquals(
            known.clean(), unknown.clean(), n + ": " + known.outcome() + " / " + unknown.outcome());
      }
    }
    assertTrue(
        Decode.checked(Decode::dcpi, TestSources.bytes(name, d, d.length), d.length).clean());
    return cuts.length;
  }

  // ------------------------------------------------------------------ pprof

  /**
   * A pprof file is one protobuf message whose tables are read before any sample: a prefix is
   * either refused whole (cut inside a field, or its samples name locations it lost) or, cut
   * between two top-level fields, a smaller valid profile whose samples are the file's samples that
   * it holds whole.
   */
  private static int pprof(String name, byte[] d) throws Exception {
    Decoded full = Decode.checked(Decode::pprof, TestSources.bytes(name, d, d.length), d.length);
    assertTrue(full.clean(), full.outcome());
    ToLongFunction<DecodedRecord> end = RecordEnds.pprof(d);
    int[] cuts = prefixes(d.length, new long[0]);
    for (int p : cuts) {
      String n = name + "[0.." + p + ")";
      Decoded got = Decode.both(Decode::pprof, n, d, p);
      if (got.clean()) {
        assertEquals(RecordEnds.endingBy(full.records(), end, p), got.records(), n);
      } else {
        assertEquals(List.of(), got.records(), n + ": records from a profile refused whole");
      }
    }
    return cuts.length;
  }

  // ------------------------------------------------------------------ helpers

  /**
   * The prefix lengths to try, in {@code [0, len]}: all of them up to {@link #EVERY_BYTE} bytes.
   * Above, what costs little and what matters: every length up to 2 KiB (header and first records),
   * the last 64, both neighbours of every one of the first and last 20 marks and of 150 marks
   * spread over the rest, and 200 lengths spread evenly: about 190 MB of decoding for the 297 KB
   * file.
   */
  static int[] prefixes(int len, long[] marks) {
    if (len <= EVERY_BYTE || EVERY_PREFIX) {
      int[] all = new int[len + 1];
      Arrays.setAll(all, i -> i);
      return all;
    }
    TreeSet<Integer> s = new TreeSet<>();
    for (int i = 0; i <= 2048; i++) {
      s.add(i);
    }
    for (int i = 0; i <= 64; i++) {
      s.add(len - i);
    }
    long[] m = marks.clone();
    Arrays.sort(m);
    int stride = Math.max(1, m.length / 150);
    for (int i = 0; i < m.length; i++) {
      if (i < 20 || i >= m.length - 20 || i % stride == 0) {
        for (long p = m[i] - 1; p <= m[i] + 1; p++) {
          s.add((int) Math.max(0, Math.min(len, p)));
        }
      }
    }
    for (int i = 0; i < 200; i++) {
      s.add((int) ((long) len * i / 200));
    }
    return s.stream().mapToInt(Integer::intValue).toArray();
  }
}
