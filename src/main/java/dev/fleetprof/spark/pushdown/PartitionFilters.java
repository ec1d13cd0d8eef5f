package dev.fleetprof.spark.pushdown;

import dev.fleetprof.spark.listing.FileLister;
import dev.fleetprof.spark.listing.PartitionDiscovery;
import dev.fleetprof.spark.listing.ProfileFileIndex;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Evaluates filters on partition columns against each file's partition values, to skip files at
 * planning. A filter's value for a file is SQL's (true, false or null) or unknown, for what this
 * class does not understand; a file is skipped only when a filter is certainly false or null for it
 * (a WHERE drops its rows either way). A filter that is never unknown for any file read is decided
 * exactly by the pruning: Spark need not evaluate it again (see {@link #exact}).
 */
public final class PartitionFilters {
  private PartitionFilters() {}

  /** A filter's value for one file's partition values. */
  enum Truth {
    TRUE,
    FALSE,
    /** SQL's null: the WHERE drops the row, but NOT of it is null too. */
    NULL,
    /** This class cannot tell: the file is kept and Spark decides. */
    UNKNOWN;

    static Truth of(boolean b) {
      return b ? TRUE : FALSE;
    }

    /** Whether a WHERE keeps rows for which the filter has this value (or may: unknown). */
    boolean mayPass() {
      return this == TRUE || this == UNKNOWN;
    }
  }

  /**
   * The index's files that are read (see {@link PartitionDiscovery.Partitions#reads}) and whose
   * partition values may pass every filter.
   */
  public static ProfileFileIndex prune(ProfileFileIndex index, Filter[] filters) {
    StructType schema = index.partitions().schema();
    List<FileLister.ListedFile> kept = new ArrayList<>();
    for (FileLister.ListedFile f : index.files()) {
      if (!index.partitions().reads(f.path())) {
        continue;
      }
      Object[] values = index.partitions().values(f.path());
      boolean keep = true;
      for (Filter filter : filters) {
        if (!truth(filter, schema, values).mayPass()) {
          keep = false;
          break;
        }
      }
      if (keep) {
        kept.add(f);
      }
    }
    return kept.size() == index.files().size()
        ? index
        : new ProfileFileIndex(kept, index.partitions());
  }

  /**
   * Whether pruning by {@code filter} decides it exactly for every row: its value is known (true,
   * false or null) for every file read, so the files kept hold only rows it passes and the files
   * skipped only rows it drops (partition values are constant in a file, and rows get exactly the
   * values evaluated here).
   */
  public static boolean exact(ProfileFileIndex index, Filter filter) {
    StructType schema = index.partitions().schema();
    for (FileLister.ListedFile f : index.files()) {
      if (index.partitions().reads(f.path())
          && truth(filter, schema, index.partitions().values(f.path())) == Truth.UNKNOWN) {
        return false;
      }
    }
    return true;
  }

  /** A filter's value as SQL's three-valued logic gives it, or UNKNOWN. */
  static Truth truth(Filter f, StructType schema, Object[] values) {
    if (f instanceof AlwaysTrue) {
      return Truth.TRUE;
    }
    if (f instanceof AlwaysFalse) {
      return Truth.FALSE;
    }
    if (f instanceof And a) {
      Truth l = truth(a.left(), schema, values);
      Truth r = truth(a.right(), schema, values);
      if (l == Truth.FALSE || r == Truth.FALSE) {
        return Truth.FALSE;
      }
      if (l == Truth.UNKNOWN || r == Truth.UNKNOWN) {
        return Truth.UNKNOWN;
      }
      return l == Truth.NULL || r == Truth.NULL ? Truth.NULL : Truth.TRUE;
    }
    if (f instanceof Or o) {
      Truth l = truth(o.left(), schema, values);
      Truth r = truth(o.right(), schema, values);
      if (l == Truth.TRUE || r == Truth.TRUE) {
        return Truth.TRUE;
      }
      if (l == Truth.UNKNOWN || r == Truth.UNKNOWN) {
        return Truth.UNKNOWN;
      }
      return l == Truth.NULL || r == Truth.NULL ? Truth.NULL : Truth.FALSE;
    }
    if (f instanceof Not n) {
      Truth v = truth(n.child(), schema, values);
      return v == Truth.TRUE ? Truth.FALSE : v == Truth.FALSE ? Truth.TRUE : v;
    }
    if (f instanceof IsNull x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      return isNull == null ? Truth.UNKNOWN : Truth.of(isNull);
    }
    if (f instanceof IsNotNull x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      return isNull == null ? Truth.UNKNOWN : Truth.of(!isNull);
    }
    if (f instanceof EqualTo x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c == 0);
    }
    if (f instanceof EqualNullSafe x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      if (isNull == null) {
        return Truth.UNKNOWN;
      }
      if (isNull || x.value() == null) {
        return Truth.of(isNull && x.value() == null);
      }
      return compare(x.attribute(), x.value(), schema, values, c -> c == 0);
    }
    if (f instanceof GreaterThan x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c > 0);
    }
    if (f instanceof GreaterThanOrEqual x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c >= 0);
    }
    if (f instanceof LessThan x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c < 0);
    }
    if (f instanceof LessThanOrEqual x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c <= 0);
    }
    if (f instanceof In x) {
      // SQL: true if any equals; else null if the value or any literal is null; else false.
      Truth result = Truth.FALSE;
      for (Object literal : x.values()) {
        Truth b = compare(x.attribute(), literal, schema, values, c -> c == 0);
        if (b == Truth.TRUE) {
          return Truth.TRUE;
        }
        if (b == Truth.UNKNOWN) {
          result = Truth.UNKNOWN;
        } else if (b == Truth.NULL && result == Truth.FALSE) {
          result = Truth.NULL;
        }
      }
      return result;
    }
    if (f instanceof StringStartsWith x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      if (isNull == null) {
        return Truth.UNKNOWN;
      }
      if (isNull) {
        return Truth.NULL;
      }
      Object v = value(x.attribute(), schema, values);
      return v instanceof UTF8String s
          ? Truth.of(s.startsWith(UTF8String.fromString(x.value())))
          : Truth.UNKNOWN;
    }
    return Truth.UNKNOWN;
  }

  private static Truth compare(
      String column,
      Object literal,
      StructType schema,
      Object[] values,
      java.util.function.IntPredicate test) {
    Boolean isNull = isNull(column, schema, values);
    if (isNull == null) {
      return Truth.UNKNOWN; // not a partition column
    }
    if (isNull || literal == null) {
      return Truth.NULL;
    }
    Comparable<Object> v = value(column, schema, values);
    Object lit = normalise(literal);
    if (v == null || lit == null || v.getClass() != lit.getClass()) {
      return Truth.UNKNOWN; // types this class does not line up: let Spark decide
    }
    return Truth.of(test.test(v.compareTo(lit)));
  }

  /** Whether the file's value of a partition column is null; null if it is not one. */
  private static Boolean isNull(String column, StructType schema, Object[] values) {
    int i = schema.getFieldIndex(column).isDefined() ? schema.fieldIndex(column) : -1;
    return i < 0 ? null : values[i] == null;
  }

  /**
   * The file's value of a partition column in a form that compares with a filter's literal in
   * {@link #normalise}: a number ({@link Num}), a LocalDate, an Instant (TIMESTAMP), a
   * LocalDateTime (TIMESTAMP_NTZ) or a UTF8String; null if null.
   */
  @SuppressWarnings("unchecked")
  private static Comparable<Object> value(String column, StructType schema, Object[] values) {
    int i = schema.getFieldIndex(column).isDefined() ? schema.fieldIndex(column) : -1;
    if (i < 0 || values[i] == null) {
      return null;
    }
    DataType type = schema.fields()[i].dataType();
    Object v = values[i];
    Object out;
    if (type.equals(DataTypes.DateType)) {
      out = LocalDate.ofEpochDay((Integer) v);
    } else if (type.equals(DataTypes.TimestampType)) {
      out = Instant.EPOCH.plus((Long) v, ChronoUnit.MICROS);
    } else if (type.equals(DataTypes.TimestampNTZType)) {
      out = LocalDateTime.of(1970, 1, 1, 0, 0).plus((Long) v, ChronoUnit.MICROS);
    } else if (v instanceof UTF8String s) {
      out = s; // compared as Spark compares strings: by their UTF-8 bytes
    } else {
      out = exact(v);
    }
    return (Comparable<Object>) out;
  }

  /** A literal as {@link #value} gives values, or null for what this class does not compare. */
  private static Object normalise(Object literal) {
    if (literal instanceof java.sql.Date d) {
      return d.toLocalDate();
    }
    if (literal instanceof java.sql.Timestamp t) {
      return t.toInstant();
    }
    if (literal instanceof String s) {
      return UTF8String.fromString(s);
    }
    if (literal instanceof LocalDate
        || literal instanceof Instant
        || literal instanceof LocalDateTime) {
      return literal;
    }
    return exact(literal);
  }

  /**
   * A number in SQL's order: exact, so that 1.5 and 1 never compare equal; infinities at the ends
   * and NaN above everything, equal to itself, as Spark orders doubles.
   */
  private record Num(int rank, BigDecimal finite) implements Comparable<Num> {
    static final int NEGATIVE_INFINITY = -1;
    static final int FINITE = 0;
    static final int POSITIVE_INFINITY = 1;
    static final int NAN = 2;

    @Override
    public int compareTo(Num o) {
      return rank != o.rank
          ? Integer.compare(rank, o.rank)
          : rank == FINITE ? finite.compareTo(o.finite) : 0;
    }
  }

  /** A number as a {@link Num}; null if not a number. */
  private static Num exact(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return new Num(Num.FINITE, BigDecimal.valueOf(((Number) v).longValue()));
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isNaN(d)
          ? new Num(Num.NAN, null)
          : d == Double.POSITIVE_INFINITY
              ? new Num(Num.POSITIVE_INFINITY, null)
              : d == Double.NEGATIVE_INFINITY
                  ? new Num(Num.NEGATIVE_INFINITY, null)
                  : new Num(Num.FINITE, new BigDecimal(d));
    }
    if (v instanceof BigDecimal d) {
      return new Num(Num.FINITE, d);
    }
    if (v instanceof Decimal d) {
      return new Num(Num.FINITE, d.toJavaBigDecimal());
    }
    return null;
  }
}
