package dev.fleetprof.spark;

import dev.fleetprof.format.FormatDetector;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileLayout;
import dev.fleetprof.format.dcpi.DcpiOffsetUnit;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/** Reads the slices of one partition in turn, picking each file's decoder from its bytes. */
final class ProfilePartitionReader implements PartitionReader<InternalRow> {
  private final ProfileInputPartition partition;
  private final Configuration conf;
  private final Map<String, CpuProfileLayout> splitLayouts;
  private final String format;
  private final Map<String, String> decoderOptions;
  private final RequiredColumns columns;
  private final ReadMetrics metrics = new ReadMetrics();
  private final byte[] buffer;

  private int next;
  private RowSource current;

  ProfilePartitionReader(ProfileInputPartition partition, Configuration conf,
      Map<String, CpuProfileLayout> splitLayouts, String format,
      Map<String, String> decoderOptions, RequiredColumns columns) {
    this.partition = partition;
    this.decoderOptions = decoderOptions;
    this.conf = conf;
    this.splitLayouts = splitLayouts;
    this.format = format;
    this.columns = columns;
    long bytes = 0;
    for (int i = 0; i < partition.size(); i++) {
      bytes += partition.slice(i).fileLength();
    }
    // One read buffer for every file of the task: 1 MiB, or less when the task reads less.
    this.buffer = new byte[(int) Math.max(4096, Math.min(1 << 20, bytes))];
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (current != null) {
        if (current.next()) {
          return true;
        }
        current.close();
        current = null;
      }
      if (next >= partition.size()) {
        return false;
      }
      current = open(partition.slice(next++));
    }
  }

  @Override
  public InternalRow get() {
    return current.row();
  }

  private RowSource open(Slice slice) throws IOException {
    HadoopByteSource src = new HadoopByteSource(slice.path(), slice.fileLength(), conf);
    CpuProfileLayout layout = splitLayouts.get(slice.path());
    if (layout != null) { // a split of a large profile: the driver already read its layout
      if (slice.start() == 0) {
        metrics.files++;
      }
      return new CpuProfileRows(src, slice, layout, layout.header(), columns, metrics, buffer);
    }
    metrics.files++;
    byte[] head = new byte[FormatDetector.HEAD_BYTES];
    int n;
    try (InputStream in = src.open(0)) {
      n = in.readNBytes(head, 0, head.length);
    }
    if (n == 0) {
      return RowSource.EMPTY; // a profiler reset before its first flush leaves a 0-byte file
    }
    String detected = FormatDetector.detect(head, n, src.length());
    String want = format.equals("auto") ? detected : format;
    if (want == null) {
      throw new ProfileFormatException(src.name(), 0, "not a profile file of any known format"
          + " (gperftools, gprof, dcpi): it looks like " + FormatDetector.describe(head, n));
    }
    switch (want) {
      case FormatDetector.GPERFTOOLS:
        CpuProfileHeader header = CpuProfileHeader.parse(src.name(), head, n, src.length());
        return new CpuProfileRows(src, slice, null, header, columns, metrics, buffer);
      case FormatDetector.GPROF:
        return new GprofRows(GmonFile.open(src, GmonOptions.fromMap(decoderOptions)), src.name(),
            columns, metrics);
      case FormatDetector.DCPI:
        return new DcpiRows(DcpiProfileReader.open(src, DcpiOffsetUnit.parse(
            decoderOptions.getOrDefault(ReadOptions.DCPI_OFFSET_UNIT, "bytes"))), src.name(),
            columns, metrics);
      default:
        throw new IllegalStateException("unknown format " + want);
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return metrics.values();
  }

  @Override
  public void close() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  /** The task's running metric values. */
  static final class ReadMetrics {
    long files;
    long records;
    long bytes;
    long resyncedSplits;
    long truncatedFiles;
    long chainsDecoded;

    CustomTaskMetric[] values() {
      return new CustomTaskMetric[] {
          ProfileMetrics.task(ProfileMetrics.FILES, files),
          ProfileMetrics.task(ProfileMetrics.RECORDS, records),
          ProfileMetrics.task(ProfileMetrics.BYTES, bytes),
          ProfileMetrics.task(ProfileMetrics.RESYNCED_SPLITS, resyncedSplits),
          ProfileMetrics.task(ProfileMetrics.TRUNCATED_FILES, truncatedFiles),
          ProfileMetrics.task(ProfileMetrics.CHAINS_DECODED, chainsDecoded),
      };
    }
  }
}
