package dev.fleetprof.spark;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.read.HadoopByteSource;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The read options of the {@code profile} source, resolved once on the driver into the values the
 * read uses. Each option is declared once below ({@link ReadOption}): its name, one line of doc,
 * how its value is parsed and checked, and its default. Precedence, for every option: the read
 * option when given, else the session's setting when the option has one ({@code
 * spark.sql.files.*}), else the default. Bad values fail here, naming the option and what it
 * accepts, before any task runs.
 */
public final class ReadOptions implements Serializable {
  private static final long serialVersionUID = 4L;

  /** Every option declared below, in declaration order (declared first: the others add to it). */
  private static final List<ReadOption<?>> DECLARED = new ArrayList<>();

  public static final ReadOption<String> FORMAT =
      option(
              "format",
              "each file's format: `auto` detects it from its bytes, a format's name forces it")
          .parsedBy(ReadOptions::formatName)
          .defaultValue(ProfileFormats.AUTO);

  public static final ReadOption<String> PATH_GLOB_FILTER =
      option("pathGlobFilter", "only files whose names match this glob, as in Spark")
          .optional("none");

  /**
   * As in Spark's file sources, every file below the paths is read either way; {@code true} only
   * turns off partition columns (so {@code basePath} has no effect).
   */
  public static final ReadOption<Boolean> RECURSIVE_FILE_LOOKUP =
      option("recursiveFileLookup", "true infers no partition columns from key=value directories")
          .parsedBy(ReadOptions::bool)
          .defaultValue("false");

  /**
   * Off by default: a link such as {@code loop -> ..} would list the tree again and again; when on,
   * a directory already listed, or one containing the link, is not entered again.
   */
  public static final ReadOption<Boolean> FOLLOW_SYMLINKS =
      option("followSymlinks", "whether symbolic links to directories below the paths are followed")
          .parsedBy(ReadOptions::bool)
          .defaultValue("false");

  public static final ReadOption<Long> MAX_PARTITION_BYTES =
      option("maxPartitionBytes", "split size; small files are packed up to it")
          .parsedBy(ReadOptions::bytes)
          .requiring(v -> v > 0, "must be positive")
          .sessionDefault("spark.sql.files.maxPartitionBytes", SQLConf::filesMaxPartitionBytes);

  public static final ReadOption<Long> OPEN_COST_IN_BYTES =
      option("openCostInBytes", "what each file costs when packing small files")
          .parsedBy(ReadOptions::bytes)
          .sessionDefault("spark.sql.files.openCostInBytes", SQLConf::filesOpenCostInBytes);

  public static final ReadOption<Long> MIN_PARTITION_NUM =
      option("minPartitionNum", "the fewest partitions small files are packed into")
          .parsedBy(ReadOptions::rowCount)
          .requiring(v -> v > 0 && v <= Integer.MAX_VALUE, "must be positive (at most 2147483647)")
          .optional("`spark.sql.files.minPartitionNum`, else the default parallelism");

  public static final ReadOption<String> BASE_PATH =
      option("basePath", "where key=value partition directories start, as in Spark")
          .optional("the loaded directories");

  public static final ReadOption<String> TIME_ZONE =
      option("timeZone", "the zone of timestamp partition values")
          .sessionDefault("spark.sql.session.timeZone", SQLConf::sessionLocalTimeZone);

  public static final ReadOption<Mode> MODE =
      option("mode", "what a problem in the input becomes: an error row, a count, a failed query")
          .parsedBy(ReadOptions::mode)
          .defaultValue(Mode.PERMISSIVE.name());

  public static final ReadOption<Boolean> IGNORE_CORRUPT_FILES =
      option("ignoreCorruptFiles", "skip the rest of a bad file, whatever the mode")
          .parsedBy(ReadOptions::bool)
          .sessionDefault("spark.sql.files.ignoreCorruptFiles", SQLConf::ignoreCorruptFiles);

