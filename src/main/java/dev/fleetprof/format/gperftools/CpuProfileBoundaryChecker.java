package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Finds record boundaries in the middle of a gperftools CPU profile, which has no sync markers.
 *
 * <p>A position is taken as a record start when the next {@link #CHAIN} records read from it (or
 * all of them up to the trailer) are plausible: count >= 1, 1 <= n <= {@link
 * CpuProfileReader#MAX_DEPTH}, the record ends at or before the trailer, and its leaf PC lies
 * inside an executable mapping listed in the file's maps text. The leaf check is what rejects the
 * dangerous position, a record's last PC: from there "count" is that PC, "n" the next record's
 * (small) count, and the "leaf" the next record's PC count, which is never a code address. Only the
 * leaf is checked: it comes from the signal context, while deeper PCs come from stack unwinding and
 * may be garbage in real profiles.
 *
 * <p>The checker is a guess; splits stay exact because every split reader, having walked past its
 * end sequentially, runs {@link #firstBoundaryAtOrAfter} at its end exactly as the next reader will
 * and fails loudly on disagreement (see {@code verifyNextSplitStart}).
 */
public final class CpuProfileBoundaryChecker {
  /** Consecutive records that must be plausible. */
  public static final int CHAIN = 3;

  private static final int WINDOW = 1 << 20;

  private final ByteSource src;
  private final CpuProfileLayout layout;
  private final int w;
  private final boolean big;
  private final byte[] window;
  private long windowStart = -1;
  private int windowLength;

  public CpuProfileBoundaryChecker(ByteSource src, CpuProfileLayout layout) {
    if (!layout.splittable()) {
      throw new IllegalArgumentException(
          src.name() + " cannot be split: no trailer or no mappings");
    }
    this.src = src;
    this.layout = layout;
    this.w = layout.header().slotWidth();
    this.big = layout.header().bigEndian();
    this.window = new byte[(int) Math.min(WINDOW, Math.max(64, layout.fileLength()))];
  }

  /**
   * The first record boundary at or after {@code from}: a record start, or the trailer's offset
   * when no record starts in {@code [from, trailer)}.
   */
  public long firstBoundaryAtOrAfter(long from) throws IOException {
    long recordsStart = layout.header().recordsStart();
    long trailer = layout.trailerOffset();
    long p = Math.max(from, recordsStart);
    p = recordsStart + ((p - recordsStart + w - 1) / w) * w; // slot-aligned
    for (; p < trailer; p += w) {
      if (isRecordStart(p)) {
        return p;
      }
    }
    return trailer;
  }

  /** Whether the checker takes the slot-aligned position {@code p} for a record start. */
  public boolean isRecordStart(long p) throws IOException {
    long trailer = layout.trailerOffset();
    long q = p;
    for (int k = 0; k < CHAIN; k++) {
      if (q == trailer) {
        return k > 0;
      }
      if (q + 3L * w > trailer) {
        return false;
      }
      long count = slotAt(q);
      long n = slotAt(q + w);
      if (count == 0 || n == 0 || Long.compareUnsigned(n, CpuProfileReader.MAX_DEPTH) > 0) {
        return false;
      }
      long next = q + (2 + n) * w;
      if (next > trailer) {
        return false;
      }
      if (layout.mappings().find(slotAt(q + 2L * w)) < 0) {
        return false;
      }
      q = next;
    }
    return true;
  }

  private long slotAt(long p) throws IOException {
    if (windowStart < 0 || p < windowStart || p + w > windowStart + windowLength) {
      load(p);
    }
    return CpuProfileHeader.readSlot(window, (int) (p - windowStart), w, big);
  }

  private void load(long p) throws IOException {
    try (InputStream in = src.open(p)) {
      windowLength = in.readNBytes(window, 0, window.length);
    }
    windowStart = p;
    if (windowLength < w) {
      throw new ProfileFormatException(
          src.name(),
          p,
          "file ended early while checking for a"
              + " record boundary (was it changed while being read?)");
    }
  }
}
