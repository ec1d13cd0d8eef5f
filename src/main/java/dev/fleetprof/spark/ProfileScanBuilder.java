package dev.fleetprof.spark;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds the scan, keeping only the columns the query needs: without {@code pcs}, {@code frames} and
 * {@code mapping}, readers walk record headers and never decode a call chain.
 */
final class ProfileScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns {
  private final CaseInsensitiveStringMap options;
  private StructType required = ProfileSchema.SCHEMA;

  ProfileScanBuilder(CaseInsensitiveStringMap options) {
    this.options = options;
  }

  /**
   * Keeps the top-level columns the query needs, each whole: Spark may ask for structs pruned to the
   * fields a query touches (e.g. only {@code dcpi.event}), but readers build whole structs, and
   * Spark accepts a read schema wider than asked for.
   */
  @Override
  public void pruneColumns(StructType requiredSchema) {
    java.util.Set<String> names = java.util.Set.of(requiredSchema.fieldNames());
    this.required = new StructType(java.util.Arrays.stream(ProfileSchema.SCHEMA.fields())
        .filter(f -> names.contains(f.name()))
        .toArray(org.apache.spark.sql.types.StructField[]::new));
  }

  @Override
  public Scan build() {
    return new ProfileScan(options, required);
  }
}