  public static final ReadOption<Boolean> IGNORE_MISSING_FILES =
      option("ignoreMissingFiles", "skip files deleted between planning and reading")
          .parsedBy(ReadOptions::bool)
          .sessionDefault("spark.sql.files.ignoreMissingFiles", SQLConf::ignoreMissingFiles);

  public static final ReadOption<Boolean> COLUMNAR =
      option("columnar", "whether queries that need no call chains read column batches")
          .parsedBy(ReadOptions::bool)
          .defaultValue("true");

  /** The pushed aggregations: {@code SUM}, {@code COUNT}, {@code MIN}, {@code MAX} of count. */
  public static final ReadOption<Boolean> AGGREGATE_PUSHDOWN =
      option("aggregatePushdown", "whether the readers compute aggregations of count partially")
          .parsedBy(ReadOptions::bool)
          .defaultValue("true");

  /**
   * What a row is: one per profile record, or (stacks) each file's records merged per kind, period,
   * problem and chain, with every stack's frames once per task (see {@link ProfileSchema#stacks}).
   */
  public static final ReadOption<Boolean> ROWS =
      option("rows", "what a row is: `records`, or `stacks` (each file's records merged per chain)")
          .parsedBy(ReadOptions::rows)
          .defaultValue("records");

  /**
   * Stack rows are also kept apart by these pprof labels (a sample's {@code pprof.labels}), so that
   * a job can sum them per label value, as {@code go tool pprof -tagfocus} does.
   */
  public static final ReadOption<List<String>> STACK_LABELS =
      option(
              "stackLabels",
              "stack rows: the pprof label keys (comma-separated) whose values split a chain's row")
          .parsedBy(ReadOptions::labelKeys)
          .optional("none");

  /**
   * 64 MiB: a few hundred thousand distinct chains per task; with a task per core, within the user
   * memory of an executor of 1 GiB per core or more.
   */
  public static final ReadOption<Long> AGGREGATE_PUSHDOWN_MAX_MAP_BYTES =
      option(
              "aggregatePushdown.maxMapBytes",
              "the most heap a task's groups may take in a pushed aggregation before it emits them")
          .parsedBy(ReadOptions::bytes)
          .requiring(v -> v > 0, "must be positive")
          .defaultValue("64m");

  /** See {@link HadoopByteSource.GzipLimits} for how the default was chosen. */
  public static final ReadOption<Long> MAX_DECOMPRESSED_BYTES =
      option("maxDecompressedBytes", ".gz files: the most bytes one may decompress to")
          .parsedBy(ReadOptions::bytes)
          .requiring(v -> v > 0, "must be positive")
          .defaultValue("16g");

  /** Checked once 64 MiB have been decompressed; see {@link HadoopByteSource.GzipLimits}. */
  public static final ReadOption<Double> MAX_COMPRESSION_RATIO =
      option("maxCompressionRatio", ".gz files: the most decompressed bytes per compressed byte")
          .parsedBy(ReadOptions::compressionRatio)
          .defaultValue("500");

  /**
   * Test-only fault hook: the first attempt of every task fails after this many rows, so that tests
   * can check a retried task gives the same rows. Not for users, and not in the docs.
   */
  public static final ReadOption<Long> FAIL_FIRST_ATTEMPT_AFTER_ROWS =
      option("fleetprof.test.failFirstAttemptAfterRows", "test-only fault hook")
          .parsedBy(ReadOptions::rowCount)
          .internal()
          .defaultValue("-1");

  /** Spark's parse modes for malformed input. */
  public enum Mode {
    PERMISSIVE,
    DROPMALFORMED,
    FAILFAST
  }

  /** Options that are the source's own; every other option is passed to Hadoop's Configuration. */
  static final Set<String> OWN = ownOptions();

  private static Set<String> ownOptions() {
    Set<String> own = new HashSet<>();
    // The paths of load(...), which Spark passes as options.
    List<String> names = new ArrayList<>(List.of("path", "paths"));
    for (ReadOption<?> o : DECLARED) {
      names.add(o.name());
    }
    names.addAll(ProfileFormats.optionNames());
    for (String k : names) {
      own.add(k.toLowerCase(Locale.ROOT));
    }
    return Set.copyOf(own);
  }

