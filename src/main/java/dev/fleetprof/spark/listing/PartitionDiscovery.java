package dev.fleetprof.spark.listing;

import dev.fleetprof.spark.ReadOptions;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's partition discovery for profile directories, rule for rule, checked against Spark's own
 * file index in {@code PartitionDiscoverySparkTest}: {@code date=2026-11-20/host=web042/cpu.prof}
 * below an input directory gives the columns {@code date} (a DATE) and {@code host} (a STRING).
 *
 * <ul>
 *   <li>Each file's directory is read upwards until an input directory (or {@code basePath}), or
 *       until a plain directory above {@code key=value} ones; plain directories below them are
 *       passed over. Where that walk stops must be the same directory for every partitioned file
 *       (else CONFLICTING_DIRECTORY_STRUCTURES), and every file must have the same keys (else
 *       CONFLICTING_PARTITION_COLUMN_NAMES; keys compare case-insensitively unless {@code
 *       spark.sql.caseSensitive}).
 *   <li>Once a tree is partitioned, files outside any {@code key=value} directory (a stray file at
 *       the top) are not read at all, as Spark reads only the partition directories' files.
 *   <li>Keys and string values are unescaped {@code %XX} by {@code %XX}, each giving one char (so
 *       {@code %C3%A9} is the two chars "Ã©", not "é": Spark writes non-ASCII unescaped and reads
 *       escapes so); {@code __HIVE_DEFAULT_PARTITION__} (as written, not escaped) is null.
 *   <li>Types are inferred from the written value, in Spark's order: INT, BIGINT, DECIMAL(p,0),
 *       DOUBLE, TIMESTAMP ({@code yyyy-MM-dd HH:mm:ss[.S]}, unescaped, in the session time zone or
 *       the {@code timeZone} option; TIMESTAMP_NTZ when {@code spark.sql.timestampType} says so),
 *       DATE, else STRING; a column of nulls only is VOID. Files' types widen as Spark widens them
 *       (INT and DOUBLE give DOUBLE, BIGINT and DOUBLE give STRING, ...). Off with {@code
 *       spark.sql.sources.partitionColumnTypeInference.enabled=false}.
 *   <li>A value that cannot be cast to its widened type fails the read (INVALID_PARTITION_VALUE),
 *       or is null with {@code spark.sql.sources.validatePartitionColumns=false}.
 * </ul>
 *
 * <p>Deliberate differences: a key that is also a column of the source is refused, where Spark
 * would let the directory's value replace the column's (a {@code count=3} directory replacing every
 * record's count would be silently wrong). And a tree without partition directories is read whole,
 * nested directories too ({@code sample-data/} with {@code gperftools/}, {@code gprof/} and {@code
 * dcpi/} below it is one read), where Spark reads only the loaded directories' own files unless
 * {@code recursiveFileLookup} is set.
 */
public final class PartitionDiscovery {
  static final String DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__";

  /** The pattern Spark infers timestamps with: seconds, then at most one digit of fraction. */
  private static final Pattern TIMESTAMP =
      Pattern.compile(
          "([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.([0-9]))?");

  private static final Pattern DATE = Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})");

  /** Spark's decimals hold at most 38 digits. */
  private static final int MAX_DECIMAL_PRECISION = 38;

  /** The partition columns and each file's values in Spark's internal representation. */
  public record Partitions(StructType schema, Map<String, Object[]> valuesByFile) {
    static final Partitions NONE = new Partitions(new StructType(), Map.of());

    public Object[] values(String file) {
      Object[] v = valuesByFile.get(file);
      return v != null ? v : new Object[schema.size()];
    }

    /**
     * Whether the file is read: every file of an unpartitioned tree, only the files in partition
     * directories of a partitioned one (as Spark's file index lists a partitioned table).
     */
    public boolean reads(String file) {
      return schema.isEmpty() || valuesByFile.containsKey(file);
    }
  }

  /** What discovery depends on besides the files: the session's settings and read options. */
  record Settings(
      boolean inferTypes,
      boolean caseSensitive,
      boolean validateValues,
      ZoneId zone,
      boolean timestampWithoutZone,
      boolean recursiveFileLookup) {

    /** As Spark's file index reads them, the {@code timeZone} option before the session's. */
    static Settings of(SQLConf conf, ReadOptions read) {
      return new Settings(
          conf.partitionColumnTypeInferenceEnabled(),
          conf.caseSensitiveAnalysis(),
          conf.validatePartitionColumns(),
          zoneId(read.timeZone()),
          DataTypes.TimestampNTZType.equals(conf.timestampType()),
          read.recursiveFileLookup());
    }
  }

  /**
   * A refusal Spark gives the same tree, with Spark's condition and SQL state, so that callers can
   * tell them apart as they tell Spark's own apart. An IllegalArgumentException, as before.
   */
  static final class PartitionDiscoveryException extends IllegalArgumentException
      implements SparkThrowable {
    private final String condition;
    private final String sqlState;

    PartitionDiscoveryException(String condition, String sqlState, String message) {
      super("[" + condition + "] " + message + " SQLSTATE: " + sqlState);
      this.condition = condition;
      this.sqlState = sqlState;
    }

    // No @Override on the next two: Spark 4 declares getCondition (and keeps getErrorClass as a
    // deprecated default), Spark 3.5 only getErrorClass; the jar is built for both.

    /** The condition, Spark 4's name for it. */
    public String getCondition() {
      return condition;
    }

    /** The condition, Spark 3.5's name for it. */
    @SuppressWarnings("deprecation")
    public String getErrorClass() {
      return condition;
    }

    @Override
    public String getSqlState() {
      return sqlState;
    }
  }

  /** One {@code key=value} directory: the unescaped key and the value as written. */
  private record Column(String name, String raw) {}

  /**
   * A leaf directory's columns (outermost first; empty: none), and where the walk up from it
   * stopped (null: never, for a directory below {@code _temporary}).
   */
  private record Parsed(List<Column> columns, String stop) {}

  private PartitionDiscovery() {}

  static Partitions discover(
      List<FileLister.ListedFile> files, Settings settings, StructType dataSchema) {
    if (settings.recursiveFileLookup() || files.isEmpty()) {
      return Partitions.NONE; // Spark reads every file of a recursive lookup, with no columns
    }
    Set<String> roots = new LinkedHashSet<>();
    for (FileLister.ListedFile f : files) {
      roots.add(stripSlash(f.root()));
    }
    checkRoots(files, roots);
    // As Spark, parse each directory holding files once; the files share its values.
    Map<String, Parsed> byDir = new LinkedHashMap<>();
    Map<String, String> dirOf = new LinkedHashMap<>();
    for (FileLister.ListedFile f : files) {
      String dir = parent(f.path());
      dirOf.put(f.path(), dir);
      if (dir != null && !byDir.containsKey(dir)) {
        byDir.put(dir, parse(dir, roots));
      }
    }
    Map<String, Parsed> partitioned = new LinkedHashMap<>();
    Set<String> stops = new LinkedHashSet<>();
    for (Map.Entry<String, Parsed> e : byDir.entrySet()) {
      if (e.getValue().stop() != null) {
        stops.add(e.getValue().stop().toLowerCase(Locale.ROOT));
      }
      if (!e.getValue().columns().isEmpty()) {
        partitioned.put(e.getKey(), e.getValue());
      }
    }
    if (partitioned.isEmpty()) {
      return Partitions.NONE;
    }
    if (stops.size() > 1) {
      throw new PartitionDiscoveryException(
          "CONFLICTING_DIRECTORY_STRUCTURES",
          "KD009",
          "Conflicting directory structures detected.\nSuspicious paths:\n"
              + list(stops)
              + "If provided paths are partition directories, please set \"basePath\""
              + " in the options of the data source to specify the root directory of the table.\n"
              + "If there are multiple root directories, please load them separately and then union"
              + " them.");
    }
    List<Column> first = partitioned.values().iterator().next().columns();
    checkNames(partitioned, settings.caseSensitive());
    checkNotSourceColumns(first, dataSchema, settings.caseSensitive());

    DataType[] types = new DataType[first.size()];
    for (Parsed p : partitioned.values()) {
      for (int i = 0; i < types.length; i++) {
        types[i] = wider(types[i], infer(p.columns().get(i).raw(), settings));
      }
    }
    StructType schema = new StructType();
    for (int i = 0; i < types.length; i++) {
      schema = schema.add(new StructField(first.get(i).name(), types[i], true, Metadata.empty()));
    }
    Map<String, Object[]> valuesByDir = new HashMap<>();
    for (Map.Entry<String, Parsed> e : partitioned.entrySet()) {
      Object[] row = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        row[i] = value(types[i], e.getValue().columns().get(i), settings);
      }
      valuesByDir.put(e.getKey(), row);
    }
    Map<String, Object[]> values = new HashMap<>();
    for (Map.Entry<String, String> e : dirOf.entrySet()) {
      Object[] row = valuesByDir.get(e.getValue());
      if (row != null) {
        values.put(e.getKey(), row);
      }
    }
    return new Partitions(schema, values);
  }

  /**
   * Refuses a {@code basePath} that is not a directory above every file, as Spark does (Spark
   * checks the loaded paths; a loaded path without files is not seen here).
   */
  private static void checkRoots(List<FileLister.ListedFile> files, Set<String> roots) {
    for (FileLister.ListedFile f : files) {
      String root = stripSlash(f.root());
      if (roots.size() == 1 && root.equals(f.path())) {
        throw new IllegalArgumentException("Option 'basePath' must be a directory");
      }
      if (!f.path().startsWith(root.endsWith("/") ? root : root + "/")) {
        throw new IllegalArgumentException(
            "Wrong basePath " + root + " for the root path: " + f.path());
      }
    }
  }

  private static void checkNames(Map<String, Parsed> partitioned, boolean caseSensitive) {
    Map<List<String>, List<String>> dirsByNames = new LinkedHashMap<>();
    Map<List<String>, List<String>> asWritten = new LinkedHashMap<>();
    for (Map.Entry<String, Parsed> e : partitioned.entrySet()) {
      List<String> names = new ArrayList<>();
      for (Column c : e.getValue().columns()) {
        names.add(caseSensitive ? c.name() : c.name().toLowerCase(Locale.ROOT));
      }
      dirsByNames.computeIfAbsent(names, k -> new ArrayList<>()).add(e.getKey());
      asWritten.putIfAbsent(names, e.getValue().columns().stream().map(Column::name).toList());
    }
    if (dirsByNames.size() > 1) {
      StringBuilder lists = new StringBuilder();
      StringBuilder dirs = new StringBuilder();
      int i = 0;
      for (Map.Entry<List<String>, List<String>> e : dirsByNames.entrySet()) {
        lists
            .append("\n\tPartition column name list #")
            .append(i++)
            .append(": ")
            .append(String.join(", ", asWritten.get(e.getKey())));
        for (String d : e.getValue().subList(0, Math.min(3, e.getValue().size()))) {
          dirs.append("\n\t").append(d);
        }
      }
      throw new PartitionDiscoveryException(
          "CONFLICTING_PARTITION_COLUMN_NAMES",
          "KD009",
          "Conflicting partition column names detected:\n"
              + lists
              + "\n\n"
              + "For partitioned table directories, data files should only live in leaf directories.\n"
              + "And directories at the same level should have the same partition column name.\n"
              + "Please check the following directories for unexpected files or inconsistent"
              + " partition column names:\n"
              + dirs);
    }
    List<String> names = dirsByNames.keySet().iterator().next();
    Set<String> seen = new LinkedHashSet<>();
    for (String n : names) {
      if (!seen.add(n)) {
        throw new PartitionDiscoveryException(
            "COLUMN_ALREADY_EXISTS",
            "42711",
            "The column `"
                + n
                + "` already exists. Choose another name or rename the existing"
                + " column. (profile source: directories "
                + dirsByNames.get(names).get(0)
                + ")");
      }
    }
  }

  /** The deliberate difference from Spark: see the class comment. */
  private static void checkNotSourceColumns(
      List<Column> columns, StructType dataSchema, boolean caseSensitive) {
    for (Column c : columns) {
      for (String name : dataSchema.fieldNames()) {
        if (caseSensitive ? name.equals(c.name()) : name.equalsIgnoreCase(c.name())) {
          throw new IllegalArgumentException(
              "profile source: the partition directory key '"
                  + c.name()
                  + "' is also a column of the source; rename the directories or read"
                  + " below them (basePath)");
        }
      }
    }
  }

  private static String list(Collection<String> paths) {
    StringBuilder s = new StringBuilder();
    for (String p : paths) {
      s.append("\n\t").append(p);
    }
    return s.append("\n\n").toString();
  }

  /**
   * Reads a directory upwards as Spark does: {@code key=value} names are columns; it stops at an
   * input directory (or basePath), or at the first plain directory above a column, or at the top.
   */
  private static Parsed parse(String dir, Set<String> roots) {
    List<Column> columns = new ArrayList<>();
    String current = dir;
    while (true) {
      String name = name(current);
      if (name.toLowerCase(Locale.ROOT).equals("_temporary")) {
        return new Parsed(List.of(), null); // a leftover of an unfinished write: ignored
      }
      if (roots.contains(current)) {
        break;
      }
      Column column = column(name, current);
      if (column != null) {
        columns.add(0, column);
      }
      String up = parent(current);
      if ((column == null && !columns.isEmpty()) || up == null) {
        break;
      }
      current = up;
    }
    return columns.isEmpty() ? new Parsed(List.of(), dir) : new Parsed(columns, current);
  }

  /** The key=value directories between root and the file, outermost first; values unescaped. */
  static List<String[]> parse(String file, String root) {
    List<String[]> pairs = new ArrayList<>();
    String dir = parent(file);
    if (dir != null) {
      for (Column c : parse(dir, Set.of(stripSlash(root))).columns()) {
        pairs.add(
            new String[] {
              c.name(), DEFAULT_PARTITION_NAME.equals(c.raw()) ? null : unescape(c.raw())
            });
      }
    }
    return pairs;
  }

  private static Column column(String name, String dir) {
    int eq = name.indexOf('=');
    if (eq < 0) {
      return null;
    }
    String key = unescape(name.substring(0, eq));
    String raw = name.substring(eq + 1);
    if (key.isEmpty()) {
      throw new IllegalArgumentException(
          "profile source: Empty partition column name in '" + name + "' (" + dir + ")");
    }
    if (raw.isEmpty()) {
      throw new IllegalArgumentException(
          "profile source: Empty partition column value in '" + name + "' (" + dir + ")");
    }
    return new Column(key, raw);
  }

  /** The last name of a path ("" for a file system's root). */
  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** The directory above (keeping a root's slash: file:/a → file:/), or null above the root. */
  private static String parent(String path) {
    String p = stripSlash(path);
    int slash = p.lastIndexOf('/');
    if (slash < 0 || slash == p.length() - 1) {
      return null;
    }
    int pathStart = p.indexOf("://") >= 0 ? p.indexOf('/', p.indexOf("://") + 3) : p.indexOf('/');
    if (pathStart < 0) {
      return null;
    }
    return slash <= pathStart ? p.substring(0, pathStart + 1) : p.substring(0, slash);
  }

  private static String stripSlash(String p) {
    return p.endsWith("/") && p.length() > 1 && !p.endsWith(":/") && !p.endsWith("//")
        ? p.substring(0, p.length() - 1)
        : p;
  }

  /**
   * Hive's unescaping, as Spark reads directory names: each {@code %} and two ASCII hex digits is
   * the one char of that code; anything else stays as it is.
   */
  static String unescape(String s) {
    int i = s.indexOf('%');
    if (i < 0) {
      return s;
    }
    StringBuilder out = new StringBuilder(s.length()).append(s, 0, i);
    while (i < s.length()) {
      char c = s.charAt(i);
      int high = i + 2 < s.length() ? hex(s.charAt(i + 1)) : -1;
      int low = high >= 0 ? hex(s.charAt(i + 2)) : -1;
      if (c == '%' && low >= 0) {
        out.append((char) (high << 4 | low));
        i += 3;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static int hex(char c) {
    return c >= '0' && c <= '9'
        ? c - '0'
        : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  /**
   * A value's type, by Spark's rules and with the same JDK parsers, so that their quirks agree
   * ({@code 1.5f} and {@code NaN} are DOUBLE; Arabic-Indic digits are INT; {@code %31} is STRING,
   * as numbers, decimals and dates are read from the value as written).
   */
  private static DataType infer(String raw, Settings settings) {
    if (!settings.inferTypes()) {
      return DEFAULT_PARTITION_NAME.equals(raw) ? DataTypes.NullType : DataTypes.StringType;
    }
    try {
      Integer.parseInt(raw);
      return DataTypes.IntegerType;
    } catch (NumberFormatException e) {
      // not an INT
    }
    try {
      Long.parseLong(raw);
      return DataTypes.LongType;
    } catch (NumberFormatException e) {
      // not a BIGINT
    }
    Integer precision = integralPrecision(raw);
    if (precision != null) {
      return DataTypes.createDecimalType(precision, 0);
    }
    try {
      Double.parseDouble(raw);
      return DataTypes.DoubleType;
    } catch (NumberFormatException e) {
      // not a DOUBLE
    }
    if (timestamp(unescape(raw)) != null) {
      return settings.timestampWithoutZone() ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
    }
    if (date(raw) != null) {
      return DataTypes.DateType;
    }
    return DEFAULT_PARTITION_NAME.equals(raw) ? DataTypes.NullType : DataTypes.StringType;
  }

  /** The digits of a whole number too long for a BIGINT, if it fits a DECIMAL; else null. */
  private static Integer integralPrecision(String raw) {
    try {
      BigDecimal d = new BigDecimal(raw);
      if (d.scale() > 0) {
        return null; // Spark infers decimals for whole numbers only (1.1 is a DOUBLE)
      }
      int precision = d.setScale(0).precision();
      return precision <= MAX_DECIMAL_PRECISION ? precision : null;
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /** {@code yyyy-MM-dd HH:mm:ss[.S]}, a real date and time; else null. */
  private static LocalDateTime timestamp(String s) {
    Matcher m = TIMESTAMP.matcher(s);
    if (!m.matches()) {
      return null;
    }
    try {
      int tenths = m.group(7) == null ? 0 : Integer.parseInt(m.group(7));
      return LocalDateTime.of(
          Integer.parseInt(m.group(1)),
          Integer.parseInt(m.group(2)),
          Integer.parseInt(m.group(3)),
          Integer.parseInt(m.group(4)),
          Integer.parseInt(m.group(5)),
          Integer.parseInt(m.group(6)),
          tenths * 100_000_000);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** {@code yyyy-MM-dd}, a real date; else null. */
  private static LocalDate date(String s) {
    Matcher m = DATE.matcher(s);
    if (!m.matches()) {
      return null;
    }
    try {
      return LocalDate.of(
          Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** Spark's widening of two files' types for one partition column (null: none yet). */
  private static DataType wider(DataType a, DataType b) {
    if (a == null || a.equals(b) || a.equals(DataTypes.NullType)) {
      return b;
    }
    if (b.equals(DataTypes.NullType)) {
      return a;
    }
    if (integralOrDecimal(a) && integralOrDecimal(b)) {
      if (!(a instanceof DecimalType) && !(b instanceof DecimalType)) {
        return DataTypes.LongType; // INT and BIGINT
      }
      return DataTypes.createDecimalType(
          Math.min(MAX_DECIMAL_PRECISION, Math.max(digits(a), digits(b))), 0);
    }
    if (a.equals(DataTypes.DoubleType) && b.equals(DataTypes.IntegerType)
        || b.equals(DataTypes.DoubleType) && a.equals(DataTypes.IntegerType)) {
      return DataTypes.DoubleType; // but BIGINT or DECIMAL with DOUBLE would lose digits: STRING
    }
    if (a.equals(DataTypes.DateType) && isTimestamp(b)) {
      return b;
    }
    if (b.equals(DataTypes.DateType) && isTimestamp(a)) {
      return a;
    }
    return DataTypes.StringType;
  }

  private static boolean integralOrDecimal(DataType t) {
    return t.equals(DataTypes.IntegerType)
        || t.equals(DataTypes.LongType)
        || t instanceof DecimalType;
  }

  /** The digits a whole-number type holds, as Spark counts them when widening to a decimal. */
  private static int digits(DataType t) {
    if (t instanceof DecimalType d) {
      return d.precision();
    }
    return t.equals(DataTypes.IntegerType) ? 10 : 20;
  }

  private static boolean isTimestamp(DataType t) {
    return t.equals(DataTypes.TimestampType) || t.equals(DataTypes.TimestampNTZType);
  }

  /** A directory's value as its column's type holds it, or Spark's refusal of it. */
  private static Object value(DataType type, Column column, Settings settings) {
    String raw = column.raw();
    if (DEFAULT_PARTITION_NAME.equals(raw) || type.equals(DataTypes.NullType)) {
      return null;
    }
    if (type.equals(DataTypes.StringType)) {
      return UTF8String.fromString(unescape(raw));
    }
    Object v;
    try {
      v = typed(type, raw, settings);
    } catch (RuntimeException e) {
      v = null;
    }
    if (v == null && settings.validateValues()) {
      throw new PartitionDiscoveryException(
          "INVALID_PARTITION_VALUE",
          "42846",
          "Failed to cast value '"
              + raw
              + "' to data type \""
              + type.sql()
              + "\" for partition column `"
              + column.name()
              + "`. Ensure the value"
              + " matches the expected data type for this partition column.");
    }
    return v;
  }

  private static Object typed(DataType type, String raw, Settings settings) {
    if (type.equals(DataTypes.IntegerType)) {
      return Integer.parseInt(raw);
    }
    if (type.equals(DataTypes.LongType)) {
      return Long.parseLong(raw);
    }
    if (type.equals(DataTypes.DoubleType)) {
      return Double.parseDouble(raw);
    }
    if (type instanceof DecimalType d) {
      Decimal decimal = Decimal.apply(new BigDecimal(raw).setScale(0));
      return decimal.changePrecision(d.precision(), d.scale()) ? decimal : null;
    }
    if (type.equals(DataTypes.DateType)) {
      LocalDate date = date(raw);
      return date == null ? null : (int) date.toEpochDay();
    }
    // A timestamp column holds timestamps and dates (at midnight).
    LocalDateTime local = timestamp(unescape(raw));
    if (local == null) {
      LocalDate date = date(raw);
      local = date == null ? null : LocalDateTime.of(date, LocalTime.MIDNIGHT);
    }
    if (local == null) {
      return null;
    }
    if (type.equals(DataTypes.TimestampNTZType)) {
      return ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), local);
    }
    // A time in a daylight-saving gap moves forward by the gap, as Spark's cast moves it.
    ZonedDateTime zoned = ZonedDateTime.of(local, settings.zone());
    return ChronoUnit.MICROS.between(java.time.Instant.EPOCH, zoned.toInstant());
  }

  /** A zone as Spark names them (region ids, offsets, and the short ids such as PST). */
  private static ZoneId zoneId(String id) {
    String withTwoDigitHour = id.replaceFirst("([+-])(\\d):", "$10$2:");
    if ("Z".equals(withTwoDigitHour)) {
      return ZoneOffset.UTC;
    }
    return ZoneId.of(withTwoDigitHour, ZoneId.SHORT_IDS);
  }
}
