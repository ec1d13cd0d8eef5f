package dev.fleetprof.output;

import java.util.Locale;
import java.util.Objects;

/**
 * What a stack's value counts, which every output needs to label it: the sample type and unit (e.g.
 * {@code samples}/{@code count}) and, when one count stands for a fixed amount of something, that
 * period and its unit ({@code microseconds} for gperftools and gprof histograms, an event name such
 * as {@code cycles} for DCPI). The stacks dataset holds one meaning per (kind, period,
 * period_unit): write one output per group, never mix them.
 *
 * @param period what one count stands for, in {@code periodUnit}; 0 when there is no period
 * @param periodUnit null when there is no period
 */
public record ValueMeaning(String type, String unit, long period, String periodUnit) {
  public ValueMeaning {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(unit, "unit");
    if ((periodUnit == null) != (period == 0)) {
      throw new IllegalArgumentException(
          "period "
              + period
              + " and period unit "
              + periodUnit
              + ": give both (period > 0) or neither");
    }
    if (period < 0) {
      throw new IllegalArgumentException("negative period " + period);
    }
  }

  /** Plain counts with no period: gprof arcs and basic-block counts. */
  public static ValueMeaning counts(String type, String unit) {
    return new ValueMeaning(type, unit, 0, null);
  }

  /**
   * The meaning of a group of the stacks dataset, from its {@code kind}, {@code period} and {@code
   * period_unit} columns (either may be null): {@code sample} and {@code histogram} rows count
   * samples, {@code arc} rows calls, {@code basic_block} rows executions.
   */
  public static ValueMeaning forKind(String kind, Long period, String periodUnit) {
    String type =
        switch (kind) {
          case "sample", "histogram" -> "samples";
          case "arc" -> "calls";
          case "basic_block" -> "executions";
          default -> kind;
        };
    boolean periodic = period != null && period > 0 && periodUnit != null && !periodUnit.isEmpty();
    return periodic ? new ValueMeaning(type, "count", period, periodUnit) : counts(type, "count");
  }

  public boolean hasPeriod() {
    return periodUnit != null;
  }

  /**
   * Nanoseconds in one {@code periodUnit} when it is a time unit, else 0 (an event such as {@code
   * cycles}, or no period).
   */
  public long nanosPerPeriodUnit() {
    return nanosPer(periodUnit);
  }

  /**
   * Nanoseconds in one {@code unit} when the values themselves are time (e.g. {@code cpu}/{@code
   * nanoseconds}), else 0.
   */
  public long nanosPerUnit() {
    return nanosPer(unit);
  }

  private static long nanosPer(String unit) {
    if (unit == null) {
      return 0;
    }
    return switch (unit.toLowerCase(Locale.ROOT)) {
      case "nanoseconds", "ns" -> 1L;
      case "microseconds", "us" -> 1_000L;
      case "milliseconds", "ms" -> 1_000_000L;
      case "seconds", "s" -> 1_000_000_000L;
      default -> 0L;
    };
  }
}
