package dev.fleetprof.format.gprof;

import java.nio.ByteOrder;

/**
 * How one gmon file is laid out, as decided by {@link GmonFile#detect} (or built by hand with
 * {@link #of} when everything is known): flavor, pointer size, byte order, and how each was
 * decided.
 */
public final class GmonLayout {
  private final GmonFlavor flavor;
  private final int pointerSize;
  private final ByteOrder byteOrder;
  private final int bbCountWidth;
  private final long oldBsdProfRate;
  private final long length;
  private final long records;
  private final String pointerSizeBasis;
  private final String byteOrderBasis;

  GmonLayout(
      GmonFlavor flavor,
      int pointerSize,
      ByteOrder byteOrder,
      int bbCountWidth,
      long oldBsdProfRate,
      long length,
      long records,
      String pointerSizeBasis,
      String byteOrderBasis) {
    this.flavor = flavor;
    this.pointerSize = pointerSize;
    this.byteOrder = byteOrder;
    this.bbCountWidth = bbCountWidth;
    this.oldBsdProfRate = oldBsdProfRate;
    this.length = length;
    this.records = records;
    this.pointerSizeBasis = pointerSizeBasis;
    this.byteOrderBasis = byteOrderBasis;
  }

  /**
   * A layout given entirely by the caller (no detection pass). {@code bbCountWidth} is the width of
   * the {@code ncounts} field of basic-block records (4 as gprof writes it, 8 as 64-bit glibc
   * writes it; only matters for pointer size 8). The old-BSD rate is 100 Hz.
   */
  public static GmonLayout of(
      GmonFlavor flavor, int pointerSize, ByteOrder byteOrder, int bbCountWidth) {
    if (pointerSize != 4 && pointerSize != 8) {
      throw new IllegalArgumentException("pointer size must be 4 or 8: " + pointerSize);
    }
    if (bbCountWidth != 4 && bbCountWidth != 8) {
      throw new IllegalArgumentException("bbCountWidth must be 4 or 8: " + bbCountWidth);
    }
    if (flavor == null || byteOrder == null) {
      throw new IllegalArgumentException("flavor and byte order are required");
    }
    return new GmonLayout(
        flavor,
        pointerSize,
        byteOrder,
        pointerSize == 4 ? 4 : bbCountWidth,
        100,
        -1,
        -1,
        "given by the caller",
        "given by the caller");
  }

  GmonLayout withBasis(long length, long records, String pointerSizeBasis, String byteOrderBasis) {
    return new GmonLayout(
        flavor,
        pointerSize,
        byteOrder,
        bbCountWidth,
        oldBsdProfRate,
        length,
        records,
        pointerSizeBasis,
        byteOrderBasis);
  }

  GmonLayout withOldBsdProfRate(long hz) {
    return new GmonLayout(
        flavor,
        pointerSize,
        byteOrder,
        bbCountWidth,
        hz,
        length,
        records,
        pointerSizeBasis,
        byteOrderBasis);
  }

  public GmonFlavor flavor() {
    return flavor;
  }

  /** Size in bytes (4 or 8) of the addresses (and of BSD arc counts) in the file. */
  public int pointerSize() {
    return pointerSize;
  }

  public ByteOrder byteOrder() {
    return byteOrder;
  }

  /**
   * Width in bytes of the {@code ncounts} field of GNU basic-block records: 4 (gprof) or 8 (64-bit
   * glibc). Always 4 when the pointer size is 4; 8 for pointer size 8 unless the file only parses
   * with 4.
   */
  public int bbCountWidth() {
    return bbCountWidth;
  }

  /** Header size in bytes: 20 for GNU, 2P+24 for 4.4BSD (32 or 40), 2P+4 for old BSD (12 or 20). */
  public int headerSize() {
    switch (flavor) {
      case BSD_44:
        return 2 * pointerSize + 24;
      case BSD_OLD:
        return 2 * pointerSize + 4;
      default:
        return 20;
    }
  }

  /** GNU header version (0 or 1); for BSD flavors -1. */
  public int version() {
    return flavor == GmonFlavor.GNU_V0 ? 0 : flavor == GmonFlavor.GNU_V1 ? 1 : -1;
  }

  /**
   * Rate (Hz) reported for old-BSD histograms, which carry none (option {@code
   * gmon.oldBsdProfRate}).
   */
  public long oldBsdProfRate() {
    return oldBsdProfRate;
  }

  /**
   * File length in bytes as measured by detection (also for compressed sources), or -1 if not
   * measured.
   */
  public long length() {
    return length;
  }

  /**
   * Records found by detection: GNU tagged records (histogram, arc and basic-block records), or for
   * BSD flavors the number of arcs; -1 if not measured.
   */
  public long records() {
    return records;
  }

  /** How the pointer size was decided, in words. */
  public String pointerSizeBasis() {
    return pointerSizeBasis;
  }

  /** How the byte order was decided, in words. */
  public String byteOrderBasis() {
    return byteOrderBasis;
  }

  /** One line for logs and the decoder's notes. */
  public String describe() {
    return flavor
        + ", pointer size "
        + pointerSize
        + " ("
        + pointerSizeBasis
        + "), "
        + (byteOrder == ByteOrder.LITTLE_ENDIAN ? "little-endian" : "big-endian")
        + " ("
        + byteOrderBasis
        + ")"
        + (length >= 0 ? ", " + length + " bytes" : "")
        + (records >= 0 ? ", " + records + (flavor.isGnu() ? " records" : " arcs") : "");
  }

  @Override
  public String toString() {
    return "GmonLayout{" + describe() + "}";
  }
}
