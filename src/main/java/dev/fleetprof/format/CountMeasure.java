package dev.fleetprof.format;

/**
 * What the counts of one kind of record measure, for a job that adds counts up across formats (the
 * fleet job's {@code measure}, {@code unit} and {@code value_per_count}): plain data, so that the
 * job turns every format's answer into the same query and names no format. A format lists them in
 * {@link ProfileFormat#measures()}.
 *
 * @param kind the record kind ({@code kind} column) this applies to, or null for every kind of the
 *     format's records
 * @param meaning how a count becomes a measure's value
 * @param name the measure's name for {@link Meaning#COUNTS} (e.g. {@code calls}), the name when the
 *     period's unit names none for {@link Meaning#PERIOD_EVENTS}; null otherwise
 */
public record CountMeasure(String kind, Meaning meaning, String name) {

  /** The ways a record's count turns into a value. */
  public enum Meaning {
    /**
     * Samples of CPU time: the measure {@code cpu}, in nanoseconds; one count stands for one
     * sampling period ({@code period} in {@code period_unit}, a time unit), or the effective period
     * the user gives for the format. CPU time of every such format adds up.
     */
    CPU_SAMPLES,
    /**
     * Events counted one in {@code period}: the measure is the period's unit (the event's name,
     * e.g. {@code cycles}), else {@link CountMeasure#name()}; in {@code count}, one count stands
     * for {@code period} events (1 when the record has none).
     */
    PERIOD_EVENTS,
    /** Plain counts: the measure {@link CountMeasure#name()}, in {@code count}, one per count. */
    COUNTS,
    /**
     * The profile names its measure itself, per file: the measure and unit are the record's sample
     * type ({@code sample_type.type}, {@code .unit} of the source's stack rows), a time unit turned
     * into nanoseconds; when the profile also counts samples ({@code samples}), those are the rows'
     * count and the measure's value is the sample type's.
     */
    SAMPLE_TYPE
  }

  public CountMeasure {
    if (meaning == null) {
      throw new IllegalArgumentException("a measure needs its meaning");
    }
    if (meaning == Meaning.COUNTS && name == null) {
      throw new IllegalArgumentException("counts need their measure's name");
    }
  }

  /** {@code kind}'s records are CPU-time samples. */
  public static CountMeasure cpuSamples(String kind) {
    return new CountMeasure(kind, Meaning.CPU_SAMPLES, null);
  }

  /** {@code kind}'s records count {@code name} (e.g. {@code calls}) one per count. */
  public static CountMeasure counts(String kind, String name) {
    return new CountMeasure(kind, Meaning.COUNTS, name);
  }
}
