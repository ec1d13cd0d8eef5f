package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.ProfileSchema;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What the fleet job's counts measure, named as pprof names sample types, so that no output adds or
 * ranks two different things together. A row's {@code count} is what its profile counted (samples,
 * calls, executions, events); its measure says what that stands for. Each format says it of its own
 * records ({@link ProfileFormat#measures()}, per record kind), and this class turns every
 * registered format's answer into the same SQL, naming no format itself:
 *
 * <ul>
 *   <li>{@link CountMeasure.Meaning#CPU_SAMPLES}: {@code cpu} in {@code nanoseconds} (gperftools
 *       samples, gprof histogram bins). One count stands for one sampling period of CPU time, so
 *       CPU time of every format adds up: {@code value = count x period}.
 *   <li>{@link CountMeasure.Meaning#COUNTS}: the named measure ({@code calls} for gprof call arcs,
 *       {@code executions} for basic-block counts), in {@code count}: {@code value = count}.
 *   <li>{@link CountMeasure.Meaning#PERIOD_EVENTS}: the profile's event (a DCPI profile's, e.g.
 *       {@code cycles}), in {@code count}: one count stands for {@code period} events, so {@code
 *       value = count x period}.
 *   <li>{@link CountMeasure.Meaning#SAMPLE_TYPE}: the profile's own sample type (pprof), a time
 *       unit in nanoseconds.
 * </ul>
 *
 * <p>The period is the one the profile records (nominal), unless the user gives the effective one
 * for a format: a gperftools profile asks for 1000 samples a second of CPU time, but the kernel
 * delivers them at its tick, so on a {@code CONFIG_HZ=250} kernel each sample really stands for 4
 * ms ({@code --effective-period gperftools=4ms}).
 */
final class Measures {
  /** CPU time, the measure every CPU profile has and the default of every output. */
  static final String CPU = "cpu";

  private static final Pattern DURATION =
      Pattern.compile("([0-9]+)\\s*(ns|us|µs|ms|s)", Pattern.CASE_INSENSITIVE);

  private Measures() {}

  /**
   * The effective sampling period per format, in nanoseconds, from {@code FORMAT=DURATION} values
   * ({@code gperftools=4ms}); an IllegalArgumentException names a bad one.
   */
  static Map<String, Long> effectivePeriods(Iterable<String> specs) {
    Map<String, Long> out = new TreeMap<>();
    for (String spec : specs) {
      int eq = spec.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            "--effective-period " + spec + ": expected FORMAT=DURATION, e.g. gperftools=4ms");
      }
      String format = spec.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      if (!ProfileFormats.names().contains(format)) {
        throw new IllegalArgumentException(
            "--effective-period "
                + spec
                + ": unknown format "
                + format
                + " (one of "
                + ProfileFormats.names()
                + ")");
      }
      out.put(format, nanos(spec, spec.substring(eq + 1).trim()));
    }
    return out;
  }

  private static long nanos(String spec, String duration) {
    Matcher m = DURATION.matcher(duration);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--effective-period "
              + spec
              + ": "
              + duration
              + " is not a duration such as 4ms,"
              + " 4000us or 4000000ns");
    }
    long per =
        switch (m.group(2).toLowerCase(Locale.ROOT)) {
          case "ns" -> 1L;
          case "us", "µs" -> 1_000L;
          case "ms" -> 1_000_000L;
          default -> 1_000_000_000L;
        };
    try {
      long n = Math.multiplyExact(Long.parseLong(m.group(1)), per);
      if (n <= 0) {
        throw new IllegalArgumentException("--effective-period " + spec + ": must be positive");
      }
      return n;
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("--effective-period " + spec + ": too long", e);
    }
  }

  /**
   * Adds {@code measure}, {@code unit} and {@code value_per_count} (what one count adds to the
   * measure's value; null when unknown, e.g. a gprof histogram whose bin is not a whole number of
   * microseconds) to the source's stack rows ({@code rows=stacks}), as every registered format
   * describes its counts. Error rows get nulls.
   */
  static Dataset<Row> withMeasure(Dataset<Row> rows, Map<String, Long> effectiveNanos) {
    // A count of a profile that names its own measure is the value of one of its sample types, in
    // that type's unit.
    String sampleType = ProfileSchema.SAMPLE_TYPE;
    String typeNanos = nanosPerUnit(sampleType + ".unit");
    StringBuilder measure = new StringBuilder("CASE WHEN kind = 'error' THEN NULL");
    StringBuilder ownUnit = new StringBuilder();
    StringBuilder ownValue = new StringBuilder();
    StringBuilder eventsValue = new StringBuilder();
    StringBuilder ownCount = new StringBuilder();
    for (ProfileFormat f : ProfileFormats.ALL) {
      for (CountMeasure m : f.measures()) {
        String when = " WHEN " + rowsOf(f, m) + " THEN ";
        switch (m.meaning()) {
          case CPU_SAMPLES -> measure.append(when).append(sqlString(CPU));
          case COUNTS -> measure.append(when).append(sqlString(m.name()));
          case PERIOD_EVENTS -> {
            measure
                .append(when)
                .append("coalesce(nullif(period_unit, ''), ")
                .append(sqlString(m.name() == null ? "events" : m.name()))
                .append(")");
            eventsValue.append(when).append("coalesce(period, CAST(1 AS BIGINT))");
          }
          case SAMPLE_TYPE -> {
            measure.append(when).append(sampleType).append(".type");
            ownUnit
                .append(when)
                .append("CASE WHEN ")
                .append(typeNanos)
                .append(" IS NOT NULL THEN 'nanoseconds' ELSE ")
                .append(sampleType)
                .append(".unit END");
            ownValue
                .append(when)
                .append("coalesce(")
                .append(typeNanos)
                .append(", CAST(1 AS BIGINT))");
            ownCount
                .append(" WHEN ")
                .append(rowsOf(f, m))
                .append(" AND samples IS NOT NULL THEN samples");
          }
        }
      }
    }
    measure.append(" ELSE kind END");
    String recorded = "try_multiply(period, " + nanosPerUnit("period_unit") + ")";
    StringBuilder cpuPeriod = new StringBuilder();
    for (Map.Entry<String, Long> e : effectiveNanos.entrySet()) {
      cpuPeriod
          .append(" WHEN format = '")
          .append(e.getKey())
          .append("' THEN CAST(")
          .append(e.getValue())
          .append(" AS BIGINT)");
    }
    String cpuNanos =
        cpuPeriod.length() == 0 ? recorded : "CASE" + cpuPeriod + " ELSE " + recorded + " END";
    String unit =
        "CASE WHEN measure IS NULL THEN NULL"
            + ownUnit
            + " WHEN measure = '"
            + CPU
            + "' THEN 'nanoseconds' ELSE 'count' END";
    String valuePerCount =
        "CASE WHEN measure IS NULL THEN NULL"
            + ownValue
            + " WHEN measure = '"
            + CPU
            + "' THEN "
            + cpuNanos
            + eventsValue
            + " ELSE CAST(1 AS BIGINT) END";
    // count: what was counted (samples, calls, events); measured: what the measure's value is made
    // of. They differ for a profile that counts samples beside its measure (Go CPU profiles:
    // samples/count and cpu/nanoseconds): count takes the samples there (the stack rows' samples,
    // summed by the source), so that counts stay counts of samples across formats.
    Dataset<Row> out =
        rows.withColumn("measure", expr(measure.toString()))
            .withColumn("unit", expr(unit))
            .withColumn("value_per_count", expr(valuePerCount))
            .withColumn("measured", col("count"));
    return ownCount.length() == 0
        ? out
        : out.withColumn("count", expr("CASE" + ownCount + " ELSE count END"));
  }

  /** The condition that picks the rows a format's measure is about: its format, and its kind. */
  private static String rowsOf(ProfileFormat f, CountMeasure m) {
    return "format = "
        + sqlString(f.name())
        + (m.kind() == null ? "" : " AND kind = " + sqlString(m.kind()));
  }

  /** {@code s} as a SQL string literal. */
  private static String sqlString(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /**
   * Nanoseconds in one of the time unit a column names, in any case; null for any other unit. ASCII
   * case folding (translate) instead of lower(): Spark 4's lower() goes through ICU, whose case
   * tables take seconds of a job's first task to load (JFR: CollationAwareUTF8String's static
   * initializer, 230 samples of a 70 s run). For these ASCII words the two agree: the only
   * non-ASCII character lower() maps into ASCII is the Kelvin sign, to 'k', which none holds.
   */
  private static String nanosPerUnit(String column) {
    return "CASE translate("
        + column
        + ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') WHEN 'nanoseconds' THEN CAST(1 AS BIGINT)"
        + " WHEN 'microseconds' THEN CAST(1000 AS BIGINT)"
        + " WHEN 'milliseconds' THEN CAST(1000000 AS BIGINT)"
        + " WHEN 'seconds' THEN CAST(1000000000 AS BIGINT) END";
  }

  /**
   * {@code count x value_per_count} as DECIMAL(38,0): the measure's value of a summed count (null
   * when value_per_count is, or when the product leaves 38 digits).
   */
  static String value(String count) {
    return "CAST(try_multiply("
        + count
        + ", CAST(value_per_count AS DECIMAL(20,0)))"
        + " AS DECIMAL(38,0))";
  }
}
