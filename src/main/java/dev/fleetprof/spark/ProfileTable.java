package dev.fleetprof.spark;

import dev.fleetprof.spark.listing.ProfileFileIndex;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
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

/**
 * The profiles under a set of paths, as a batch-readable table. A query's own read options (SQL's
 * {@code WITH (...)} on a catalog table) are laid over the options the table was loaded with.
 */
final class ProfileTable implements SupportsRead, SupportsMetadataColumns {
  private final Map<String, String> options;
  private final ReadOptions read;
  private final ProfileFileIndex index;

  /**
   * @param options the options the table was listed with (paths included)
   * @param read those options, resolved
   * @param index the listing they gave
   */
  ProfileTable(Map<String, String> options, ReadOptions read, ProfileFileIndex index) {
    this.options = Map.copyOf(options);
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
    return read.stackRows()
        ? ProfileSchema.stacks(index.partitions().schema(), !read.stackLabels().isEmpty())
        : index.schema();
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

  /**
   * A scan with the table's options, overridden by the query's ({@code spark.read} gives the same
   * ones again; {@code SELECT ... FROM profile.`path` WITH ('mode'='FAILFAST')} gives only its
   * own). Options that change which files are listed list them again; the columns must stay those
   * the query was analysed with.
   */
  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
    CaseInsensitiveStringMap merged = overlay(options, scanOptions.asCaseSensitiveMap());
    ReadOptions scanRead = new ReadOptions(merged);
    ProfileFileIndex scanIndex = index;
    if (!sameListing(read, scanRead)
        || !ReadOptions.hadoopOptions(merged)
            .equals(ReadOptions.hadoopOptions(new CaseInsensitiveStringMap(options)))) {
      scanIndex = ProfileFileIndex.list(SparkSession.active(), scanRead, merged);
      if (!scanIndex.schema().equals(index.schema())) {
        throw new IllegalArgumentException(
            "profile source: the read options "
                + scanOptions.asCaseSensitiveMap().keySet()
                + " change the columns of "
                + name()
                + " (its partition columns) after the query was analysed; give them where the"
                + " table is loaded instead (spark.read options, or the catalog's defaults)");
      }
    }
    return new ProfileScanBuilder(merged, scanIndex);
  }

  /** {@code base} with every key of {@code over} replaced, keys compared ignoring case. */
  static CaseInsensitiveStringMap overlay(Map<String, String> base, Map<String, String> over) {
    Map<String, String> out = new LinkedHashMap<>(base);
    for (Map.Entry<String, String> e : over.entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      out.keySet().removeIf(k -> k.toLowerCase(Locale.ROOT).equals(key));
      out.put(e.getKey(), e.getValue());
    }
    return new CaseInsensitiveStringMap(out);
  }

  /** Whether two reads list the same files with the same partition values. */
  private static boolean sameListing(ReadOptions a, ReadOptions b) {
    return a.paths().equals(b.paths())
        && Objects.equals(a.pathGlobFilter(), b.pathGlobFilter())
        && a.recursiveFileLookup() == b.recursiveFileLookup()
        && a.followSymlinks() == b.followSymlinks()
        && Objects.equals(a.basePath(), b.basePath())
        && a.timeZone().equals(b.timeZone());
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
