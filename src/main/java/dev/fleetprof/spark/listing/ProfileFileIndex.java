package dev.fleetprof.spark.listing;

import dev.fleetprof.spark.HadoopConf;
import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.ReadOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The files of one read and their partition values, listed once when the DataFrame is created (as
 * Spark's InMemoryFileIndex does: files added later are seen by a new {@code load}, not by
 * re-running the same DataFrame).
 */
public record ProfileFileIndex(
    List<FileLister.ListedFile> files, PartitionDiscovery.Partitions partitions) {

  public static ProfileFileIndex list(
      SparkSession spark, ReadOptions read, CaseInsensitiveStringMap options) {
    try {
      var conf = HadoopConf.forRead(spark, options);
      FileLister.checkExists(read.paths(), conf);
      List<FileLister.ListedFile> files =
          FileLister.list(
              read.paths(), conf, read.pathGlobFilter(), read.basePath(), read.followSymlinks());
      PartitionDiscovery.Partitions partitions =
          PartitionDiscovery.discover(
              files, PartitionDiscovery.Settings.of(SQLConf.get(), read), ProfileSchema.SCHEMA);
      return new ProfileFileIndex(files, partitions);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /**
   * Equal when the same files (path and length) with the same partition values are read, so that
   * scans of equal listings are equal (their blocks, arrays, are left out: same file, same blocks).
   */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ProfileFileIndex other)
        || files.size() != other.files.size()
        || !partitions.schema().equals(other.partitions.schema())) {
      return false;
    }
    for (int i = 0; i < files.size(); i++) {
      FileLister.ListedFile a = files.get(i);
      FileLister.ListedFile b = other.files.get(i);
      if (!a.path().equals(b.path())
          || a.length() != b.length()
          || !java.util.Arrays.equals(
              partitions.values(a.path()), other.partitions.values(b.path()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = partitions.schema().hashCode();
    for (FileLister.ListedFile f : files) {
      h = 31 * h + f.path().hashCode() + Long.hashCode(f.length());
    }
    return h;
  }

  /** The source's columns and then the partition columns. */
  public StructType schema() {
    return ProfileSchema.withPartitions(partitions.schema());
  }
}
