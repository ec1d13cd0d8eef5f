package dev.fleetprof.spark;

import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.SplitLayout;
import dev.fleetprof.spark.listing.FileLister;
import dev.fleetprof.spark.listing.ProfileFileIndex;
import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.spark.pushdown.PushedAggregation;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import dev.fleetprof.spark.read.HadoopByteSource;
import dev.fleetprof.spark.read.ProfileInputPartition;
import dev.fleetprof.spark.read.ProfileReaderFactory;
import dev.fleetprof.spark.read.SplitFile;
import dev.fleetprof.spark.read.StackRowsReader;
import dev.fleetprof.split.SplitPlanner;
import dev.fleetprof.split.SplitPlanner.Block;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a read: lists the files, cuts each large file whose format splits into record-aligned
 * slices (its format reads the file's layout once, here on the driver: {@link
 * ProfileFormat#splitLayout}), packs slices into partitions like Spark's file sources, and
 * broadcasts what every reader needs (the Hadoop configuration, the split files' layouts) once
 * instead of shipping it with every task.
 */
final class ProfileScan implements Scan, Batch {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileScan.class);

  private final CaseInsensitiveStringMap options;
  private final ReadOptions read;
  private final StructType readSchema;
  private final ProfileFileIndex index;
  private final org.apache.spark.sql.sources.Filter[] pushedFilters;
  private final PushedAggregation aggregation;
  private final boolean exactSums;
  private Plan plan;

  /** The result of planning, computed once for both planInputPartitions and the reader factory. */
  private record Plan(InputPartition[] partitions, Map<String, SplitFile> layouts) {}

  ProfileScan(
      CaseInsensitiveStringMap options,
      ReadOptions read,
      StructType readSchema,
      ProfileFileIndex index,
      org.apache.spark.sql.sources.Filter[] pushedFilters,
      PushedAggregation aggregation,
      boolean exactSums) {
    this.options = options;
    this.read = read;
    this.index = index;
    this.pushedFilters = pushedFilters;
    this.aggregation = aggregation;
    this.exactSums = exactSums;
    // With a pushed aggregation (or stack rows) the readers decode what it needs and return its
    // partial rows.
    this.readSchema =
        read.stackRows()
            ? StackRowsReader.inputSchema(index.schema(), index.partitions().schema())
            : aggregation == null ? readSchema : aggregation.inputSchema(index.schema());
  }

  /**
   * The rows the scan returns: stack rows, the pushed aggregation's partial rows, or the pruned
   * columns.
   */
  @Override
  public StructType readSchema() {
    return read.stackRows()
        ? ProfileSchema.stacks(index.partitions().schema(), !read.stackLabels().isEmpty())
        : aggregation == null ? readSchema : aggregation.outputSchema();
  }

  @Override
  public String description() {
    return "profile [format="
        + read.format()
        + ", mode="
        + read.problemPolicy().mode()
        + (columnar() ? ", columnar" : "")
        + ", paths="
        + read.paths()
        + (pushedFilters.length == 0
            ? ""
            : ", partitionFilters=" + java.util.Arrays.toString(pushedFilters))
        + (aggregation == null ? "" : ", pushedAggregation=" + aggregation.describe())
        + (read.stackRows() ? ", rows=stacks" : "")
        + "]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return ProfileMetrics.all();
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return plan().partitions();
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    SparkSession spark = SparkSession.active();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<SerializableConfiguration> conf =
        jsc.broadcast(new SerializableConfiguration(HadoopConf.forRead(spark, options)));
    Map<String, SplitFile> layouts = plan().layouts();
    Broadcast<HashMap<String, SplitFile>> layoutsBroadcast =
        layouts.isEmpty() ? null : jsc.broadcast(new HashMap<>(layouts));
    return new ProfileReaderFactory(
        conf,
        layoutsBroadcast,
        read,
        RequiredColumns.of(
            readSchema,
            index.partitions().schema(),
            read.stackRows() || (aggregation != null && aggregation.needsMappings())),
        readSchema,
        columnar(),
        aggregation,
        exactSums);
  }

  @Override
  public ColumnarSupportMode columnarSupportMode() {
    return columnar() ? ColumnarSupportMode.SUPPORTED : ColumnarSupportMode.UNSUPPORTED;
  }

  /**
   * Column batches when the query needs only flat columns: then a record is a few numbers and
   * Spark's per-row overhead dominates. Call chains stay rows: Spark copies nested values out of
   * column vectors element by element, but out of the rows the reader builds (already in its binary
   * layout) with one copy each.
   */
  private boolean columnar() {
    if (!read.columnar() || aggregation != null || read.stackRows()) {
      return false;
    }
    for (StructField f : readSchema.fields()) {
      DataType t = f.dataType();
      if (t instanceof ArrayType || t instanceof StructType || t instanceof MapType) {
        return false;
      }
    }
    return true;
  }

  private synchronized Plan plan() {
    if (plan == null) {
      try {
        plan = makePlan();
      } catch (IOException e) {
        throw new UncheckedIOException("profile source: planning failed: " + e.getMessage(), e);
      }
    }
    return plan;
  }

  private Plan makePlan() throws IOException {
    long started = System.nanoTime();
    SparkSession spark = SparkSession.active();
    SQLConf sql = SQLConf.get();
    Configuration conf = HadoopConf.forRead(spark, options);
    List<FileLister.ListedFile> files = index.files();

    long maxPartitionBytes = read.maxPartitionBytes();
    long openCost = read.openCostInBytes();
    int minPartitions =
        read.minPartitionNum() != null
            ? read.minPartitionNum()
            : sql.filesMinPartitionNum().isDefined()
                ? (Integer) sql.filesMinPartitionNum().get()
                : spark.sparkContext().defaultParallelism();
    long totalBytes = 0;
    for (FileLister.ListedFile f : files) {
      totalBytes += f.length();
    }
    long maxSplit =
        SplitPlanner.maxSplitBytes(
            maxPartitionBytes, openCost, minPartitions, totalBytes, files.size());

    List<Slice> slices = new ArrayList<>();
    Map<String, SplitFile> layouts = new HashMap<>();
    Map<String, Block[]> blocks = new HashMap<>();
    Map<String, Long> modifiedByPath = new HashMap<>();
    Map<String, String> notRegularByPath = new HashMap<>();
    for (FileLister.ListedFile f : files) {
      blocks.put(f.path(), f.blocks());
      modifiedByPath.put(f.path(), f.modified());
      if (f.notRegular() != null) {
        notRegularByPath.put(f.path(), f.notRegular());
      }
      SplitFile layout =
          f.length() > maxSplit && f.notRegular() == null ? splittableLayout(f, conf) : null;
      if (layout != null) {
        layouts.put(f.path(), layout);
        slices.addAll(
            SplitPlanner.split(f.path(), f.length(), layout.layout().recordsEnd(), maxSplit));
      } else {
        slices.add(new Slice(f.path(), 0, f.length(), f.length()));
      }
    }
    List<SplitPlanner.Partition> packed = SplitPlanner.pack(slices, maxSplit, openCost, blocks);
    InputPartition[] partitions = new InputPartition[packed.size()];
    for (int i = 0; i < partitions.length; i++) {
      List<Slice> sl = packed.get(i).slices();
      Object[][] values = new Object[sl.size()][];
      long[] modified = new long[sl.size()];
      String[] notRegular = new String[sl.size()];
      for (int j = 0; j < values.length; j++) {
        values[j] = index.partitions().values(sl.get(j).path());
        modified[j] = modifiedByPath.get(sl.get(j).path());
        notRegular[j] = notRegularByPath.get(sl.get(j).path());
      }
      partitions[i] =
          new ProfileInputPartition(
              sl, values, modified, notRegular, packed.get(i).preferredHosts());
    }
    LOG.info(
        "profile source: {} files ({} bytes, {} of them split on record boundaries) in {}"
            + " slices and {} partitions of up to {} bytes, planned in {} ms",
        files.size(),
        totalBytes,
        layouts.size(),
        slices.size(),
        partitions.length,
        maxSplit,
        (System.nanoTime() - started) / 1_000_000);
    return new Plan(partitions, layouts);
  }

  /**
   * The layout of a file worth splitting, or null to read it whole: only an uncompressed file whose
   * format (the read's, and the one its first bytes show) splits and has a layout for it that says
   * it can be split safely.
   */
  private SplitFile splittableLayout(FileLister.ListedFile f, Configuration conf)
      throws IOException {
    ProfileFormat named = ProfileFormats.byName(read.format()); // null: detected per file
    if (HadoopByteSource.isGzip(f.path()) || (named != null && !named.splits())) {
      return null;
    }
    HadoopByteSource src = new HadoopByteSource(f.path(), f.length(), conf, read.gzipLimits());
    byte[] head = new byte[ProfileFormats.HEAD_BYTES];
    int n;
    try (InputStream in = src.open(0)) {
      n = in.readNBytes(head, 0, head.length);
    }
    ProfileFormat format = ProfileFormats.detect(head, n, f.length());
    if (format == null || (named != null && format != named) || !format.splits()) {
      return null; // read whole: the reader reports what it is
    }
    SplitLayout layout =
        format.splitLayout(src, new DecodeOptions(read.formatOptions(), true, true, null));
    if (layout == null) {
      return null;
    }
    if (!layout.splittable()) {
      LOG.warn("profile source: {} is read as one split: {}", f.path(), layout.whyNotSplittable());
      return null;
    }
    return new SplitFile(format.name(), layout);
  }

  /**
   * Equal scans read the same files, columns and filters with the same options, so that Spark can
   * reuse one's plan and exchanges for the other (as its own file scans allow).
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof ProfileScan other
        && read.equals(other.read)
        && readSchema.equals(other.readSchema)
        && index.equals(other.index)
        && java.util.Arrays.equals(pushedFilters, other.pushedFilters)
        && java.util.Objects.equals(aggregation, other.aggregation)
        && exactSums == other.exactSums
        && ReadOptions.hadoopOptions(options).equals(ReadOptions.hadoopOptions(other.options));
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(
        read, readSchema, index, java.util.Arrays.hashCode(pushedFilters), aggregation);
  }
}
