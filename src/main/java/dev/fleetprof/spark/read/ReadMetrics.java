package dev.fleetprof.spark.read;

import dev.fleetprof.spark.metrics.ProfileMetrics;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/** A task's running metric values, shown per scan in the Spark UI. */
final class ReadMetrics {
  long files;
  long records;
  long bytes;
  long resyncedSplits;
  long truncatedFiles;
  long chainsDecoded;
  long problems;
  long missingFiles;
  long replacedCharacters;

  CustomTaskMetric[] values() {
    return new CustomTaskMetric[] {
      ProfileMetrics.task(ProfileMetrics.FILES, files),
      ProfileMetrics.task(ProfileMetrics.RECORDS, records),
      ProfileMetrics.task(ProfileMetrics.BYTES, bytes),
      ProfileMetrics.task(ProfileMetrics.RESYNCED_SPLITS, resyncedSplits),
      ProfileMetrics.task(ProfileMetrics.TRUNCATED_FILES, truncatedFiles),
      ProfileMetrics.task(ProfileMetrics.CHAINS_DECODED, chainsDecoded),
      ProfileMetrics.task(ProfileMetrics.PROBLEMS, problems),
      ProfileMetrics.task(ProfileMetrics.MISSING_FILES, missingFiles),
      ProfileMetrics.task(ProfileMetrics.REPLACED_CHARACTERS, replacedCharacters),
    };
  }
}