  /** Every declared option, in declaration order, the test-only one included. */
  static List<ReadOption<?>> declared() {
    return List.copyOf(DECLARED);
  }

  private final List<String> paths;
  private final HashMap<String, String> formatOptions = new HashMap<>();

  /** Each declared option's resolved value, in the order of {@link #DECLARED}. */
  private final Object[] values;

  /** Resolves {@code options} against the active session's configuration. */
  public ReadOptions(CaseInsensitiveStringMap options) {
    this(options, SQLConf.get());
  }

  ReadOptions(CaseInsensitiveStringMap options, SQLConf session) {
    this.paths = paths(options);
    this.values = new Object[DECLARED.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = DECLARED.get(i).resolve(options, session);
    }
    for (ProfileFormat f : ProfileFormats.ALL) {
      for (String k : f.optionNames()) {
        if (options.containsKey(k)) {
          formatOptions.put(k, options.get(k));
        }
      }
    }
    if (!stackLabels().isEmpty() && !stackRows()) {
      throw new IllegalArgumentException(
          "profile source: option " + STACK_LABELS + " applies to " + ROWS + "=stacks");
    }
    DecodeOptions decode = new DecodeOptions(formatOptions, true, true, null);
    for (ProfileFormat f : ProfileFormats.ALL) {
      try {
        f.validate(decode);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("profile source: " + e.getMessage(), e);
      }
    }
  }

  @SuppressWarnings("unchecked") // values[i] is what DECLARED.get(i) resolved to: a T
  private <T> T value(ReadOption<T> option) {
    return (T) values[option.index];
  }

  private static List<String> paths(CaseInsensitiveStringMap options) {
    List<String> out = new ArrayList<>();
    if (options.containsKey("paths")) {
      try {
        out.addAll(
            new ObjectMapper()
                .readValue(options.get("paths"), new TypeReference<List<String>>() {}));
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("profile source: option paths is not a JSON array", e);
      }
    }
    if (options.containsKey("path")) {
      out.add(options.get("path"));
    }
    return List.copyOf(out);
  }

  // The parsers: each returns the value or throws an IllegalArgumentException whose message says
  // what the option accepts; ReadOption.parse puts the option's name and the value before it.

  private static String formatName(String v) {
    String format = v.toLowerCase(Locale.ROOT);
    if (!format.equals(ProfileFormats.AUTO) && ProfileFormats.byName(format) == null) {
      throw new IllegalArgumentException(
          "is not one of "
              + ProfileFormats.AUTO
              + ", "
              + String.join(", ", ProfileFormats.names()));
    }
    return format;
  }

