package dev.fleetprof.spark;

import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The profiles under a set of paths, as a batch-readable table. */
final class ProfileTable implements SupportsRead, SupportsMetadataColumns {
  private final ReadOptions read;
  private final ProfileFileIndex index;

  ProfileTable(ReadOptions read, ProfileFileIndex index) {
    this.read = read;
    this.index = index;
  }

  @Override
  public String name() {
    return "profile " + String.join(", ", read.paths());
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return index.schema();
  }

  /** The partition directories' columns, as identity transforms (shown by DESCRIBE). */
  @Override
  public Transform[] partitioning() {
    String[] names = index.partitions().schema().fieldNames();
    Transform[] out = new Transform[names.length];
    for (int i = 0; i < names.length; i++) {
      out[i] = Expressions.identity(names[i]);
    }
    return out;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return new ProfileScanBuilder(options, index);
  }

  /** {@code _metadata}, as Spark's file sources offer it (file path, name, size, block, time). */
  @Override
  public MetadataColumn[] metadataColumns() {
    return new MetadataColumn[] {
      new MetadataColumn() {
        @Override
        public String name() {
          return ProfileSchema.METADATA;
        }

        @Override
        public DataType dataType() {
          return ProfileSchema.METADATA_TYPE;
        }

        @Override
        public boolean isNullable() {
          return false;
        }

        @Override
        public String comment() {
          return "the file each row came from: path, name, size, the block read, modification time";
        }
      }
    };
  }
}
