package dev.fleetprof.spark;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of the {@code profile} source: one schema for every format, documented in the README.
 * The names are a contract with users' queries; add columns, never rename them.
 */
public final class ProfileSchema {
  public static final String PATH = "path";
  public static final String FORMAT = "format";
  public static final String KIND = "kind";
  public static final String PCS = "pcs";
  public static final String COUNT = "count";
  public static final String MAPPING = "mapping";
  public static final String FRAMES = "frames";
  public static final String PERIOD = "period";
  public static final String PERIOD_UNIT = "period_unit";
  public static final String RECORD_OFFSET = "record_offset";
  public static final String HISTOGRAM = "histogram";
  public static final String DCPI = "dcpi";
  public static final String PPROF = "pprof";
  public static final String ERROR = "error";
  public static final String STACK_ID = "stack_id";

  /**
   * The hidden metadata column, as Spark's file sources have it: {@code SELECT _metadata.file_path}
   * (not part of {@code SELECT *}).
   */
  public static final String METADATA = "_metadata";

  /** The {@code kind} of the rows that report a problem instead of a record. */
  public static final String KIND_ERROR = "error";

  public static final StructType MAPPING_TYPE =
      new StructType()
          .add("start", DataTypes.LongType, false)
          .add("limit", DataTypes.LongType, false)
          .add("offset", DataTypes.LongType, false)
          .add("path", DataTypes.StringType, false)
          .add("build_id", DataTypes.StringType, true);

  public static final StructType FRAME_TYPE =
      new StructType()
          .add("module", DataTypes.StringType, true)
          .add("offset", DataTypes.LongType, false);

  /** gprof histogram rows: the bin's exclusive end and what a count means (time = count / rate). */
  public static final StructType HISTOGRAM_TYPE =
      new StructType()
          .add("limit", DataTypes.LongType, false)
          .add("rate", DataTypes.LongType, false)
          .add("dimension", DataTypes.StringType, false)
          .add("dimension_abbrev", DataTypes.StringType, false);

