package dev.fleetprof.spark;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
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
 * planning. Three-valued: a file is skipped only when a filter is certainly false for it; anything
 * this class does not understand keeps the file (Spark filters the rows afterwards anyway).
 */
final class PartitionFilters {
  private PartitionFilters() {}

  /**
   * The index's files that are read (see {@link PartitionDiscovery.Partitions#reads}) and whose
   * partition values may pass every filter.
   */
  static ProfileFileIndex prune(ProfileFileIndex index, Filter[] filters) {
    StructType schema = index.partitions().schema();
    List<FileLister.ListedFile> kept = new ArrayList<>();
    for (FileLister.ListedFile f : index.files()) {
      if (!index.partitions().reads(f.path())) {
        continue;
      }
      Object[] values = index.partitions().values(f.path());
      boolean keep = true;
      for (Filter filter : filters) {
        if (eval(filter, schema, values) == Boolean.FALSE) {
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

  /** TRUE, FALSE, or null when it cannot tell. */
  static Boolean eval(Filter f, StructType schema, Object[] values) {
    if (f instanceof And a) {
      Boolean l = eval(a.left(), schema, values);
      Boolean r = eval(a.right(), schema, values);
      return l == Boolean.FALSE || r == Boolean.FALSE
          ? Boolean.FALSE
          : l == Boolean.TRUE && r == Boolean.TRUE ? Boolean.TRUE : null;
    }
    if (f instanceof Or o) {
      Boolean l = eval(o.left(), schema, values);
      Boolean r = eval(o.right(), schema, values);
      return l == Boolean.TRUE || r == Boolean.TRUE
          ? Boolean.TRUE
          : l == Boolean.FALSE && r == Boolean.FALSE ? Boolean.FALSE : null;
    }
    if (f instanceof Not n) {
      Boolean v = eval(n.child(), schema, values);
      return v == null ? null : !v;
    }
    if (f instanceof IsNull x) {
      return isNull(x.attribute(), schema, values);
    }
    if (f instanceof IsNotNull x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      return isNull == null ? null : !isNull;
    }
    if (f instanceof EqualTo x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c == 0);
    }
    if (f instanceof EqualNullSafe x) {
      Boolean isNull = isNull(x.attribute(), schema, values);
      if (isNull == null) {
        return null;
      }
      if (isNull || x.value() == null) {
        return isNull == (x.value() == null) ? (isNull ? Boolean.TRUE : null) : Boolean.FALSE;
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
      boolean unknown = false;
      for (Object literal : x.values()) {
        Boolean b = compare(x.attribute(), literal, schema, values, c -> c == 0);
        if (b == Boolean.TRUE) {
          return Boolean.TRUE;
        }
        unknown |= b == null;
      }
      return unknown ? null : Boolean.FALSE;
    }
    if (f instanceof StringStartsWith x) {
      Object v = value(x.attribute(), schema, values);
      return v instanceof String s ? s.startsWith(x.value()) : null;
    }
    return null;
  }

  private static Boolean compare(
      String column,
      Object literal,
      StructType schema,
      Object[] values,
      java.util.function.IntPredicate test) {
    Comparable<Object> v = value(column, schema, values);
    Object lit = normalise(literal);
    if (v == null || lit == null || v.getClass() != lit.getClass()) {
      return null; // SQL null, or types this class does not line up: let Spark decide
    }
    return test.test(v.compareTo(lit));
  }

  /** Whether the file's value of a partition column is null; null if it is not one. */
  private static Boolean isNull(String column, StructType schema, Object[] values) {
    int i = schema.getFieldIndex(column).isDefined() ? schema.fieldIndex(column) : -1;
    return i < 0 ? null : values[i] == null;
  }

  /**
   * The file's value of a partition column in a form that compares with a filter's literal in
   * {@link #normalise}: a number ({@link Num}), a LocalDate, an Instant (TIMESTAMP), a
   * LocalDateTime (TIMESTAMP_NTZ) or a String; null if null.
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
      out = s.toString();
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
    if (literal instanceof LocalDate
        || literal instanceof String
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
