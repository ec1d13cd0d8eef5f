package dev.fleetprof.spark;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The read options of the {@code profile} source, resolved once on the driver into the values the
 * read uses: each is the read option when given, else the session's setting ({@code
 * spark.sql.files.*}), else the default. Bad values fail here, naming the option, before any task
 * runs.
 */
public final class ReadOptions implements Serializable {
  private static final long serialVersionUID = 3L;

  /** {@code auto} (default: each file's format from its bytes) or one format's name. */
  public static final String FORMAT = "format";

  /** A glob on file names (not directories), as in Spark's file sources. */
  public static final String PATH_GLOB_FILTER = "pathGlobFilter";

  /**
   * As in Spark's file sources: {@code true} reads every file below the paths and infers no
   * partition columns from {@code key=value} directories (so {@code basePath} has no effect);
   * {@code false} (default) reads every file below the paths too (Spark's file sources also list
   * recursively) and infers them.
   */
  public static final String RECURSIVE_FILE_LOOKUP = "recursiveFileLookup";

  /**
   * Whether symbolic links to directories below the paths are followed (default false: a link such
   * as {@code loop -> ..} would list the tree again and again); when true, a directory already
   * listed, or one containing the link, is not entered again. Links to files are always read.
   */
  public static final String FOLLOW_SYMLINKS = "followSymlinks";

  public static final String MAX_PARTITION_BYTES = "maxPartitionBytes";
  public static final String OPEN_COST_IN_BYTES = "openCostInBytes";

  /** Where partition directories start, as in Spark's file sources. */
  public static final String BASE_PATH = "basePath";

  /** The zone of timestamp partition values; default {@code spark.sql.session.timeZone}. */
  public static final String TIME_ZONE = "timeZone";

  /** What to do with malformed input: PERMISSIVE (default), DROPMALFORMED or FAILFAST. */
  public static final String MODE = "mode";

  public static final String IGNORE_CORRUPT_FILES = "ignoreCorruptFiles";
  public static final String IGNORE_MISSING_FILES = "ignoreMissingFiles";

  /**
   * {@code .gz} files: the most bytes one may decompress to (a size, e.g. {@code 16g}); past it the
   * file is a problem, handled as the mode says. See {@link HadoopByteSource.GzipLimits}.
   */
  public static final String MAX_DECOMPRESSED_BYTES = "maxDecompressedBytes";

  /**
   * {@code .gz} files: the most decompressed bytes per compressed byte, checked once 64 MiB have
   * been decompressed; past it the file is a problem (a gzip bomb), handled as the mode says.
   */
  public static final String MAX_COMPRESSION_RATIO = "maxCompressionRatio";

  /**
   * Whether queries that need no call chains read column batches (default true); false reads rows,
   * as every query with chains does.
   */
  public static final String COLUMNAR = "columnar";

  /**
   * Whether {@code SUM}, {@code COUNT}, {@code MIN} and {@code MAX} of {@code count} grouped by
   * chain or file columns are computed partially by the readers (default true); false leaves every
   * aggregation to Spark, as without pushdown.
   */
  public static final String AGGREGATE_PUSHDOWN = "aggregatePushdown";

  /**
   * What a row is: {@code records} (default), one per profile record; or {@code stacks}, the
   * records merged per file, kind, period and distinct chain (see {@link ProfileSchema#stacks}).
   */
  public static final String ROWS = "rows";

  /**
   * The most heap (a size, default {@value #DEFAULT_AGGREGATE_MAP_BYTES} bytes) a reader's groups
   * may take in a pushed aggregation before it emits them as partial rows and starts again.
   */
  public static final String AGGREGATE_PUSHDOWN_MAX_MAP_BYTES = "aggregatePushdown.maxMapBytes";

  /**
   * 64 MiB: a few hundred thousand distinct chains per task; with a task per core, within the user
   * memory of an executor of 1 GiB per core or more.
   */
  public static final long DEFAULT_AGGREGATE_MAP_BYTES = 64L << 20;

