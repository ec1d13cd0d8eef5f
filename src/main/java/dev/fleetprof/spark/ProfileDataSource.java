package dev.fleetprof.spark;

import dev.fleetprof.spark.listing.ProfileFileIndex;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code profile} data source: {@code spark.read.format("profile").load(paths)} reads profile
 * files of every format in {@link dev.fleetprof.format.ProfileFormats} (gperftools CPU profiles,
 * gprof {@code gmon.out}, DCPI) into one row per profile record. Registered for the short name
 * through {@code META-INF/services}.
 */
public final class ProfileDataSource implements TableProvider, DataSourceRegister {
  public static final String SHORT_NAME = "profile";

  @Override
  public String shortName() {
    return SHORT_NAME;
  }

  /** The listing behind the last inferred schema, so that getTable does not list again. */
  private Map<String, String> listedFor;

  private ReadOptions listedRead;

  private ProfileFileIndex listed;

  /** The source's columns plus the partition columns of the directories ({@code date=...}). */
  @Override
  public synchronized StructType inferSchema(CaseInsensitiveStringMap options) {
    ProfileFileIndex index = index(options.asCaseSensitiveMap());
    return listedRead.stackRows()
        ? ProfileSchema.stacks(index.partitions().schema(), !listedRead.stackLabels().isEmpty())
        : index.schema();
  }

  @Override
  public synchronized Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    ProfileFileIndex index = index(properties);
    return new ProfileTable(listedFor, listedRead, index);
  }

  private synchronized ProfileFileIndex index(Map<String, String> properties) {
    if (listed == null || !properties.equals(listedFor)) {
      CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
      listedRead = new ReadOptions(options);
      listed = ProfileFileIndex.list(SparkSession.active(), listedRead, options);
      listedFor = Map.copyOf(properties);
    }
    return listed;
  }
}
