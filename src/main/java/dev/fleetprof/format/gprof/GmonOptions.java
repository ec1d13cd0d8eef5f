package dev.fleetprof.format.gprof;

import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Map;

/**
 * Options of the gmon decoder. Immutable; the {@code with...} methods return modified copies.
 *
 * <p>String keys (for {@link #fromMap}), as the Spark layer passes them:
 *
 * <ul>
 *   <li>{@code gmon.pointerSize}: {@code auto} (default), {@code 4} or {@code 8} (also {@code
 *       32}/{@code 64} for bits). The size of addresses in the file; the file does not store it.
 *   <li>{@code gmon.byteOrder}: {@code auto} (default), {@code little} or {@code big} (also {@code
 *       le}, {@code be}).
 *   <li>{@code gmon.oldBsdProfRate}: the sampling rate in Hz assumed for old-BSD files, whose
 *       header has no rate field (gprof uses the rate of the machine that runs gprof; 100 on
 *       Linux). Default 100.
 * </ul>
 */
public final class GmonOptions {
  public static final String POINTER_SIZE = "gmon.pointerSize";
  public static final String BYTE_ORDER = "gmon.byteOrder";
  public static final String OLD_BSD_PROF_RATE = "gmon.oldBsdProfRate";

  private static final GmonOptions AUTO = new GmonOptions(0, null, 100);

  private final int pointerSize;
  private final ByteOrder byteOrder;
  private final long oldBsdProfRate;

  private GmonOptions(int pointerSize, ByteOrder byteOrder, long oldBsdProfRate) {
    this.pointerSize = pointerSize;
    this.byteOrder = byteOrder;
    this.oldBsdProfRate = oldBsdProfRate;
  }

  /** Everything detected from the file; old-BSD rate 100 Hz. */
  public static GmonOptions auto() {
    return AUTO;
  }

  /**
   * Reads the {@code gmon.*} keys of {@code options} (other keys are ignored; key match is
   * case-insensitive, as Spark options are).
   *
   * @throws IllegalArgumentException for a value that is not understood
   */
  public static GmonOptions fromMap(Map<String, String> options) {
    GmonOptions o = AUTO;
    for (Map.Entry<String, String> e : options.entrySet()) {
      String key = e.getKey();
      String v = e.getValue() == null ? "" : e.getValue().trim().toLowerCase(Locale.ROOT);
      if (key.equalsIgnoreCase(POINTER_SIZE)) {
        switch (v) {
          case "auto":
          case "":
            o = o.withPointerSize(0);
            break;
          case "4":
          case "32":
            o = o.withPointerSize(4);
            break;
          case "8":
          case "64":
            o = o.withPointerSize(8);
            break;
          default:
            throw new IllegalArgumentException(
                POINTER_SIZE + " must be auto, 4 or 8 (bytes), not '" + e.getValue() + "'");
        }
      } else if (key.equalsIgnoreCase(BYTE_ORDER)) {
        switch (v) {
          case "auto":
          case "":
            o = o.withByteOrder(null);
            break;
          case "little":
          case "le":
          case "little_endian":
          case "little-endian":
            o = o.withByteOrder(ByteOrder.LITTLE_ENDIAN);
            break;
          case "big":
          case "be":
          case "big_endian":
          case "big-endian":
            o = o.withByteOrder(ByteOrder.BIG_ENDIAN);
            break;
          default:
            throw new IllegalArgumentException(
                BYTE_ORDER + " must be auto, little or big, not '" + e.getValue() + "'");
        }
      } else if (key.equalsIgnoreCase(OLD_BSD_PROF_RATE)) {
        long rate;
        try {
          rate = Long.parseLong(v);
        } catch (NumberFormatException ex) {
          rate = -1;
        }
        if (rate <= 0 || rate > 0xffffffffL) {
          throw new IllegalArgumentException(
              OLD_BSD_PROF_RATE + " must be a positive number of Hz, not '" + e.getValue() + "'");
        }
        o = o.withOldBsdProfRate(rate);
      }
    }
    return o;
  }

  /** 0 = detect, else 4 or 8. */
  public GmonOptions withPointerSize(int size) {
    if (size != 0 && size != 4 && size != 8) {
      throw new IllegalArgumentException("pointer size must be 0 (auto), 4 or 8: " + size);
    }
    return new GmonOptions(size, byteOrder, oldBsdProfRate);
  }

  /** null = detect. */
  public GmonOptions withByteOrder(ByteOrder order) {
    return new GmonOptions(pointerSize, order, oldBsdProfRate);
  }

  public GmonOptions withOldBsdProfRate(long hz) {
    if (hz <= 0 || hz > 0xffffffffL) {
      throw new IllegalArgumentException("rate must be positive: " + hz);
    }
    return new GmonOptions(pointerSize, byteOrder, hz);
  }

  /** 0 when detected from the file, else the forced size. */
  public int pointerSize() {
    return pointerSize;
  }

  /** null when detected from the file, else the forced order. */
  public ByteOrder byteOrder() {
    return byteOrder;
  }

  public long oldBsdProfRate() {
    return oldBsdProfRate;
  }

  @Override
  public String toString() {
    return "GmonOptions{pointerSize="
        + (pointerSize == 0 ? "auto" : pointerSize)
        + ", byteOrder="
        + (byteOrder == null ? "auto" : byteOrder)
        + ", oldBsdProfRate="
        + oldBsdProfRate
        + "}";
  }
}
