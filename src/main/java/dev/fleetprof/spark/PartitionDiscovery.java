package dev.fleetprof.spark;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's partition discovery for profile directories: {@code .../date=2026-11-20/host=web042/cpu.prof}
 * below an input directory gives the columns {@code date} (a DATE) and {@code host} (a STRING). As in
 * Spark's file sources, directories are read upwards from the file until the input directory (or
 * {@code basePath}), plain directories between them are allowed, values are unescaped ({@code %XX}),
 * {@code __HIVE_DEFAULT_PARTITION__} is null, and types are inferred (INT, BIGINT, DATE, else STRING;
 * off with {@code spark.sql.sources.partitionColumnTypeInference.enabled=false}). Files must agree on
 * the keys and their order, except that files with no partition directories at all (a stray file at
 * the top) get nulls rather than failing the whole read.
 */
final class PartitionDiscovery {
  static final String DEFAULT_PARTITION_NAME = "__HIVE_DEFAULT_PARTITION__";

  /** The partition columns and each file's values in Spark's internal representation. */
  record Partitions(StructType schema, Map<String, Object[]> valuesByFile) {
    static final Partitions NONE = new Partitions(new StructType(), Map.of());

    Object[] values(String file) {
      Object[] v = valuesByFile.get(file);
      return v != null ? v : new Object[schema.size()];
    }
  }

  private enum Kind { INT, LONG, DATE, STRING }

  private PartitionDiscovery() {}

  static Partitions discover(List<FileLister.ListedFile> files, boolean inferTypes,
      StructType dataSchema) {
    List<String> keys = null;
    String keysExample = null;
    Map<String, List<String[]>> raw = new LinkedHashMap<>();
    for (FileLister.ListedFile f : files) {
      List<String[]> pairs = parse(f.path(), f.root());
      if (pairs.isEmpty()) {
        continue;
      }
      List<String> fileKeys = new ArrayList<>();
      for (String[] kv : pairs) {
        fileKeys.add(kv[0]);
      }
      if (keys == null) {
        keys = fileKeys;
        keysExample = f.path();
      } else if (!keys.equals(fileKeys)) {
        throw new IllegalArgumentException("profile source: conflicting partition directories:"
            + " " + keysExample + " has " + keys + " but " + f.path() + " has " + fileKeys
            + "; every file must sit below the same key=value directories (use basePath or"
            + " pathGlobFilter to choose)");
      }
      raw.put(f.path(), pairs);
    }
    if (keys == null) {
      return Partitions.NONE;
    }
    for (String k : keys) {
      for (String name : dataSchema.fieldNames()) {
        if (name.equalsIgnoreCase(k)) {
          throw new IllegalArgumentException("profile source: the partition directory key '" + k
              + "' (in " + keysExample + ") is also a column of the source; rename the"
              + " directories or read below them (basePath)");
        }
      }
    }
    Kind[] kinds = new Kind[keys.size()];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = inferTypes ? null : Kind.STRING;
    }
    for (List<String[]> pairs : raw.values()) {
      for (int i = 0; i < kinds.length; i++) {
        String v = pairs.get(i)[1];
        if (v != null) {
          kinds[i] = widen(kinds[i], kindOf(v));
        }
      }
    }
    StructType schema = new StructType();
    for (int i = 0; i < kinds.length; i++) {
      Kind k = kinds[i] == null ? Kind.STRING : kinds[i];
      kinds[i] = k;
      schema = schema.add(new StructField(keys.get(i), type(k), true,
          org.apache.spark.sql.types.Metadata.empty()));
    }
    Map<String, Object[]> values = new HashMap<>();
    for (Map.Entry<String, List<String[]>> e : raw.entrySet()) {
      Object[] row = new Object[kinds.length];
      for (int i = 0; i < kinds.length; i++) {
        row[i] = internal(kinds[i], e.getValue().get(i)[1]);
      }
      values.put(e.getKey(), row);
    }
    return new Partitions(schema, values);
  }

  /** The key=value directories between root and the file, outermost first; values unescaped. */
  static List<String[]> parse(String file, String root) {
    String dir = parent(file);
    String stop = stripSlash(root);
    List<String[]> pairs = new ArrayList<>();
    while (dir != null && !stripSlash(dir).equals(stop) && stripSlash(dir).length() > stop.length()) {
      String name = dir.substring(dir.lastIndexOf('/') + 1);
      int eq = name.indexOf('=');
      if (eq > 0) {
        String value = unescape(name.substring(eq + 1));
        pairs.add(0, new String[] {unescape(name.substring(0, eq)),
            DEFAULT_PARTITION_NAME.equals(value) ? null : value});
      } else if (!pairs.isEmpty()) {
        break; // as Spark: a plain directory above partition directories ends them
      }
      dir = parent(dir);
    }
    return pairs;
  }

  private static String parent(String path) {
    int slash = stripSlash(path).lastIndexOf('/');
    return slash <= 0 ? null : path.substring(0, slash);
  }

  private static String stripSlash(String p) {
    return p.endsWith("/") && p.length() > 1 ? p.substring(0, p.length() - 1) : p;
  }

  private static String unescape(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s; // not an escape after all
    }
  }

  private static Kind kindOf(String v) {
    if (v.matches("-?[0-9]{1,18}")) {
      long l = Long.parseLong(v);
      return l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? Kind.INT : Kind.LONG;
    }
    if (v.matches("[0-9]{4}-[0-9]{2}-[0-9]{2}")) {
      try {
        LocalDate.parse(v);
        return Kind.DATE;
      } catch (DateTimeParseException e) {
        return Kind.STRING;
      }
    }
    return Kind.STRING;
  }

  private static Kind widen(Kind a, Kind b) {
    if (a == null || a == b) {
      return b;
    }
    boolean numeric = (a == Kind.INT || a == Kind.LONG) && (b == Kind.INT || b == Kind.LONG);
    return numeric ? Kind.LONG : Kind.STRING;
  }

  private static DataType type(Kind k) {
    return switch (k) {
      case INT -> DataTypes.IntegerType;
      case LONG -> DataTypes.LongType;
      case DATE -> DataTypes.DateType;
      case STRING -> DataTypes.StringType;
    };
  }

  private static Object internal(Kind k, String v) {
    if (v == null) {
      return null;
    }
    return switch (k) {
      case INT -> Integer.parseInt(v);
      case LONG -> Long.parseLong(v);
      case DATE -> (int) LocalDate.parse(v).toEpochDay();
      case STRING -> UTF8String.fromString(v);
    };
  }

  /** The option that turns type inference off, as Spark's file sources have it. */
  static boolean inferTypes(org.apache.spark.sql.internal.SQLConf conf) {
    String v = conf.getConfString("spark.sql.sources.partitionColumnTypeInference.enabled", "true");
    return Boolean.parseBoolean(v.trim().toLowerCase(Locale.ROOT));
  }
}