  private static Boolean bool(String v) {
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException("is not true or false");
    }
    return Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
  }

  private static Long bytes(String v) {
    try {
      return JavaUtils.byteStringAsBytes(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("is not a size in bytes (e.g. 134217728, 128m)", e);
    }
  }

  /** Comma-separated label keys, each given once. */
  private static List<String> labelKeys(String v) {
    List<String> keys = new ArrayList<>();
    for (String k : v.split(",", -1)) {
      String key = k.trim();
      if (key.isEmpty()) {
        throw new IllegalArgumentException("has an empty label key (give keys as a,b,c)");
      }
      if (keys.contains(key)) {
        throw new IllegalArgumentException("names " + key + " twice");
      }
      keys.add(key);
    }
    return List.copyOf(keys);
  }

  /** {@code stacks}: true; {@code records}: false. */
  private static Boolean rows(String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "records" -> false;
      case "stacks" -> true;
      default -> throw new IllegalArgumentException("is not one of records, stacks");
    };
  }

  private static Mode mode(String v) {
    try {
      return Mode.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "is not one of "
              + Arrays.stream(Mode.values()).map(Mode::name).collect(Collectors.joining(", ")),
          e);
    }
  }

  private static Double compressionRatio(String v) {
    double ratio;
    try {
      ratio = Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      ratio = Double.NaN;
    }
    if (!(ratio >= 1) || Double.isInfinite(ratio)) {
      throw new IllegalArgumentException(
          "is not a number of at least 1 (decompressed bytes per compressed byte)");
    }
    return ratio;
  }

  private static Long rowCount(String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("is not a whole number", e);
    }
  }

  /** The paths to read (files, directories, globs), as given. */
  public List<String> paths() {
    return paths;
  }

  /** {@code auto} or the name of one format (lower case). */
  public String format() {
    return value(FORMAT);
  }

  /** The file name glob, or null. */
  public String pathGlobFilter() {
    return value(PATH_GLOB_FILTER);
  }

  /** Whether partition directories are ignored (no partition columns). */
  public boolean recursiveFileLookup() {
    return value(RECURSIVE_FILE_LOOKUP);
  }

  /** Whether symbolic links to directories below the paths are followed. */
  public boolean followSymlinks() {
    return value(FOLLOW_SYMLINKS);
  }

  /** The zone of timestamp partition values: the option, else the session's time zone. */
  public String timeZone() {
    return value(TIME_ZONE);
  }

  /** The {@code basePath} option, or null. */
  public String basePath() {
    return value(BASE_PATH);
  }

  /** The option, else {@code spark.sql.files.maxPartitionBytes}. */
  public long maxPartitionBytes() {
    return value(MAX_PARTITION_BYTES);
  }

  /**
   * The option, else null: the scan then packs into at least {@code
   * spark.sql.files.minPartitionNum} partitions, else the default parallelism.
   */
  public Integer minPartitionNum() {
    Long n = value(MIN_PARTITION_NUM);
    return n == null ? null : n.intValue();
  }

  /** The option, else {@code spark.sql.files.openCostInBytes}. */
  public long openCostInBytes() {
    return value(OPEN_COST_IN_BYTES);
  }

  /** The formats' options that were set, under their documented (case-sensitive) names. */
  public Map<String, String> formatOptions() {
    return formatOptions;
  }

  /** The mode and the ignore options (read option, else the session's setting). */
  public ProblemPolicy problemPolicy() {
    return new ProblemPolicy(
        value(MODE),
        value(IGNORE_CORRUPT_FILES),
        value(IGNORE_MISSING_FILES),
        value(FAIL_FIRST_ATTEMPT_AFTER_ROWS));
  }

  /** Whether queries without call chains may read column batches. */
  boolean columnar() {
    return value(COLUMNAR);
  }

  /** Whether aggregations may be pushed to the readers. */
  boolean aggregatePushdown() {
    return value(AGGREGATE_PUSHDOWN);
  }

  /** Whether rows are stack rows ({@code rows=stacks}) rather than records. */
  public boolean stackRows() {
    return value(ROWS);
  }

  /** The pprof label keys whose values split stack rows (empty: none). */
  public List<String> stackLabels() {
    List<String> keys = value(STACK_LABELS);
    return keys == null ? List.of() : keys;
  }

  /** The heap a reader's groups may take in a pushed aggregation before they are emitted. */
  public long aggregateMapBytes() {
    return value(AGGREGATE_PUSHDOWN_MAX_MAP_BYTES);
  }

  /** How far {@code .gz} files may inflate. */
  public HadoopByteSource.GzipLimits gzipLimits() {
    return new HadoopByteSource.GzipLimits(
        value(MAX_DECOMPRESSED_BYTES), value(MAX_COMPRESSION_RATIO));
  }

  /** Options to pass on to Hadoop's Configuration (credentials, fs.* settings, ...). */
  static Map<String, String> hadoopOptions(CaseInsensitiveStringMap options) {
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, String> e : options.asCaseSensitiveMap().entrySet()) {
      if (!OWN.contains(e.getKey().toLowerCase(Locale.ROOT))) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReadOptions r
        && paths.equals(r.paths)
        && formatOptions.equals(r.formatOptions)
        && Arrays.equals(values, r.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(paths, formatOptions, Arrays.hashCode(values));
  }

  private static Declaring<String> option(String name, String doc) {
    return new Declaring<>(name, doc, v -> v);
  }

  /**
   * One read option of the source: its name (any case in a read), one line of doc, how a given
   * value is parsed and checked, and what applies when none is given. {@link #toString} is the
   * name, for messages.
   */
  public static final class ReadOption<T> {
    private final String name;
    private final String doc;
    private final Function<String, T> parser;
    private final Predicate<T> requirement;
    private final String requirementText;
    private final boolean internal;
    private final String documentedDefault;
    private final T defaultValue;
    private final String sessionConf;
    private final Function<SQLConf, T> sessionValue;
    private final int index;

    private ReadOption(
        Declaring<T> d,
        String documentedDefault,
        T defaultValue,
        String sessionConf,
        Function<SQLConf, T> sessionValue) {
      this.name = d.name;
      this.doc = d.doc;
      this.parser = d.parser;
      this.requirement = d.requirement;
      this.requirementText = d.requirementText;
      this.internal = d.internal;
      this.documentedDefault = documentedDefault;
      this.defaultValue = defaultValue;
      this.sessionConf = sessionConf;
      this.sessionValue = sessionValue;
      this.index = DECLARED.size();
      DECLARED.add(this);
    }

    /** The option's name, as the docs spell it. */
    public String name() {
      return name;
    }

    /** One line saying what the option does. */
    public String doc() {
      return doc;
    }

    /** The default as the docs' options table shows it: a value, a session setting, or words. */
    public String documentedDefault() {
      return documentedDefault;
    }

    /** Whether the option is for tests only, and so not in the docs. */
    public boolean internal() {
      return internal;
    }

    @Override
    public String toString() {
      return name;
    }

    /**
     * The read option when given, else the session's setting when there is one, else the default.
     */
    private T resolve(CaseInsensitiveStringMap options, SQLConf session) {
      String given = options.get(name);
      if (given != null) {
        return check(parse(given), "option " + name + "='" + given + "'");
      }
      if (sessionValue != null) {
        T fromSession = sessionValue.apply(session);
        return check(fromSession, sessionConf + "=" + fromSession);
      }
      return defaultValue;
    }

    private T parse(String given) {
      try {
        return parser.apply(given);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "profile source: option " + name + "='" + given + "' " + e.getMessage(), e);
      }
    }

    private T check(T value, String what) {
      if (requirement != null && value != null && !requirement.test(value)) {
        throw new IllegalArgumentException("profile source: " + what + " " + requirementText);
      }
      return value;
    }
  }

  /** An option being declared: {@code option(...)}, then a parser, a check, then its default. */
  private static final class Declaring<T> {
    private final String name;
    private final String doc;
    private final Function<String, T> parser;
    private Predicate<T> requirement;
    private String requirementText;
    private boolean internal;

    private Declaring(String name, String doc, Function<String, T> parser) {
      this.name = name;
      this.doc = doc;
      this.parser = parser;
    }

    /** Values are parsed by {@code parser}, which throws saying what the option accepts. */
    <U> Declaring<U> parsedBy(Function<String, U> parser) {
      return new Declaring<>(name, doc, parser);
    }

    /**
     * A value (given, or the session's) that fails {@code requirement} is refused with {@code
     * text}.
     */
    Declaring<T> requiring(Predicate<T> requirement, String text) {
      this.requirement = requirement;
      this.requirementText = text;
      return this;
    }

    Declaring<T> internal() {
      this.internal = true;
      return this;
    }

    /**
     * Defaults to {@code value}, written as a user would give it (and parsed as given values are).
     */
    ReadOption<T> defaultValue(String value) {
      T parsed = parser.apply(value);
      return new ReadOption<>(this, "`" + value + "`", parsed, null, null);
    }

    /** Defaults to the session's setting {@code conf}. */
    ReadOption<T> sessionDefault(String conf, Function<SQLConf, T> value) {
      return new ReadOption<>(this, "`" + conf + "`", null, conf, value);
    }

    /** Absent (null) unless given; {@code meaning} says what that means, for the docs. */
    ReadOption<T> optional(String meaning) {
      return new ReadOption<>(this, meaning, null, null, null);
    }
  }
}
