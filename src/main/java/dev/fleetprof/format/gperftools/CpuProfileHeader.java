package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ProfileFormatException;
import java.io.Serializable;
import java.nio.ByteOrder;

/**
 * The binary header of a gperftools CPU profile: {@code 0, hdr_slots (>=3), version, period_us,
 * pad}, in slots of 4 or 8 bytes in the writing machine's byte order. Neither the slot width nor
 * the byte order is stored, so both are detected: exactly one of {32,64-bit} x {LE,BE} reads as
 * {@code 0, 3..MAX_HEADER_SLOTS, 0|1, >0}.
 *
 * @param slotWidth 4 or 8
 * @param bigEndian the file's byte order
 * @param headerSlots slot 1: header slots after it (3 as gperftools writes; more are skipped)
 * @param periodMicros slot 3: the sampling period in microseconds
 */
public record CpuProfileHeader(
    int slotWidth, boolean bigEndian, long headerSlots, long periodMicros) implements Serializable {

  /** Bytes of the smallest header (5 slots of 4 bytes): fewer cannot be a CPU profile. */
  public static final int MIN_HEADER_BYTES = 20;

  /** Bytes to read from a file's start to detect any header this class accepts. */
  public static final int DETECT_BYTES = 40;

  /**
   * The most header slots accepted. gperftools writes 3; a cap is what tells a 32-bit little-endian
   * header (slot 1 = 3) from the same bytes read big-endian (slot 1 = 0x03000000).
   */
  public static final long MAX_HEADER_SLOTS = 1024;

  public ByteOrder byteOrder() {
    return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
  }

  /** Offset of the first record: the 2 leading slots plus the header slots after them. */
  public long recordsStart() {
    return (2 + headerSlots) * slotWidth;
  }

  /** Whether {@code head} (the first bytes of a file) starts like a gperftools CPU profile. */
  public static boolean looksLike(byte[] head, int len) {
    return !readings(head, len, -1).isEmpty();
  }

  /**
   * Detects and decodes the header from the first {@code len} bytes of {@code file}.
   *
   * @param fileLength the file's length, or -1 when unknown; used to reject header slot counts that
   *     run past the end
   */
  public static CpuProfileHeader parse(String file, byte[] head, int len, long fileLength)
      throws ProfileFormatException {
    if (len < MIN_HEADER_BYTES) {
      throw new ProfileFormatException(
          file,
          0,
          "not a gperftools CPU profile: "
              + len
              + " bytes is shorter than the smallest header ("
              + MIN_HEADER_BYTES
              + " bytes)");
    }
    java.util.List<CpuProfileHeader> readings = readings(head, len, fileLength);
    if (readings.isEmpty()) {
      throw new ProfileFormatException(
          file,
          0,
          "not a gperftools CPU profile: the first bytes read as no header of 32- or 64-bit slots in"
              + " either byte order (expected 0, >=3, 0, period>0)");
    }
    if (readings.size() > 1) {
      throw new ProfileFormatException(
          file,
          0,
          "ambiguous gperftools CPU profile header: it reads validly with more than one slot width or"
              + " byte order");
    }
    CpuProfileHeader found = readings.get(0);
    if (readSlot(head, 2 * found.slotWidth(), found.slotWidth(), found.bigEndian()) == 1) {
      throw new ProfileFormatException(
          file,
          2L * found.slotWidth(),
          "Java-variant gperftools CPU profile (header format version 1) is not supported");
    }
    return found;
  }

  /** Every header that the bytes read as, over the four slot widths and byte orders. */
  private static java.util.List<CpuProfileHeader> readings(byte[] head, int len, long fileLength) {
    java.util.List<CpuProfileHeader> out = new java.util.ArrayList<>(1);
    for (int width : new int[] {8, 4}) {
      for (boolean big : new boolean[] {false, true}) {
        CpuProfileHeader h = tryRead(head, len, width, big, fileLength);
        if (h != null) {
          out.add(h);
        }
      }
    }
    return out;
  }

  private static CpuProfileHeader tryRead(byte[] b, int len, int w, boolean big, long fileLength) {
    if (len < 5 * w) {
      return null;
    }
    long s0 = readSlot(b, 0, w, big);
    long s1 = readSlot(b, w, w, big);
    long s2 = readSlot(b, 2 * w, w, big);
    long s3 = readSlot(b, 3 * w, w, big);
    if (s0 != 0 || s1 < 3 || s1 > MAX_HEADER_SLOTS || (s2 != 0 && s2 != 1) || s3 == 0) {
      return null;
    }
    if (s3 < 0) { // an unsigned 64-bit period over 2^63 us is no period
      return null;
    }
    CpuProfileHeader h = new CpuProfileHeader(w, big, s1, s3);
    if (fileLength >= 0 && h.recordsStart() > fileLength) {
      return null;
    }
    return h;
  }

  static long readSlot(byte[] b, int off, int w, boolean big) {
    long v = 0;
    if (big) {
      for (int i = 0; i < w; i++) {
        v = (v << 8) | (b[off + i] & 0xffL);
      }
    } else {
      for (int i = w - 1; i >= 0; i--) {
        v = (v << 8) | (b[off + i] & 0xffL);
      }
    }
    return v;
  }
}
