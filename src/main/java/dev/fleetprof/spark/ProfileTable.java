package dev.fleetprof.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The profiles under a set of paths, as a batch-readable table. */
final class ProfileTable implements SupportsRead {
  private final ReadOptions read;

  ProfileTable(ReadOptions read) {
    this.read = read;
  }

  @Override
  public String name() {
    return "profile " + String.join(", ", read.paths());
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return ProfileSchema.SCHEMA;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new ProfileScanBuilder(options);
  }
}
