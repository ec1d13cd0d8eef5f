package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import dev.fleetprof.spark.ProfileSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The run's dimensions: every {@code key=value} directory level of the inputs (the source's
 * partition columns) other than {@code date} and {@code host}, less those {@code --drop-dimension}
 * names. The per-host datasets ({@code host_stacks/}, {@code modules/}, {@code files/}) are grouped
 * by host and the values of all of them, and carry them in one column, {@code dimensions}:
 * ARRAY&lt;STRUCT&lt;key, value&gt;&gt; sorted by key, a level whose directory says {@code
 * __HIVE_DEFAULT_PARTITION__} left out (the shape of the source's {@code pprof.labels}). One column
 * keeps every dataset's schema the same whatever levels a day's directories have, so a reader of
 * several days (Spark without {@code mergeSchema}, other engines) never loses a dimension to the
 * schema of another day's files. An array and not a map, since Spark cannot compare maps: rows with
 * one could not be grouped by it, made distinct or compared with EXCEPT; {@code
 * map_from_entries(dimensions)} makes one where a lookup by key reads better.
 *
 * <p>{@code --label-dimension KEY} adds a pprof label as a dimension: its value is the sample's
 * label (the source's stack rows are kept apart by it, {@code stackLabels}), several values of one
 * key joined with commas, and a sample without the label has none. A label is a dimension of the
 * per-host stacks and modules; {@code files/} stays a row per file, by its directories only.
 *
 * <p>Values are the directory's text as written ({@code version=4.10} is {@code "4.10"}, not the
 * DOUBLE 4.1 that Spark's partition type inference makes of it), unescaped as the source unescapes
 * partition values.
 *
 * @param names the dimensions: the directory levels in their order, then the labels
 * @param labels the last names, which are pprof labels (in {@code --label-dimension}'s order)
 */
record Dimensions(List<String> names, List<String> labels) {
  /** No dimensions: the per-host datasets have an empty {@code dimensions} array. */
  static final Dimensions NONE = new Dimensions(List.of(), List.of());

  /** The column of the per-host datasets. */
  static final String COLUMN = "dimensions";

  static final String TYPE = "ARRAY<STRUCT<key: STRING, value: STRING>>";

  /** The levels that are not dimensions: the job's own columns. */
  private static final Set<String> NOT_DIMENSIONS = Set.of("date", "host");

  /**
   * The dimensions of a read whose columns are {@code schema}: its partition columns (the columns
   * the source does not define) other than date and host, less {@code dropped}, which must each
   * name one, then the pprof labels {@code labels}, which must be none of them.
   */
  static Dimensions of(StructType schema, List<String> dropped, List<String> labels) {
    Set<String> source = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    source.addAll(List.of(ProfileSchema.SCHEMA.fieldNames()));
    source.addAll(List.of(ProfileSchema.stacks(new StructType(), true).fieldNames()));
    List<String> levels = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!source.contains(f.name())
          && !NOT_DIMENSIONS.contains(f.name().toLowerCase(Locale.ROOT))) {
        levels.add(f.name());
      }
    }
    List<String> names = new ArrayList<>(levels);
    for (String d : dropped) {
      if (!names.removeIf(n -> n.equalsIgnoreCase(d))) {
        throw new IllegalArgumentException(
            "--drop-dimension "
                + d
                + ": the inputs have no "
                + d
                + "= directories"
                + (levels.isEmpty()
                    ? ""
                    : " (their dimensions: " + String.join(", ", levels) + ")"));
      }
    }
    for (String label : labels) {
      for (String n : names) {
        if (n.equalsIgnoreCase(label)) {
          throw new IllegalArgumentException(
              "--label-dimension "
                  + label
                  + ": the inputs have "
                  + n
                  + "= directories too; drop that level with --drop-dimension "
                  + n
                  + " or name another label");
        }
      }
      if (NOT_DIMENSIONS.contains(label.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "--label-dimension " + label + ": " + label + " is a column of the job's own");
      }
    }
    names.addAll(labels);
    return names.isEmpty() ? NONE : new Dimensions(List.copyOf(names), List.copyOf(labels));
  }

  /** The directory levels alone: what a file has one value of. */
  Dimensions levels() {
    return labels.isEmpty()
        ? this
        : new Dimensions(names.subList(0, names.size() - labels.size()), List.of());
  }

  /** Whether the dimension at {@code i} (of {@link #names}) is a pprof label. */
  boolean isLabel(int i) {
    return i >= names.size() - labels.size();
  }

  /** The job's columns holding the dimensions' values, one per dimension, in order. */
  List<String> columns() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      out.add("__dimension_" + i);
    }
    return out;
  }

  /**
   * {@code rows} (the source's, with its {@code path} and partition columns) with the {@link
   * #columns} added: each dimension's value as written in the path, unescaped. Not the partition
   * column's value: type inference makes {@code 4.10} the DOUBLE 4.1, and a column whose values
   * widen to STRING holds {@code "4.1"} then.
   */
  Dataset<Row> withValues(Dataset<Row> rows) {
    List<String> columns = columns();
    for (int i = 0; i < names.size(); i++) {
      if (isLabel(i)) {
        // The source's stack rows (or the records the job turns into them) carry the label.
        rows =
            rows.withColumn(
                columns.get(i),
                expr(
                    "nullif(array_join(transform(filter("
                        + ProfileSchema.STACK_LABELS
                        + ", l -> l.key = "
                        + literal(names.get(i))
                        + "), l -> l.value), ','), '')"));
        continue;
      }
      Column typed = col(quoted(names.get(i)));
      // The text after the last "/name=" of the path (the level below the input), to its "/".
      String level = "/" + names.get(i) + "=";
      Column text =
          org.apache.spark.sql.functions.substring_index(
              org.apache.spark.sql.functions.substring_index(col(ProfileSchema.PATH), level, -1),
              "/",
              1);
      Column unescaped =
          org.apache
              .spark
              .sql
              .functions
              .when(
                  org.apache.spark.sql.functions.instr(text, "%").gt(0),
                  org.apache.spark.sql.functions.call_function("url_decode", text))
              .otherwise(text);
      // A key the path spells otherwise (escaped, or in another case): the typed value as text.
      Column value =
          org.apache
              .spark
              .sql
              .functions
              .when(typed.isNull(), null)
              .when(
                  org.apache.spark.sql.functions.instr(col(ProfileSchema.PATH), level).gt(0),
                  unescaped)
              .otherwise(typed.cast(DataTypes.StringType));
      rows = rows.withColumn(columns.get(i), value);
    }
    return rows;
  }

  /**
   * {@code level} with the {@link #columns} replaced by one {@link #COLUMN}, placed after {@code
   * host}.
   */
  Dataset<Row> collapsed(Dataset<Row> level) {
    List<Column> out = new ArrayList<>();
    Set<String> values = Set.copyOf(columns());
    for (String c : level.columns()) {
      if (values.contains(c)) {
        continue;
      }
      out.add(col(quoted(c)));
      if (c.equals("host")) {
        out.add(entries().as(COLUMN));
      }
    }
    return level.select(out.toArray(new Column[0]));
  }

  /** The {@link #COLUMN} of a row holding the {@link #columns}: its values, sorted by key. */
  Column entries() {
    if (names.isEmpty()) {
      return expr("CAST(array() AS " + TYPE + ")");
    }
    List<String> columns = columns();
    List<Integer> byKey = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      byKey.add(i);
    }
    byKey.sort((a, b) -> names.get(a).compareTo(names.get(b)));
    StringBuilder entries = new StringBuilder();
    for (int i : byKey) {
      entries
          .append(entries.length() == 0 ? "" : ", ")
          .append("named_struct('key', ")
          .append(literal(names.get(i)))
          .append(", 'value', ")
          .append(columns.get(i))
          .append(")");
    }
    return expr("CAST(filter(array(" + entries + "), d -> d.value IS NOT NULL) AS " + TYPE + ")");
  }

  /** A SQL expression of the value of dimension {@code name} in a row's {@link #COLUMN}. */
  static String valueOf(String name) {
    return "try_element_at(map_from_entries(" + COLUMN + "), " + literal(name) + ")";
  }

  /**
   * How many hosts a date's row of a stack was on, from its per-host rows (null: no {@code host=}
   * directory anywhere): the rows' hosts, each counted once when a host has rows for several
   * dimension values.
   */
  Column hosts() {
    return expr(names.isEmpty() ? "nullif(count(host), 0)" : "nullif(count(DISTINCT host), 0)")
        .as("hosts");
  }

  /** A SQL string literal of {@code s}. */
  static String literal(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
