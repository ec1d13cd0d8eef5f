package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Decides, from the bytes around a position inside a major-version-0 binary part, whether a chunk
 * starts there. It is test code: DCPI files are never split (one partition per file), and this
 * checker is kept only for {@link DcpiChunkBoundaryCheckerTest}, the measurement of what
 * record-aligned splitting of DCPI files could achieve and why it is not done. Positions are
 * relative to {@link DcpiHeader#binaryStart()}. Every test is a necessary condition of a valid file
 * (one {@link DcpiProfileReader} accepts), so a true chunk start is never answered {@link
 * Verdict#NOT_START} (no false negatives by construction). The converse does not hold: nothing in
 * the format marks a chunk start and counts are free 32-bit values, so a run of counts can spell a
 * chain of chunks, including a fake previous chunk; {@code
 * DcpiChunkBoundaryCheckerTest.aCraftedChunkFoolsTheChecker} builds a valid file where this checker
 * answers {@link Verdict#START} inside a chunk. On the sample files it makes no mistake at any
 * position (see that test), but splitting on its verdict would only be safe if each split's reader
 * confirmed that the previous split's last chunk ends exactly where it starts, which nothing
 * implements.
 *
 * <p><b>Forward.</b> At position {@code p} (binary part of {@code B} bytes, footer at {@code F = B
 * - 8}), with {@code stride} = offset units per instruction (4 for {@code BYTES}, 1 for {@code
 * INSTRUCTIONS}), up to {@code maxChunks} consecutive candidate chunks {@code (offset, number)} are
 * read; rejected when
 *
 * <ol>
 *   <li>{@code p} is not a multiple of 4, or is 4 or 8 (the bytes before a chunk are whole chunks
 *       of at least 12 bytes each), or {@code p >= F};
 *   <li>{@code number == 0}, or the counts do not fit before the footer;
 *   <li>under {@code BYTES}, {@code offset} is not a multiple of 4;
 *   <li>first candidate: {@code offset < stride * minAddresses(p)}, {@code minAddresses(r) = (r - 8
 *       floor(r/12)) / 4} being the fewest addresses {@code r} bytes of whole chunks can cover (the
 *       chunks before {@code p} cover at least that many, in increasing disjoint ranges); later
 *       candidates: {@code offset} below the end of the previous candidate's range;
 *   <li>the range end in bytes plus {@code 4 * minAddresses(r)} exceeds {@code tsize}, {@code r}
 *       being the bytes between the candidate's end and the footer (the chunks that must follow
 *       need room in the text), or {@code r} is 4 or 8.
 * </ol>
 *
 * The chain passes when a candidate ends exactly at the footer or {@code maxChunks} candidates
 * passed. The forward part reads {@code 8 * maxChunks} bytes (counts are skipped).
 *
 * <p><b>Backward.</b> For {@code p > 0}, the chunk before {@code p} must end exactly at {@code p}:
 * the checker looks back for a {@code q = p - 8 - 4 n} whose {@code number} field is {@code n},
 * whose offset passes rules 3 and 4 for position {@code q}, and whose range ends at or before the
 * offset at {@code p}. The scan stops at the first such {@code q} ({@link Verdict#START}), at the
 * binary start ({@link Verdict#NOT_START}), or after {@code maxBackBytes} ({@link
 * Verdict#UNDECIDED}: the previous chunk would be longer than that; a splitter must then not split
 * this file). The scan reads at most {@code maxBackBytes}; for a true chunk start it reads the
 * previous chunk.
 */
public final class DcpiChunkBoundaryChecker {
  /** Default number of consecutive chunks checked forward. */
  public static final int DEFAULT_MAX_CHUNKS = 8;

  /** Default bound on the backward scan for the previous chunk's header. */
  public static final long DEFAULT_MAX_BACK_BYTES = 4L << 20;

  /** The checker's answer. */
  public enum Verdict {
    /** Every check passed: a chunk may start here (see the class comment: not a proof). */
    START,
    /** A necessary condition fails: no chunk of a valid file starts here. */
    NOT_START,
    /**
     * The forward checks passed but the previous chunk was not found within {@code maxBackBytes}.
     */
    UNDECIDED
  }

  /** A verdict and, unless {@link Verdict#START}, why. */
  public static final class Result {
    private final Verdict verdict;
    private final String reason;

    Result(Verdict verdict, String reason) {
      this.verdict = verdict;
      this.reason = reason;
    }

    public Verdict verdict() {
      return verdict;
    }

    /** Why not {@link Verdict#START}; null for {@code START}. */
    public String reason() {
      return reason;
    }

    @Override
    public String toString() {
      return reason == null ? verdict.toString() : verdict + ": " + reason;
    }
  }

  private static final Result START = new Result(Verdict.START, null);

  private final long binaryStart;
  private final long binaryLength;
  private final long tsize;
  private final DcpiOffsetUnit unit;
  private final int maxChunks;
  private final long maxBackBytes;

  /**
   * @param header the file's header (major version 0)
   * @param unit the offset unit the file is read with
   * @param fileLength the file's length in bytes (files of unknown length cannot be split)
   * @param maxChunks how many consecutive candidate chunks to check forward (at least 1)
   * @param maxBackBytes how far back to look for the previous chunk's header; 0 turns the backward
   *     check off (forward checks only)
   */
  public DcpiChunkBoundaryChecker(
      DcpiHeader header, DcpiOffsetUnit unit, long fileLength, int maxChunks, long maxBackBytes) {
    if (!header.binarySupported()) {
      throw new IllegalArgumentException(
          "unsupported DCPI binary version "
              + header.version()
              + ": cannot check chunk boundaries");
    }
    if (fileLength < 0) {
      throw new IllegalArgumentException("a file of unknown length cannot be split");
    }
    if (maxChunks < 1 || maxBackBytes < 0) {
      throw new IllegalArgumentException("maxChunks must be at least 1, maxBackBytes at least 0");
    }
    this.binaryStart = header.binaryStart();
    this.binaryLength = fileLength - header.binaryStart();
    this.tsize = header.tsize();
    this.unit = unit;
    this.maxChunks = maxChunks;
    this.maxBackBytes = maxBackBytes;
  }

  /** A checker with {@link #DEFAULT_MAX_CHUNKS} and {@link #DEFAULT_MAX_BACK_BYTES}. */
  public DcpiChunkBoundaryChecker(DcpiHeader header, DcpiOffsetUnit unit, long fileLength) {
    this(header, unit, fileLength, DEFAULT_MAX_CHUNKS, DEFAULT_MAX_BACK_BYTES);
  }

  /** Length of the binary part, footer included. */
  public long binaryLength() {
    return binaryLength;
  }

  /** The verdict at {@code rel} (relative to the binary start); {@code file} is the whole file. */
  public Result check(byte[] file, long rel) {
    try {
      return check(
          r -> {
            long i = binaryStart + r;
            return (file[(int) i] & 0xffL)
                | (file[(int) i + 1] & 0xffL) << 8
                | (file[(int) i + 2] & 0xffL) << 16
                | (file[(int) i + 3] & 0xffL) << 24;
          },
          rel);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The verdict at {@code rel} (relative to the binary start), reading {@code source}. */
  public Result check(ByteSource source, long rel) throws IOException {
    try (BlockWords words = new BlockWords(source, binaryStart)) {
      return check(words, rel);
    }
  }

  private interface Words {
    long u32(long rel) throws IOException;
  }

  /** Random access through a 64 KiB block re-read with {@link ByteSource#open} when needed. */
  private static final class BlockWords implements Words, AutoCloseable {
    private static final int BLOCK = 64 * 1024;
    private final ByteSource source;
    private final long base;
    private final byte[] buf = new byte[BLOCK];
    private long blockRel = -1;
    private int blockLen;
    private long lastRel = -1;

    BlockWords(ByteSource source, long base) {
      this.source = source;
      this.base = base;
    }

    @Override
    public long u32(long rel) throws IOException {
      if (blockRel < 0 || rel < blockRel || rel + 4 > blockRel + blockLen) {
        // going backward: keep the block below rel; forward: above it
        long start = lastRel >= 0 && rel < lastRel ? Math.max(0, rel + 8 - BLOCK) : rel;
        try (InputStream in = source.open(base + start)) {
          int n = 0;
          while (n < BLOCK) {
            int r = in.read(buf, n, BLOCK - n);
            if (r < 0) {
              break;
            }
            n += r;
          }
          blockRel = start;
          blockLen = n;
        }
        if (rel + 4 > blockRel + blockLen) {
          throw new EOFException("position " + rel + " beyond the end of " + source.name());
        }
      }
      lastRel = rel;
      int i = (int) (rel - blockRel);
      return (buf[i] & 0xffL)
          | (buf[i + 1] & 0xffL) << 8
          | (buf[i + 2] & 0xffL) << 16
          | (buf[i + 3] & 0xffL) << 24;
    }

    @Override
    public void close() {}
  }

  /**
   * The fewest addresses that exactly {@code r} bytes of whole chunks can cover; -1 if none fit.
   */
  static long minAddresses(long r) {
    if (r == 0) {
      return 0;
    }
    if (r < 12 || r % 4 != 0) {
      return -1;
    }
    return (r - 8 * (r / 12)) / 4;
  }

  private static Result no(String reason) {
    return new Result(Verdict.NOT_START, reason);
  }

  private Result check(Words words, long rel) throws IOException {
    long footer = binaryLength - 8;
    if (rel < 0 || rel % 4 != 0) {
      return no("not a multiple of 4 bytes from the binary start");
    }
    if (footer < 0 || footer % 4 != 0) {
      return no("the binary part's length " + binaryLength + " is not 8 plus a multiple of 4");
    }
    if (rel >= footer) {
      return no(rel == footer ? "the footer starts here" : "beyond the last chunk");
    }
    long before = minAddresses(rel);
    if (before < 0) {
      return no("the " + rel + " bytes before this position cannot be whole chunks");
    }
    long minOffset = unit.stride() * before;
    long p = rel;
    long firstOffset = -1;
    for (int hop = 0; hop < maxChunks && p != footer; hop++) {
      String where = hop == 0 ? "" : " (chunk " + (hop + 1) + " of the chain, at " + p + ")";
      if (footer - p < 12) {
        return no("fewer than 12 bytes before the footer" + where);
      }
      long offset = words.u32(p);
      long number = words.u32(p + 4);
      if (number == 0) {
        return no("number is 0" + where);
      }
      if (4 * number > footer - p - 8) {
        return no("number " + number + " does not fit before the footer" + where);
      }
      if (unit == DcpiOffsetUnit.BYTES && offset % 4 != 0) {
        return no("offset " + offset + " is not a multiple of 4" + where);
      }
      if (offset < minOffset) {
        return no(
            (hop == 0
                    ? "offset "
                        + offset
                        + " is below "
                        + minOffset
                        + ", the least possible after "
                        + rel
                        + " bytes of chunks"
                    : "offset " + offset + " does not follow the previous range's end " + minOffset)
                + where);
      }
      long next = p + 8 + 4 * number;
      long after = minAddresses(footer - next);
      if (after < 0) {
        return no(
            "the "
                + (footer - next)
                + " bytes between this chunk and the footer cannot be"
                + " whole chunks"
                + where);
      }
      if (unit.rangeEndBytes(offset, number) + 4 * after > tsize) {
        return no("range (and the chunks that must follow) exceeds tsize " + tsize + where);
      }
      if (hop == 0) {
        firstOffset = offset;
      }
      minOffset = unit.rangeEndOffset(offset, number);
      p = next;
    }
    if (rel == 0 || maxBackBytes == 0) {
      return START;
    }
    // backward: a chunk that passes the same rules must end exactly at rel
    for (long q = rel - 12; q >= 0; q -= 4) {
      if (rel - q > maxBackBytes) {
        return new Result(
            Verdict.UNDECIDED,
            "no previous chunk ends here within "
                + maxBackBytes
                + " bytes back (forward checks passed)");
      }
      long qBefore = minAddresses(q);
      if (qBefore < 0) {
        continue;
      }
      long n = words.u32(q + 4);
      if (8 + 4 * n != rel - q) {
        continue;
      }
      long o = words.u32(q);
      if (unit == DcpiOffsetUnit.BYTES && o % 4 != 0) {
        continue;
      }
      if (o < unit.stride() * qBefore) {
        continue;
      }
      if (unit.rangeEndOffset(o, n) > firstOffset) {
        continue;
      }
      return START;
    }
    return no("no chunk before this position ends exactly here (forward checks passed)");
  }
}
