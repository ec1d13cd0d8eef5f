package dev.fleetprof.spark;

import java.time.LocalDate;
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
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Evaluates filters on partition columns against each file's partition values, to skip files at
 * planning. Three-valued: a file is skipped only when a filter is certainly false for it; anything
 * this class does not understand keeps the file (Spark filters the rows afterwards anyway).
 */
final class PartitionFilters {
  private PartitionFilters() {}

  /** The index's files whose partition values may pass every filter. */
  static ProfileFileIndex prune(ProfileFileIndex index, Filter[] filters) {
    if (filters.length == 0) {
      return index;
    }
    StructType schema = index.partitions().schema();
    List<FileLister.ListedFile> kept = new ArrayList<>();
    for (FileLister.ListedFile f : index.files()) {
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
    return new ProfileFileIndex(kept, index.partitions());
  }

  /** TRUE, FALSE, or null when it cannot tell. */
  static Boolean eval(Filter f, StructType schema, Object[] values) {
    if (f instanceof And a) {
      Boolean l = eval(a.left(), schema, values);
      Boolean r = eval(a.right(), schema, values);
      return l == Boolean.FALSE || r == Boolean.FALSE ? Boolean.FALSE
          : l == Boolean.TRUE && r == Boolean.TRUE ? Boolean.TRUE : null;
    }
    if (f instanceof Or o) {
      Boolean l = eval(o.left(), schema, values);
      Boolean r = eval(o.right(), schema, values);
      return l == Boolean.TRUE || r == Boolean.TRUE ? Boolean.TRUE
          : l == Boolean.FALSE && r == Boolean.FALSE ? Boolean.FALSE : null;
    }
    if (f instanceof Not n) {
      Boolean v = eval(n.child(), schema, values);
      return v == null ? null : !v;
    }
    if (f instanceof IsNull x) {
      return value(x.attribute(), schema, values) == null;
    }
    if (f instanceof IsNotNull x) {
      return value(x.attribute(), schema, values) != null;
    }
    if (f instanceof EqualTo x) {
      return compare(x.attribute(), x.value(), schema, values, c -> c == 0);
    }
    if (f instanceof EqualNullSafe x) {
      Comparable<Object> v = value(x.attribute(), schema, values);
      if (v == null || x.value() == null) {
        return (v == null) == (x.value() == null) ? (v == null ? Boolean.TRUE : null)
            : Boolean.FALSE;
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

  private static Boolean compare(String column, Object literal, StructType schema,
      Object[] values, java.util.function.IntPredicate test) {
    Comparable<Object> v = value(column, schema, values);
    Object lit = normalise(literal);
    if (v == null || lit == null || v.getClass() != lit.getClass()) {
      return null; // SQL null, or types this class does not line up: let Spark decide
    }
    return test.test(v.compareTo(lit));
  }

  /** The file's value of a partition column as a Long, a LocalDate or a String; null if unknown. */
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
    } else if (v instanceof UTF8String s) {
      out = s.toString();
    } else {
      out = ((Number) v).longValue();
    }
    return (Comparable<Object>) out;
  }

  private static Object normalise(Object literal) {
    if (literal instanceof Integer || literal instanceof Long || literal instanceof Short
        || literal instanceof Byte) {
      return ((Number) literal).longValue();
    }
    if (literal instanceof java.sql.Date d) {
      return d.toLocalDate();
    }
    if (literal instanceof LocalDate || literal instanceof String) {
      return literal;
    }
    return null;
  }
}
