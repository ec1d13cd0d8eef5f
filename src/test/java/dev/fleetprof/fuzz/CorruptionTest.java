package dev.fleetprof.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Single-byte corruptions of every sample file: at every byte of files up to {@link #EVERY_BYTE}
 * bytes and at {@link #SPREAD} (above 64 KiB {@link #SPREAD_LARGE}) offsets spread over the others,
 * each byte replaced by itself with its top bit flipped and by one of 0x00, 0xff or itself with its
 * lowest bit flipped, in turn. Every corrupted file decodes within the contract ({@link
 * Decode#checked}); the records that end before the corrupted byte are the original's, in order;
 * and where the format can tell — a DCPI footer sums the counts — a corrupted count is reported.
 * Every fourth corruption is also read as a trickling stream of unknown length, and every eighth
 * through detection.
 */
class CorruptionTest {
  static final int EVERY_BYTE = 4096;
  static final int SPREAD = 1024;
  static final int SPREAD_LARGE = 128;

  static Stream<Path> samples() {
    return SampleData.listed().stream();
  }

  /** How one format is decoded, and what a corruption at an offset may not change. */
  private record Setup(
      Decode.Decoder decoder,
      ToLongFunction<DecodedRecord> end,
      ToLongFunction<DecodedRecord> streamedEnd,
      IntPredicate mustBeReported) {}

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void singleByteCorruptionsKeepTheRecordsBeforeThem(Path sample) throws Exception {
    String format = SampleData.formatOf(sample);
    byte[] d =
        format.equals("pprof")
            ? RecordEnds.inflated(SampleData.read(sample))
            : SampleData.read(sample);
    String name = sample.toString();
    Setup setup = setup(format, name, d);
    Decoded full = Decode.checked(setup.decoder(), TestSources.bytes(name, d, d.length), d.length);
    assertTrue(full.clean(), full.outcome());
    int step = d.length <= EVERY_BYTE ? 1 : d.length / (d.length <= 65536 ? SPREAD : SPREAD_LARGE);
    int[] tried = new int[1];
    long t0 = System.nanoTime();
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          for (int at = 0; at < d.length; at += step) {
            int b = d[at] & 0xff;
            for (int v : new int[] {b ^ 0x80, new int[] {0x00, 0xff, b ^ 0x01}[at % 3]}) {
              if (v == b) {
                continue;
              }
              byte[] c = d.clone();
              c[at] = (byte) v;
              String n = name + "[" + at + "]=0x" + Integer.toHexString(v);
              check(setup, full, n, c, at, tried[0]++);
            }
          }
        });
    System.out.printf(
        "[corruption] %s: %d corruptions in %.1f s%n",
        name, tried[0], (System.nanoTime() - t0) / 1e9);
  }

  private static void check(Setup s, Decoded full, String n, byte[] c, int at, int i) {
    Decoded known = Decode.checked(s.decoder(), TestSources.bytes(n, c, c.length), c.length);
    startsWith(RecordEnds.endingBy(full.records(), s.end(), at), known, n);
    if (s.mustBeReported().test(at)) {
      assertNotNull(known.error(), n + ": " + known.outcome());
    }
    if (i % 4 == 0) {
      Decoded streamed =
          Decode.checked(s.decoder(), TestSources.unknownLength(n, c, c.length, true), c.length);
      startsWith(
          RecordEnds.endingBy(full.records(), s.streamedEnd(), at), streamed, n + " (streamed)");
      if (s.mustBeReported().test(at)) {
        assertNotNull(streamed.error(), n + " (streamed): " + streamed.outcome());
      }
    }
    if (i % 8 == 0) {
      Decode.autoBoth(n, c, c.length);
    }
  }

  private static void startsWith(List<DecodedRecord> before, Decoded got, String n) {
    List<DecodedRecord> r = got.records();
    assertTrue(
        r.size() >= before.size(), n + ": lost records before the corruption: " + got.outcome());
    assertEquals(before, r.subList(0, before.size()), n);
  }

  private static Setup setup(String format, String name, byte[] d) throws Exception {
    switch (format) {
      case "gperftools":
        {
          int w = CpuProfileHeader.parse(name, d, Math.min(d.length, 64), d.length).slotWidth();
          ToLongFunction<DecodedRecord> end = RecordEnds.gperftools(w);
          return new Setup(src -> Decode.gperftools(src, false), end, end, at -> false);
        }
      case "gprof":
        {
          GmonLayout layout =
              GmonFile.detect(TestSources.bytes(name, d, d.length), GmonOptions.auto());
          return new Setup(
              src -> Decode.gprof(src, layout),
              RecordEnds.gprof(layout),
              RecordEnds.gprofStreamed(layout),
              at -> false);
        }
      case "dcpi":
        {
          long[] bounds = RecordEnds.dcpiChunkBounds(name, d);
          IntPredicate inACount =
              at -> {
                for (int i = 0; i + 1 < bounds.length; i++) {
                  if (at >= bounds[i] + 8 && at < bounds[i + 1]) {
                    return true;
                  }
                }
                return false;
              };
          return new Setup(
              Decode::dcpi, RecordEnds.dcpiChunk(bounds), RecordEnds.dcpiStreamed(), inACount);
        }
      case "pprof":
        {
          // The tables, read before any sample, are checked as a whole: a corruption anywhere may
          // refuse the file, so no record before it is owed; only the contract (an error naming
          // the file and an offset, bounded allocation, no hang) holds.
          ToLongFunction<DecodedRecord> never = r -> Long.MAX_VALUE;
          return new Setup(Decode::pprof, never, never, at -> false);
        }
      default:
        throw new AssertionError(format);
    }
  }
}
