package dev.fleetprof.spark;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The read options of the {@code profile} source, parsed and checked once on the driver. */
public final class ReadOptions implements Serializable {
  public static final String FORMAT = "format";
  public static final String PATH_GLOB_FILTER = "pathGlobFilter";
  public static final String RECURSIVE_FILE_LOOKUP = "recursiveFileLookup";
  public static final String MAX_PARTITION_BYTES = "maxPartitionBytes";
  public static final String OPEN_COST_IN_BYTES = "openCostInBytes";
  /** Where partition directories start, as in Spark's file sources. */
  public static final String BASE_PATH = "basePath";
  /** What to do with malformed input: PERMISSIVE (default), DROPMALFORMED or FAILFAST. */
  public static final String MODE = "mode";
  public static final String IGNORE_CORRUPT_FILES = "ignoreCorruptFiles";
  public static final String IGNORE_MISSING_FILES = "ignoreMissingFiles";
  /**
   * Whether queries that need no call chains read column batches (default true); false reads rows,
   * as every query with chains does.
   */
  public static final String COLUMNAR = "columnar";
  /**
   * Test-only fault hook: the first attempt of every task fails after this many rows, so that tests
   * can check a retried task gives the same rows. Not for users.
   */
  static final String FAIL_FIRST_ATTEMPT_AFTER_ROWS = "fleetprof.test.failFirstAttemptAfterRows";

  /** Spark's parse modes for malformed input. */
  public enum Mode { PERMISSIVE, DROPMALFORMED, FAILFAST }

  /** How DCPI chunk offsets count: {@code bytes} (default) or {@code instructions}. */
  public static final String DCPI_OFFSET_UNIT = "dcpi.offsetUnit";

  /** Options the decoders read (gprof's pointer size and byte order, DCPI's offset unit). */
  static final List<String> DECODER_OPTIONS = List.of(
      dev.fleetprof.format.gprof.GmonOptions.POINTER_SIZE,
      dev.fleetprof.format.gprof.GmonOptions.BYTE_ORDER,
      dev.fleetprof.format.gprof.GmonOptions.OLD_BSD_PROF_RATE,
      ReadOptions.DCPI_OFFSET_UNIT);

  /** Options that are the source's own; every other option is passed to Hadoop's Configuration. */
  static final Set<String> OWN = ownOptions();


  private static Set<String> ownOptions() {
    Set<String> own = new java.util.HashSet<>();
    for (String k : List.of("path", "paths", FORMAT, PATH_GLOB_FILTER, RECURSIVE_FILE_LOOKUP,
        MAX_PARTITION_BYTES, OPEN_COST_IN_BYTES, BASE_PATH, MODE, IGNORE_CORRUPT_FILES,
        IGNORE_MISSING_FILES, COLUMNAR, FAIL_FIRST_ATTEMPT_AFTER_ROWS)) {
      own.add(k.toLowerCase(Locale.ROOT));
    }
    for (String k : DECODER_OPTIONS) {
      own.add(k.toLowerCase(Locale.ROOT));
    }
    return Set.copyOf(own);
  }

  static final Set<String> FORMATS = Set.of("auto", "gperftools", "gprof", "dcpi");

  private final List<String> paths;
  private final String format;
  private final String pathGlobFilter;
  private final Long maxPartitionBytes;
  private final Long openCostInBytes;
  private final Map<String, String> decoderOptions = new java.util.HashMap<>();
  private final String basePath;
  private final Mode mode;
  private final Boolean ignoreCorruptFiles;
  private final Boolean ignoreMissingFiles;
  private final long failFirstAttemptAfterRows;
  private final boolean columnar;

