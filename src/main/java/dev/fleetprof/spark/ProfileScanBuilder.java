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

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.required = requiredSchema;
  }

  @Override
  public Scan build() {
    return new ProfileScan(options, required);
  }
}
