package dev.fleetprof.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code profile} data source: {@code spark.read.format("profile").load(paths)} reads gperftools
 * CPU profiles (and, as their decoders land, gprof and DCPI files) into one row per profile record.
 * Registered for the short name through {@code META-INF/services}.
 */
public final class ProfileDataSource implements TableProvider, DataSourceRegister {
  public static final String SHORT_NAME = "profile";

  @Override
  public String shortName() {
    return SHORT_NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return ProfileSchema.SCHEMA;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
    ReadOptions read = new ReadOptions(options);
    SparkSession spark = SparkSession.active();
    try {
      FileLister.checkExists(read.paths(), HadoopConf.forRead(spark, options));
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    return new ProfileTable(read);
  }
}