  /**
   * Test-only fault hook: the first attempt of every task fails after this many rows, so that tests
   * can check a retried task gives the same rows. Not for users.
   */
  static final String FAIL_FIRST_ATTEMPT_AFTER_ROWS = "fleetprof.test.failFirstAttemptAfterRows";

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
    List<String> names =
        new ArrayList<>(
            List.of(
                "path",
                "paths",
                FORMAT,
                PATH_GLOB_FILTER,
                RECURSIVE_FILE_LOOKUP,
                FOLLOW_SYMLINKS,
                MAX_PARTITION_BYTES,
                OPEN_COST_IN_BYTES,
                BASE_PATH,
                TIME_ZONE,
                MODE,
                IGNORE_CORRUPT_FILES,
                IGNORE_MISSING_FILES,
                COLUMNAR,
                AGGREGATE_PUSHDOWN,
                AGGREGATE_PUSHDOWN_MAX_MAP_BYTES,
                ROWS,
                MAX_DECOMPRESSED_BYTES,
                MAX_COMPRESSION_RATIO,
                FAIL_FIRST_ATTEMPT_AFTER_ROWS));
    names.addAll(ProfileFormats.optionNames());
    for (String k : names) {
      own.add(k.toLowerCase(Locale.ROOT));
    }
    return Set.copyOf(own);
  }

  private final List<String> paths;
  private final String format;
  private final String pathGlobFilter;
  private final boolean recursiveFileLookup;
  private final boolean followSymlinks;
  private final String timeZone;
  private final String basePath;
  private final long maxPartitionBytes;
  private final long openCostInBytes;
  private final HashMap<String, String> formatOptions = new HashMap<>();
  private final ProblemPolicy problemPolicy;
  private final boolean columnar;
  private final boolean aggregatePushdown;
  private final boolean stackRows;
  private final long aggregateMapBytes;
  private final HadoopByteSource.GzipLimits gzipLimits;

  /** Resolves {@code options} against the active session's configuration. */
  ReadOptions(CaseInsensitiveStringMap options) {
    this(options, SQLConf.get());
  }

  ReadOptions(CaseInsensitiveStringMap options, SQLConf session) {
    this.paths = paths(options);
    this.format = options.getOrDefault(FORMAT, ProfileFormats.AUTO).toLowerCase(Locale.ROOT);
    if (!format.equals(ProfileFormats.AUTO) && ProfileFormats.byName(format) == null) {
      throw new IllegalArgumentException(
          "profile source: option format='"
              + format
              + "' is not one of "
              + ProfileFormats.AUTO
              + ", "
              + String.join(", ", ProfileFormats.names()));
    }
    this.pathGlobFilter = options.get(PATH_GLOB_FILTER);
    this.recursiveFileLookup = bool(options, RECURSIVE_FILE_LOOKUP, false);
    this.followSymlinks = bool(options, FOLLOW_SYMLINKS, false);
    this.timeZone = options.getOrDefault(TIME_ZONE, session.sessionLocalTimeZone());
    this.basePath = options.get(BASE_PATH);
    this.maxPartitionBytes = bytes(options, MAX_PARTITION_BYTES, session.filesMaxPartitionBytes());
    if (maxPartitionBytes <= 0) {
      throw new IllegalArgumentException("profile source: maxPartitionBytes must be positive");
    }
    this.openCostInBytes = bytes(options, OPEN_COST_IN_BYTES, session.filesOpenCostInBytes());
    for (ProfileFormat f : ProfileFormats.ALL) {
      for (String k : f.optionNames()) {
        if (options.containsKey(k)) {
          formatOptions.put(k, options.get(k));
        }
      }
    }
    DecodeOptions decode = new DecodeOptions(formatOptions, true, true, null);
    for (ProfileFormat f : ProfileFormats.ALL) {
      try {
        f.validate(decode);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("profile source: " + e.getMessage(), e);
      }
    }
    String m = options.getOrDefault(MODE, "PERMISSIVE").toUpperCase(Locale.ROOT);
    Mode mode;
    try {
      mode = Mode.valueOf(m);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "profile source: option mode='"
              + options.get(MODE)
              + "' is not one of PERMISSIVE, DROPMALFORMED, FAILFAST",
          e);
    }
    this.problemPolicy =
        new ProblemPolicy(
            mode,
            bool(options, IGNORE_CORRUPT_FILES, session.ignoreCorruptFiles()),
            bool(options, IGNORE_MISSING_FILES, session.ignoreMissingFiles()),
            options.getLong(FAIL_FIRST_ATTEMPT_AFTER_ROWS, -1));
    this.columnar = bool(options, COLUMNAR, true);
    this.aggregatePushdown = bool(options, AGGREGATE_PUSHDOWN, true);
    String rows = options.getOrDefault(ROWS, "records").toLowerCase(Locale.ROOT);
    if (!rows.equals("records") && !rows.equals("stacks")) {
      throw new IllegalArgumentException(
          "profile source: option rows='" + options.get(ROWS) + "' is not one of records, stacks");
    }
    this.stackRows = rows.equals("stacks");
    this.aggregateMapBytes =
        bytes(options, AGGREGATE_PUSHDOWN_MAX_MAP_BYTES, DEFAULT_AGGREGATE_MAP_BYTES);
    if (aggregateMapBytes <= 0) {
      throw new IllegalArgumentException(
          "profile source: option " + AGGREGATE_PUSHDOWN_MAX_MAP_BYTES + " must be positive");
    }
    this.gzipLimits = gzipLimits(options);
  }

  private static HadoopByteSource.GzipLimits gzipLimits(CaseInsensitiveStringMap options) {
    long maxBytes =
        bytes(
            options,
            MAX_DECOMPRESSED_BYTES,
            HadoopByteSource.GzipLimits.DEFAULT_MAX_DECOMPRESSED_BYTES);
    if (maxBytes <= 0) {
      throw new IllegalArgumentException(
          "profile source: option " + MAX_DECOMPRESSED_BYTES + " must be positive");
    }
    double maxRatio = HadoopByteSource.GzipLimits.DEFAULT_MAX_COMPRESSION_RATIO;
    String ratio = options.get(MAX_COMPRESSION_RATIO);
    if (ratio != null) {
      try {
        maxRatio = Double.parseDouble(ratio.trim());
      } catch (NumberFormatException e) {
        maxRatio = Double.NaN;
      }
      if (!(maxRatio >= 1) || Double.isInfinite(maxRatio)) {
        throw new IllegalArgumentException(
            "profile source: option "
                + MAX_COMPRESSION_RATIO
                + "='"
                + ratio
                + "' is not a number of at least 1 (decompressed bytes per compressed byte)");
      }
    }
    return new HadoopByteSource.GzipLimits(maxBytes, maxRatio);
  }

  private static boolean bool(CaseInsensitiveStringMap options, String key, boolean fallback) {
    String v = options.get(key);
    if (v == null) {
      return fallback;
    }
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException(
          "profile source: option " + key + "='" + v + "' is not true or false");
    }
    return Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
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

  private static long bytes(CaseInsensitiveStringMap options, String key, long fallback) {
    String v = options.get(key);
    if (v == null) {
      return fallback;
    }
    try {
      return JavaUtils.byteStringAsBytes(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "profile source: option "
              + key
              + "='"
              + v
              + "' is not a size in bytes (e.g. 134217728, 128m)",
          e);
    }
  }

  /** The paths to read (files, directories, globs), as given. */
  public List<String> paths() {
    return paths;
  }

  /** {@code auto} or the name of one format (lower case). */
  public String format() {
    return format;
  }

  /** The file name glob, or null. */
  public String pathGlobFilter() {
    return pathGlobFilter;
  }

  /** Whether partition directories are ignored (no partition columns). */
  public boolean recursiveFileLookup() {
    return recursiveFileLookup;
  }

  /** Whether symbolic links to directories below the paths are followed. */
  public boolean followSymlinks() {
    return followSymlinks;
  }

  /** The zone of timestamp partition values: the option, else the session's time zone. */
  public String timeZone() {
    return timeZone;
  }

  /** The {@code basePath} option, or null. */
  public String basePath() {
    return basePath;
  }

  /** The option, else {@code spark.sql.files.maxPartitionBytes}. */
  public long maxPartitionBytes() {
    return maxPartitionBytes;
  }

  /** The option, else {@code spark.sql.files.openCostInBytes}. */
  public long openCostInBytes() {
    return openCostInBytes;
  }

  /** The formats' options that were set, under their documented (case-sensitive) names. */
  public Map<String, String> formatOptions() {
    return formatOptions;
  }

  /** The mode and the ignore options (read option, else the session's setting). */
  ProblemPolicy problemPolicy() {
    return problemPolicy;
  }

  /** Whether queries without call chains may read column batches. */
  boolean columnar() {
    return columnar;
  }

  /** Whether aggregations may be pushed to the readers. */
  boolean aggregatePushdown() {
    return aggregatePushdown;
  }

  /** Whether rows are stack rows ({@code rows=stacks}) rather than records. */
  boolean stackRows() {
    return stackRows;
  }

  /** The heap a reader's groups may take in a pushed aggregation before they are emitted. */
  long aggregateMapBytes() {
    return aggregateMapBytes;
  }

  /** How far {@code .gz} files may inflate. */
  HadoopByteSource.GzipLimits gzipLimits() {
    return gzipLimits;
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
        && format.equals(r.format)
        && Objects.equals(pathGlobFilter, r.pathGlobFilter)
        && recursiveFileLookup == r.recursiveFileLookup
        && followSymlinks == r.followSymlinks
        && timeZone.equals(r.timeZone)
        && Objects.equals(basePath, r.basePath)
        && maxPartitionBytes == r.maxPartitionBytes
        && openCostInBytes == r.openCostInBytes
        && formatOptions.equals(r.formatOptions)
        && problemPolicy.equals(r.problemPolicy)
        && columnar == r.columnar
        && aggregatePushdown == r.aggregatePushdown
        && stackRows == r.stackRows
        && aggregateMapBytes == r.aggregateMapBytes
        && gzipLimits.equals(r.gzipLimits);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        paths,
        format,
        pathGlobFilter,
        recursiveFileLookup,
        followSymlinks,
        timeZone,
        basePath,
        maxPartitionBytes,
        openCostInBytes,
        formatOptions,
        problemPolicy,
        columnar,
        aggregatePushdown,
        stackRows,
        aggregateMapBytes,
        gzipLimits);
  }
}
