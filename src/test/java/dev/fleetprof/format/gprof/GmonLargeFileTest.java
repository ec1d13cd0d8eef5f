package dev.fleetprof.format.gprof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A 64 MB histogram generated on the fly (never held in memory by the test): the decoder must
 * stream it, with a known length and as a stream of unknown length, and its truncated form must
 * fail at the hist_size field without reading the bins into memory.
 */
class GmonLargeFileTest {
  private static final long BINS = 32L * 1024 * 1024;
  private static final int EVERY = 1 << 20;

  /**
   * header + histogram record with BINS bins (bin i = i / EVERY + 1 when i % EVERY == 0) + one arc.
   */
  private static ByteSource generated(String name, boolean knownLength, long cutAt) {
    byte[] head =
        new GmonBuilder(ByteOrder.LITTLE_ENDIAN, 8)
            .gnuHeader(1)
            .raw(0)
            .ptr(0x400000)
            .ptr(0x400000 + 4 * BINS)
            .num(BINS, 4)
            .num(100, 4)
            .raw("seconds".getBytes())
            .raw(new int[8])
            .raw('s')
            .bytes();
    byte[] tail = new GmonBuilder(ByteOrder.LITTLE_ENDIAN, 8).arc(0x400010, 0x400100, 42).bytes();
    long total = Math.min(cutAt, head.length + 2 * BINS + tail.length);
    return new ByteSource() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long length() {
        return knownLength ? total : -1;
      }

      @Override
      public InputStream open(long offset) {
        return new InputStream() {
          long pos = offset;

          @Override
          public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
          }

          @Override
          public int read(byte[] b, int off, int len) {
            if (pos >= total) {
              return -1;
            }
            int n = (int) Math.min(len, Math.min(total - pos, 8192));
            for (int i = 0; i < n; i++, pos++) {
              b[off + i] = byteAt(pos);
            }
            return n;
          }

          private byte byteAt(long p) {
            if (p < head.length) {
              return head[(int) p];
            }
            long q = p - head.length;
            if (q < 2 * BINS) {
              long bin = q / 2;
              long v = bin % EVERY == 0 ? bin / EVERY + 1 : 0;
              return (byte) (q % 2 == 0 ? v : v >>> 8);
            }
            return tail[(int) (q - 2 * BINS)];
          }
        };
      }
    };
  }

  @Test
  void streamsAHugeHistogram() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          for (boolean known : new boolean[] {true, false}) {
            try (GmonReader r =
                GmonFile.open(generated("big", known, Long.MAX_VALUE), GmonOptions.auto())) {
              assertEquals(8, r.layout().pointerSize());
              long bins = 0;
              long sum = 0;
              long arcs = 0;
              while (r.next()) {
                if (r.kind().equals("histogram")) {
                  assertEquals(0x400000 + 4 * r.binIndex(), r.pc(0));
                  assertEquals(r.pc(0) + 4, r.binEnd());
                  bins++;
                  sum += r.count();
                } else {
                  arcs++;
                  assertEquals(42, r.count());
                }
              }
              assertEquals(BINS / EVERY, bins);
              assertEquals((BINS / EVERY) * (BINS / EVERY + 1) / 2, sum);
              assertEquals(1, arcs);
            }
          }
        });
  }

  @Test
  void truncatedHugeHistogramFailsAtItsCountField() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(120),
        () -> {
          for (boolean known : new boolean[] {true, false}) {
            ProfileFormatException e =
                org.junit.jupiter.api.Assertions.assertThrows(
                    ProfileFormatException.class,
                    () -> Row.readAll(generated("big-cut", known, 1_000_000), GmonOptions.auto()));
            assertEquals(37, e.offset(), e.getMessage());
          }
        });
  }
}
