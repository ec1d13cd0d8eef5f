package dev.fleetprof.spark.pushdown;

import dev.fleetprof.spark.ProfileSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * An aggregation the readers compute partially (Spark merges their rows): {@code SUM}, {@code
 * COUNT}, {@code MIN} and {@code MAX} of {@code count} and {@code COUNT(*)}, grouped by any of the
 * columns a record's call chain or its file determine. The scan's rows are then the group columns
 * in the query's order followed by one column per aggregate, as Spark expects of a pushed
 * aggregation.
 */
public record PushedAggregation(String[] groupBy, Function[] functions, StructType outputSchema)
    implements Serializable {

  /** The partial aggregates readers compute; each is a long per group. */
  public enum Function {
    SUM,
    COUNT,
    MIN,
    MAX
  }

  /**
   * Columns computed from a record's call chain and its file's mappings: grouped on, the readers
   * key their map on the raw pcs and build these once per distinct chain.
   */
  static final Set<String> CHAIN_COLUMNS =
      Set.of(
          ProfileSchema.PCS, ProfileSchema.FRAMES, ProfileSchema.MAPPING, ProfileSchema.STACK_ID);

  /**
   * Columns with one value per file or a few (a file's kinds, periods and problems): readers take
   * them into a group's context, which changes far less often than the chain.
   */
  static final Set<String> FILE_COLUMNS =
      Set.of(
          ProfileSchema.PATH,
          ProfileSchema.FORMAT,
          ProfileSchema.KIND,
          ProfileSchema.PERIOD,
          ProfileSchema.PERIOD_UNIT,
          ProfileSchema.ERROR);

  /**
   * The aggregation as the readers can compute it, or null when they cannot: another function, a
   * {@code DISTINCT}, an aggregate of another column, or a group expression that is not one of the
   * groupable columns.
   */
  public static PushedAggregation of(
      Aggregation aggregation, StructType schema, Set<String> partitions) {
    List<String> groupBy = new ArrayList<>();
    StructType out = new StructType();
    for (Expression e : aggregation.groupByExpressions()) {
      String name = column(e);
      if (name == null
          || !(CHAIN_COLUMNS.contains(name)
              || FILE_COLUMNS.contains(name)
              || partitions.contains(name))) {
        return null;
      }
      if (groupBy.contains(name)) {
        return null; // Spark removes repeated groupings; a repeat would misplace the outputs
      }
      groupBy.add(name);
      StructField f = schema.apply(name);
      out = out.add(f.name(), f.dataType(), f.nullable());
    }
    AggregateFunc[] aggregates = aggregation.aggregateExpressions();
    Function[] functions = new Function[aggregates.length];
    for (int i = 0; i < aggregates.length; i++) {
      AggregateFunc a = aggregates[i];
      Function f;
      if (a instanceof CountStar) {
        f = Function.COUNT;
      } else if (a instanceof Count c && !c.isDistinct() && isCount(c.column())) {
        f = Function.COUNT; // count is never null: COUNT(count) counts every row
      } else if (a instanceof Sum s && !s.isDistinct() && isCount(s.column())) {
        f = Function.SUM;
      } else if (a instanceof Min m && isCount(m.column())) {
        f = Function.MIN;
      } else if (a instanceof Max m && isCount(m.column())) {
        f = Function.MAX;
      } else {
        return null;
      }
      functions[i] = f;
      // SUM, MIN and MAX of no rows are null (a global aggregation over an empty partition).
      out = out.add(a.toString(), DataTypes.LongType, f != Function.COUNT);
    }
    return new PushedAggregation(groupBy.toArray(new String[0]), functions, out);
  }

  private static String column(Expression e) {
    return e instanceof NamedReference r && r.fieldNames().length == 1 ? r.fieldNames()[0] : null;
  }

  private static boolean isCount(Expression e) {
    return ProfileSchema.COUNT.equals(column(e));
  }

  /** Whether a group column is computed from the call chain. */
  public boolean groupsByChain() {
    for (String g : groupBy) {
      if (CHAIN_COLUMNS.contains(g)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a group column needs the file's mappings (all chain columns but {@code pcs}). */
  public boolean needsMappings() {
    for (String g : groupBy) {
      if (CHAIN_COLUMNS.contains(g) && !g.equals(ProfileSchema.PCS)) {
        return true;
      }
    }
    return false;
  }

  public boolean needsCount() {
    for (Function f : functions) {
      if (f != Function.COUNT) {
        return true;
      }
    }
    return false;
  }

  public boolean groups(String column) {
    return Arrays.asList(groupBy).contains(column);
  }

  /**
   * The columns the readers decode for this aggregation: the raw {@code pcs} stand for every chain
   * column, plus {@code count} and the file columns grouped on.
   */
  public StructType inputSchema(StructType schema) {
    StructType in = new StructType();
    for (StructField f : schema.fields()) {
      String n = f.name();
      boolean needed =
          n.equals(ProfileSchema.PCS)
              ? groupsByChain()
              : n.equals(ProfileSchema.COUNT)
                  ? needsCount()
                  : n.equals(ProfileSchema.RECORD_OFFSET)
                      ? groups(ProfileSchema.FRAMES) // names a record whose frames are too large
                      : !CHAIN_COLUMNS.contains(n) && groups(n);
      if (needed) {
        in = in.add(f);
      }
    }
    return in;
  }

  /** What the scan's description shows, e.g. {@code [SUM(count), COUNT(*)] GROUP BY [frames]}. */
  public String describe() {
    List<String> fs = new ArrayList<>();
    for (int i = groupBy.length; i < outputSchema.size(); i++) {
      fs.add(outputSchema.fields()[i].name());
    }
    return fs + " GROUP BY " + Arrays.toString(groupBy);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PushedAggregation p
        && Arrays.equals(groupBy, p.groupBy)
        && Arrays.equals(functions, p.functions)
        && outputSchema.equals(p.outputSchema);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(groupBy) * 31 + Arrays.hashCode(functions);
  }

  @Override
  public String toString() {
    return describe();
  }
}