  ReadOptions(CaseInsensitiveStringMap options) {
    for (String k : DECODER_OPTIONS) {
      if (options.containsKey(k)) {
        decoderOptions.put(k, options.get(k));
      }
    }
    this.paths = paths(options);
    this.format = options.getOrDefault(FORMAT, "auto").toLowerCase(Locale.ROOT);
    if (!FORMATS.contains(format)) {
      throw new IllegalArgumentException("profile source: option format='" + format
          + "' is not one of auto, gperftools, gprof, dcpi");
    }
    this.pathGlobFilter = options.get(PATH_GLOB_FILTER);
    this.maxPartitionBytes = bytes(options, MAX_PARTITION_BYTES);
    this.openCostInBytes = bytes(options, OPEN_COST_IN_BYTES);
    if (maxPartitionBytes != null && maxPartitionBytes <= 0) {
      throw new IllegalArgumentException("profile source: maxPartitionBytes must be positive");
    }
    this.basePath = options.get(BASE_PATH);
    String m = options.getOrDefault(MODE, "PERMISSIVE").toUpperCase(Locale.ROOT);
    try {
      this.mode = Mode.valueOf(m);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("profile source: option mode='" + options.get(MODE)
          + "' is not one of PERMISSIVE, DROPMALFORMED, FAILFAST", e);
    }
    this.ignoreCorruptFiles = bool(options, IGNORE_CORRUPT_FILES);
    this.ignoreMissingFiles = bool(options, IGNORE_MISSING_FILES);
    this.failFirstAttemptAfterRows = options.getLong(FAIL_FIRST_ATTEMPT_AFTER_ROWS, -1);
    Boolean col = bool(options, COLUMNAR);
    this.columnar = col == null || col;
  }

  private static Boolean bool(CaseInsensitiveStringMap options, String key) {
    String v = options.get(key);
    if (v == null) {
      return null;
    }
    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException("profile source: option " + key + "='" + v
          + "' is not true or false");
    }
    return Boolean.parseBoolean(v.toLowerCase(Locale.ROOT));
  }

  /** The {@code basePath} option, or null. */
  public String basePath() {
    return basePath;
  }

  public Mode mode() {
    return mode;
  }

  /** The read option, or null to use {@code spark.sql.files.ignoreCorruptFiles}. */
  public Boolean ignoreCorruptFiles() {
    return ignoreCorruptFiles;
  }

  /** The read option, or null to use {@code spark.sql.files.ignoreMissingFiles}. */
  public Boolean ignoreMissingFiles() {
    return ignoreMissingFiles;
  }

  /** The test-only fault hook's row count, or -1. */
  boolean columnar() {
    return columnar;
  }

  long failFirstAttemptAfterRows() {
    return failFirstAttemptAfterRows;
  }

  private static List<String> paths(CaseInsensitiveStringMap options) {
    List<String> out = new ArrayList<>();
    if (options.containsKey("paths")) {
      try {
        out.addAll(new ObjectMapper().readValue(options.get("paths"),
            new TypeReference<List<String>>() {}));
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("profile source: option paths is not a JSON array", e);
      }
    }
    if (options.containsKey("path")) {
      out.add(options.get("path"));
    }
    return out;
  }

  private static Long bytes(CaseInsensitiveStringMap options, String key) {
    String v = options.get(key);
    if (v == null) {
      return null;
    }
    try {
      return org.apache.spark.network.util.JavaUtils.byteStringAsBytes(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("profile source: option " + key + "='" + v
          + "' is not a size in bytes (e.g. 134217728, 128m)", e);
    }
  }

  /** The decoders' options, under their documented (case-sensitive) names. */
  public Map<String, String> decoderOptions() {
    return decoderOptions;
  }

  /** The paths to read (files, directories, globs), as given. */
  public List<String> paths() {
    return paths;
  }

  /** {@code auto}, {@code gperftools}, {@code gprof} or {@code dcpi}. */
  public String format() {
    return format;
  }

  public String pathGlobFilter() {
    return pathGlobFilter;
  }

  /** The read option, or null to use {@code spark.sql.files.maxPartitionBytes}. */
  public Long maxPartitionBytes() {
    return maxPartitionBytes;
  }

  /** The read option, or null to use {@code spark.sql.files.openCostInBytes}. */
  public Long openCostInBytes() {
    return openCostInBytes;
  }

  /** Options to pass on to Hadoop's Configuration (credentials, fs.* settings, ...). */
  static Map<String, String> hadoopOptions(CaseInsensitiveStringMap options) {
    Map<String, String> out = new java.util.HashMap<>();
    for (Map.Entry<String, String> e : options.asCaseSensitiveMap().entrySet()) {
      if (!OWN.contains(e.getKey().toLowerCase(Locale.ROOT))) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }
}
