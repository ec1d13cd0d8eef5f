package dev.fleetprof.fuzz;

import dev.fleetprof.format.dcpi.DcpiHeader;
import dev.fleetprof.format.gprof.GmonLayout;
import dev.fleetprof.format.gprof.GmonReader;
import dev.fleetprof.testing.DecodedRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Where the bytes end that a decoder must have whole before it may yield a record, from each
 * format's definition: what a cut or a corrupted byte after that point can no longer change.
 */
final class RecordEnds {
  private RecordEnds() {}

  /** gperftools: the record itself, {@code count, n, pc[n]} in slots of {@code width} bytes. */
  static ToLongFunction<DecodedRecord> gperftools(int width) {
    return r -> r.offset() + (2L + r.pcs().length) * width;
  }

  /**
   * gprof with a known length: a bin needs its whole histogram record (hist_size is checked against
   * the file before any bin is read); an arc its own bytes (GNU: the tag byte is the record's
   * offset).
   */
  static ToLongFunction<DecodedRecord> gprof(GmonLayout layout) {
    int ptr = layout.pointerSize();
    boolean gnu = layout.flavor().isGnu();
    return r ->
        switch (r.kind()) {
          case GmonReader.KIND_HISTOGRAM -> {
            String[] bin = r.extra().substring(r.extra().indexOf("bin=") + 4).split("/");
            yield r.offset() + 2 * (Long.parseLong(bin[1]) - Long.parseLong(bin[0]));
          }
          case GmonReader.KIND_ARC -> r.offset() + (gnu ? 1 + 2 * ptr + 4 : 3 * ptr);
          default -> r.offset() + 2L * ptr; // basic blocks (none in the samples): the pair
        };
  }

  /**
   * gprof from a stream of unknown length: bins are read one by one until the stream ends, so a bin
   * needs only its own two bytes.
   */
  static ToLongFunction<DecodedRecord> gprofStreamed(GmonLayout layout) {
    ToLongFunction<DecodedRecord> whole = gprof(layout);
    return r -> GmonReader.KIND_HISTOGRAM.equals(r.kind()) ? r.offset() + 2 : whole.applyAsLong(r);
  }

  /**
   * A DCPI file's chunk boundaries, found by walking its binary part: starts, then the footer's.
   */
  static long[] dcpiChunkBounds(String name, byte[] d) throws IOException {
    long binaryStart = DcpiHeader.parse(d, name).binaryStart();
    List<Long> bounds = new ArrayList<>(List.of(binaryStart));
    ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
    for (long at = binaryStart; at < d.length - 8; ) {
      at += 8 + 4 * Integer.toUnsignedLong(b.getInt((int) at + 4));
      bounds.add(at);
    }
    if (bounds.get(bounds.size() - 1) != d.length - 8) {
      throw new AssertionError(name + ": the chunk walk ends at " + bounds + ", not the footer");
    }
    return bounds.stream().mapToLong(Long::longValue).toArray();
  }

  /** DCPI with a known length: a count's whole chunk, which must end before the 8-byte footer. */
  static ToLongFunction<DecodedRecord> dcpiChunk(long[] bounds) {
    return r -> bounds[-Arrays.binarySearch(bounds, r.offset()) - 1];
  }

  /** DCPI from a stream of unknown length: a count is read as soon as it is there. */
  static ToLongFunction<DecodedRecord> dcpiStreamed() {
    return r -> r.offset() + 4;
  }

  /**
   * The first records of {@code all} that end by {@code limit}. Every end above grows with the
   * record's offset, so these are exactly the records that end by {@code limit}, found by
   * bisection.
   */
  static List<DecodedRecord> endingBy(
      List<DecodedRecord> all, ToLongFunction<DecodedRecord> end, long limit) {
    int lo = 0;
    int hi = all.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (end.applyAsLong(all.get(mid)) <= limit) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return all.subList(0, lo);
  }

  /** A pprof sample's end: its tag byte, its length varint and its bytes. */
  static ToLongFunction<DecodedRecord> pprof(byte[] d) {
    return r -> {
      int at = (int) r.offset() + 1;
      long len = 0;
      for (int shift = 0; ; shift += 7) {
        int b = d[at++] & 0xff;
        len |= (long) (b & 0x7f) << shift;
        if (b < 0x80) {
          return at + len;
        }
      }
    };
  }

  /** A sample file's bytes, gunzipped when it is gzip data (a .gz pprof sample). */
  static byte[] inflated(byte[] d) {
    if (d.length < 2 || (d[0] & 0xff) != 0x1f || (d[1] & 0xff) != 0x8b) {
      return d;
    }
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(d))) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
