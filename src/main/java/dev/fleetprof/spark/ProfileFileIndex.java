package dev.fleetprof.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The files of one read and their partition values, listed once when the DataFrame is created (as
 * Spark's InMemoryFileIndex does: files added later are seen by a new {@code load}, not by re-running
 * the same DataFrame).
 */
record ProfileFileIndex(List<FileLister.ListedFile> files, PartitionDiscovery.Partitions partitions) {

  static ProfileFileIndex list(SparkSession spark, ReadOptions read,
      CaseInsensitiveStringMap options) {
    try {
      var conf = HadoopConf.forRead(spark, options);
      FileLister.checkExists(read.paths(), conf);
      List<FileLister.ListedFile> files =
          FileLister.list(read.paths(), conf, read.pathGlobFilter(), read.basePath());
      return new ProfileFileIndex(files, PartitionDiscovery.discover(files,
          PartitionDiscovery.inferTypes(SQLConf.get()), ProfileSchema.SCHEMA));
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /** The source's columns and then the partition columns. */
  StructType schema() {
    return ProfileSchema.withPartitions(partitions.schema());
  }
}
