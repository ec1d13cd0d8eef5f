package dev.fleetprof.spark;

import dev.fleetprof.spark.listing.ProfileFileIndex;
import dev.fleetprof.spark.pushdown.PartitionFilters;
import dev.fleetprof.spark.pushdown.PushedAggregation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds the scan, keeping only the columns the query needs (without {@code pcs}, {@code frames}
 * and {@code mapping}, readers walk record headers and never decode a call chain) and only the
 * files whose partition values can pass the query's filters on partition columns ({@code WHERE date
 * = ...} reads one day's directories, not the whole tree). Aggregations of {@code count} grouped by
 * call-chain and file columns are computed partially by the readers (see {@link
 * PushedAggregation}); Spark merges their rows.
 */
final class ProfileScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownFilters,
        SupportsPushDownAggregates {
  private final CaseInsensitiveStringMap options;
  private final ReadOptions read;
  private final ProfileFileIndex index;
  private StructType required;
  private Filter[] pushed = new Filter[0];
  private boolean filtered;
  private PushedAggregation aggregation;

  ProfileScanBuilder(CaseInsensitiveStringMap options, ProfileFileIndex index) {
    this.options = options;
    this.read = new ReadOptions(options);
    this.index = index;
    this.required = index.schema();
  }

  /**
   * Keeps the top-level columns the query needs, each whole: Spark may ask for structs pruned to
   * the fields a query touches (e.g. only {@code dcpi.event}), but readers build whole structs, and
   * Spark accepts a read schema wider than asked for.
   */
  @Override
  public void pruneColumns(StructType requiredSchema) {
    Set<String> names = Set.of(requiredSchema.fieldNames());
    StructType kept =
        new StructType(
            Arrays.stream(index.schema().fields())
                .filter(f -> names.contains(f.name()))
                .toArray(StructField[]::new));
    if (names.contains(ProfileSchema.METADATA)) {
      kept = kept.add(ProfileSchema.METADATA, ProfileSchema.METADATA_TYPE, false);
    }
    this.required = kept;
  }

  /**
   * Uses the filters on partition columns to skip files. A filter the pruning decides exactly (its
   * value is known for every file read: see {@link PartitionFilters#exact}) is handled here and not
   * returned, so that it does not stand between the scan and an aggregation Spark could push
   * ({@code WHERE date = ...} then {@code GROUP BY frames}); every other filter is returned, and
   * Spark evaluates it on the rows.
   */
  @Override
  public Filter[] pushFilters(Filter[] filters) {
    Set<String> partitionColumns = Set.of(index.partitions().schema().fieldNames());
    Set<String> dataColumns = Set.of(ProfileSchema.SCHEMA.fieldNames());
    List<Filter> usable = new ArrayList<>();
    List<Filter> left = new ArrayList<>();
    for (Filter f : filters) {
      List<String> references = Arrays.asList(f.references());
      boolean onPartitions =
          !partitionColumns.isEmpty()
              && partitionColumns.containsAll(references)
              && references.stream().noneMatch(dataColumns::contains);
      if (onPartitions) {
        usable.add(f);
      }
      if (!onPartitions || !PartitionFilters.exact(index, f)) {
        left.add(f);
      }
    }
    pushed = usable.toArray(new Filter[0]);
    filtered = !left.isEmpty();
    return left.toArray(new Filter[0]);
  }

  @Override
  public Filter[] pushedFilters() {
    return pushed;
  }

  /**
   * Partial only: a reader sees a partition, and equal groups come from many, so Spark merges the
   * readers' rows (as for Parquet's pushed aggregates, which are per file).
   */
  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return false;
  }

  /**
   * Takes an aggregation the readers can compute (see {@link PushedAggregation#of}). Refused when
   * the read option turns pushdown off, and when a filter is left to Spark: Spark evaluates it on
   * the rows after the scan, so the readers' rows must be unaggregated (Spark itself pushes no
   * aggregation over a filter left to it). Filters the pruning decides exactly leave none. A global
   * aggregation of no files (none listed, or none a partition filter keeps) is left to Spark too,
   * which then gives {@code COUNT(*)} 0 where merging no partial rows would give null.
   */
  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    if (!read.aggregatePushdown() || filtered || read.stackRows()) {
      return false;
    }
    PushedAggregation a =
        PushedAggregation.of(
            aggregation, index.schema(), Set.of(index.partitions().schema().fieldNames()));
    if (a == null
        || (a.groupBy().length == 0 && PartitionFilters.prune(index, pushed).files().isEmpty())) {
      return false;
    }
    this.aggregation = a;
    return true;
  }

  @Override
  public Scan build() {
    return new ProfileScan(
        options,
        read,
        required,
        PartitionFilters.prune(index, pushed),
        pushed,
        aggregation,
        SQLConf.get().ansiEnabled());
  }
}