  /** DCPI rows: the facts of the file's header, every header line kept in {@code header}. */
  public static final StructType DCPI_TYPE =
      new StructType()
          .add("image", DataTypes.StringType, false)
          .add("event", DataTypes.StringType, false)
          .add("platform", DataTypes.StringType, false)
          .add("epoch", DataTypes.TimestampType, false)
          .add("cpuspeed", DataTypes.LongType, false)
          .add("version", DataTypes.StringType, false)
          .add(
              "header",
              DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, false),
              false);

  /**
   * One entry of a location's inline chain, innermost first (pprof's {@code Location.line}): the
   * same struct as the fleet job's {@code locations.lines}. {@code function} is the function's
   * name, {@code symbol} its system (mangled) name.
   */
  public static final StructType PPROF_LINE_TYPE =
      new StructType()
          .add("function", DataTypes.StringType, false)
          .add("file", DataTypes.StringType, true)
          .add("line", DataTypes.LongType, true)
          .add("symbol", DataTypes.StringType, true);

  /** A pprof sample's label: a string label has {@code str}, a numeric one {@code num} (+ unit). */
  public static final StructType PPROF_LABEL_TYPE =
      new StructType()
          .add("key", DataTypes.StringType, false)
          .add("str", DataTypes.StringType, true)
          .add("num", DataTypes.LongType, true)
          .add("num_unit", DataTypes.StringType, true);

  public static final StructType PPROF_SAMPLE_TYPE_TYPE =
      new StructType()
          .add("type", DataTypes.StringType, false)
          .add("unit", DataTypes.StringType, false);

  /**
   * pprof rows: every value of the sample and every sample type ({@code count} is the value at
   * {@code count_index}: the {@code pprof.sampleType} option's, else the profile's default), the
   * sample's labels, the profile's time and duration, and per pc (parallel to {@code pcs}) the
   * location's inline chain, null where the profile has no line information for it.
   */
  public static final StructType PPROF_TYPE =
      new StructType()
          .add("values", new ArrayType(DataTypes.LongType, false), false)
          .add("sample_types", new ArrayType(PPROF_SAMPLE_TYPE_TYPE, false), false)
          .add("count_index", DataTypes.IntegerType, false)
          .add("labels", new ArrayType(PPROF_LABEL_TYPE, false), false)
          .add("time_nanos", DataTypes.LongType, false)
          .add("duration_nanos", DataTypes.LongType, false)
          .add("lines", new ArrayType(new ArrayType(PPROF_LINE_TYPE, false), true), false);

  /**
   * {@code _metadata}: the fields Spark's file sources give it, with the same meanings (the block
   * is the slice of the file the row's task read; the path is URL-encoded, as Spark's is).
   */
  public static final StructType METADATA_TYPE =
      new StructType()
          .add("file_path", DataTypes.StringType, false)
          .add("file_name", DataTypes.StringType, false)
          .add("file_size", DataTypes.LongType, false)
          .add("file_block_start", DataTypes.LongType, false)
          .add("file_block_length", DataTypes.LongType, false)
          .add("file_modification_time", DataTypes.TimestampType, false);

  public static final StructType SCHEMA =
      new StructType(
          new StructField[] {
            field(PATH, DataTypes.StringType, false, "the file the row came from"),
            field(FORMAT, DataTypes.StringType, false, "gperftools | gprof | dcpi | pprof"),
            field(
                KIND,
                DataTypes.StringType,
                false,
                "what the row counts: sample, histogram, arc, ..."),
            field(
                PCS,
                new ArrayType(DataTypes.LongType, false),
                false,
                "addresses exactly as stored, leaf first, unsigned 64-bit bit patterns"),
            field(
                COUNT,
                DataTypes.LongType,
                false,
                "the record's count (unsigned 64-bit bit pattern)"),
            field(MAPPING, MAPPING_TYPE, true, "the executable mapping holding pcs[0], if any"),
            field(
                FRAMES,
                new ArrayType(FRAME_TYPE, false),
                false,
                "per pc: the mapped file and the pc's offset in it (module null, offset = pc if unmapped)"),
            field(PERIOD, DataTypes.LongType, true, "what one count stands for, in period_unit"),
            field(PERIOD_UNIT, DataTypes.StringType, true, "the unit of period, e.g. microseconds"),
            field(
                RECORD_OFFSET,
                DataTypes.LongType,
                false,
                "byte offset of the record in the (uncompressed) file"),
            field(
                HISTOGRAM,
                HISTOGRAM_TYPE,
                true,
                "gprof histogram rows: bin end (exclusive), rate and dimension; null on other rows"),
            field(DCPI, DCPI_TYPE, true, "DCPI rows: the header's facts; null on other rows"),
            field(
                PPROF,
                PPROF_TYPE,
                true,
                "pprof rows: all values and sample types, labels, times and each pc's inline"
                    + " chain; null on other rows"),
            field(
                ERROR,
                DataTypes.StringType,
                true,
                "kind = 'error' rows: the file, byte offset and"
                    + " problem; null on every other row"),
            field(
                STACK_ID,
                DataTypes.LongType,
                false,
                "a 64-bit fingerprint of frames (module and offset per pc, the pc where unmapped):"
                    + " equal for equal frames on every host and run"),
          });

  /** Stack rows ({@code rows=stacks}): the records merged per file, kind, period and chain. */
  public static final String SAMPLE_TYPE = "sample_type";

  public static final String SAMPLES = "samples";
  public static final String RECORDS = "records";
  public static final String FILE_SIZE = "file_size";
  public static final String LINES = "lines";

  /** Exact sums of unsigned 64-bit counts: 38 digits hold any sum of 2^64 such counts. */
  public static final DecimalType SUM_TYPE = DataTypes.createDecimalType(38, 0);

  /**
   * The columns of the source's stack rows (read option {@code rows=stacks}): one row per file,
   * kind, period, problem and distinct call chain (by {@code stack_id}) that a task reads, with the
   * partition columns. {@code frames} (and a pprof profile's {@code lines}) are given on the first
   * row of each {@code stack_id} a task returns and null on its later rows, so that a job gets both
   * its per-file counts and its dictionary of distinct stacks from one read, without a copy of the
   * frames per file.
   */
  public static StructType stacks(StructType partitionSchema) {
    return stacks(partitionSchema, false);
  }

  /**
   * Stack rows, with a {@link #STACK_LABELS} column when {@code labels}: the read names label keys
   * ({@code stackLabels}).
   */
  public static StructType stacks(StructType partitionSchema, boolean labels) {
    StructType out =
        new StructType(
            new StructField[] {
              SCHEMA.apply(PATH),
              SCHEMA.apply(FORMAT),
              SCHEMA.apply(KIND),
              SCHEMA.apply(PERIOD),
              SCHEMA.apply(PERIOD_UNIT),
              SCHEMA.apply(ERROR),
            });
    for (StructField f : partitionSchema.fields()) {
      out = out.add(f);
    }
    out =
        out.add(
                field(
                    SAMPLE_TYPE,
                    PPROF_SAMPLE_TYPE_TYPE,
                    true,
                    "pprof rows: the sample type count holds (pprof.sample_types[count_index])"))
            .add(SCHEMA.apply(STACK_ID))
            .add(
                field(
                    FRAMES,
                    new ArrayType(FRAME_TYPE, false),
                    true,
                    "the chain's frames, on the first row of its stack_id in a task; null on later"
                        + " rows"))
            .add(
                field(
                    LINES,
                    PPROF_TYPE.apply("lines").dataType(),
                    true,
                    "pprof rows: each frame's inline chain (pprof.lines), where frames is given"))
            .add(field(COUNT, SUM_TYPE, false, "the records' counts summed (unsigned)"))
            .add(
                field(
                    SAMPLES,
                    SUM_TYPE,
                    true,
                    "pprof rows of a profile with a 'samples' sample type: those values summed"))
            .add(field(RECORDS, DataTypes.LongType, false, "how many rows were merged"))
            .add(field(FILE_SIZE, DataTypes.LongType, false, "the file's size in bytes, as listed"))
            .add(
                field(
                    BUILD_IDS,
                    BUILD_IDS_TYPE,
                    true,
                    "the build IDs the file records for its mapped files, by path (pprof's"
                        + " Mapping.build_id); null when it records none"));
    return labels
        ? out.add(
            field(
                STACK_LABELS,
                STACK_LABELS_TYPE,
                true,
                "pprof rows: the sample's labels whose keys the stackLabels option names, sorted"))
        : out;
  }

  /** Stack rows of a read with {@code stackLabels}: the named labels of the rows' samples. */
  public static final String STACK_LABELS = "labels";

  public static final ArrayType STACK_LABELS_TYPE =
      new ArrayType(
          new StructType()
              .add("key", DataTypes.StringType, false)
              .add("value", DataTypes.StringType, false),
          false);

  /** Stack rows: the file's mapped files' build IDs, by path. */
  public static final String BUILD_IDS = "build_ids";

  public static final org.apache.spark.sql.types.MapType BUILD_IDS_TYPE =
      DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, false);

  /** The source's columns followed by the partition columns found in the directory names. */
  public static StructType withPartitions(StructType partitionSchema) {
    StructType out = SCHEMA;
    for (StructField f : partitionSchema.fields()) {
      out = out.add(f);
    }
    return out;
  }

  private ProfileSchema() {}

  private static StructField field(
      String name, org.apache.spark.sql.types.DataType type, boolean nullable, String comment) {
    return new StructField(name, type, nullable, Metadata.empty()).withComment(comment);
  }
}
