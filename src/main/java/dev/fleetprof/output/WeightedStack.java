package dev.fleetprof.output;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

/**
 * One row of an aggregate: a call chain, LEAF FIRST as in the {@code frames} column, and its summed
 * value. Values are signed so that a difference of two aggregates can be negative; the writers that
 * cannot draw negative weights (folded stacks, flame graphs) refuse them.
 */
public record WeightedStack(List<Frame> frames, long value) {
  public WeightedStack {
    frames = List.copyOf(frames);
  }

  /**
   * A stack whose value is a {@code DECIMAL(38,0)} sum, as the fleet job computes it. A sum outside
   * the signed 64-bit range cannot be written to any of the outputs and fails here, naming the
   * value, instead of wrapping around.
   */
  public static WeightedStack of(List<Frame> frames, BigDecimal value) {
    return new WeightedStack(frames, exactLong(value));
  }

  /** {@code value} as a long, or an {@link ArithmeticException} saying it does not fit. */
  public static long exactLong(BigDecimal value) {
    BigInteger v;
    try {
      v = value.toBigIntegerExact();
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          "stack value " + value.toPlainString() + " is not a whole number");
    }
    if (v.bitLength() > 63) {
      throw new ArithmeticException(
          "stack value "
              + v
              + " does not fit in a signed 64-bit integer"
              + " (the outputs store int64 values); split the aggregate or scale the counts");
    }
    return v.longValue();
  }
}
