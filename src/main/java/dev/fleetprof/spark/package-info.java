/**
 * The {@code profile} data source (DataSource V2): from {@code spark.read().format("profile")} to
 * the rows of profile files, on Spark's public connector API only.
 *
 * <p>The read path: {@link dev.fleetprof.spark.ProfileDataSource} (the short name {@code profile})
 * or {@link dev.fleetprof.spark.ProfileCatalog} (SQL's {@code profile.`PATH`}) gives a {@link
 * dev.fleetprof.spark.ProfileTable} of {@link dev.fleetprof.spark.ProfileSchema}'s columns; its
 * {@link dev.fleetprof.spark.ProfileScanBuilder} takes the query's columns, filters and
 * aggregation; the {@link dev.fleetprof.spark.ProfileScan} plans {@link
 * dev.fleetprof.spark.read.ProfileInputPartition}s on the driver; on the executors, the {@link
 * dev.fleetprof.spark.read.ProfileReaderFactory}'s readers open each slice and turn its records
 * into rows.
 *
 * <p>The classes by concern, a package each, so that the folder names say where to look:
 *
 * <ul>
 *   <li>This package: what Spark and users name ({@link dev.fleetprof.spark.ProfileDataSource},
 *       {@link dev.fleetprof.spark.ProfileCatalog}, {@link dev.fleetprof.spark.ProfileTable}), the
 *       scan ({@link dev.fleetprof.spark.ProfileScanBuilder}, and {@link
 *       dev.fleetprof.spark.ProfileScan}: files cut into splits where their format has a split
 *       layout for them, packed into partitions), the schema, and the options and settings ({@link
 *       dev.fleetprof.spark.ReadOptions}, {@link dev.fleetprof.spark.ProblemPolicy}, {@link
 *       dev.fleetprof.spark.HadoopConf}, {@link dev.fleetprof.spark.SerializableConfiguration}).
 *   <li>{@code listing/}: listing and partitions: {@link dev.fleetprof.spark.listing.FileLister}
 *       (paths to files, as Spark's file sources list them), {@link
 *       dev.fleetprof.spark.listing.PartitionDiscovery} ({@code key=value} directories to columns),
 *       {@link dev.fleetprof.spark.listing.ProfileFileIndex} (one read's files).
 *   <li>{@code pushdown/}: {@link dev.fleetprof.spark.pushdown.RequiredColumns} (column pruning),
 *       {@link dev.fleetprof.spark.pushdown.PartitionFilters} (files skipped by their partition
 *       values), {@link dev.fleetprof.spark.pushdown.PushedAggregation} (an aggregation the readers
 *       compute in part).
 *   <li>{@code read/}: the readers. {@link dev.fleetprof.spark.read.ProfileReaderFactory} makes one
 *       per {@link dev.fleetprof.spark.read.ProfileInputPartition} (its slices; {@link
 *       dev.fleetprof.spark.read.SplitFile}, the layouts of split files); {@link
 *       dev.fleetprof.spark.read.ProfilePartitionReader} (rows), {@link
 *       dev.fleetprof.spark.read.ProfileColumnarReader} (batches, {@code columnar/}), {@link
 *       dev.fleetprof.spark.read.StackRowsReader} and {@link
 *       dev.fleetprof.spark.read.PartialAggregateReader} (with {@link
 *       dev.fleetprof.spark.read.GroupTable}) walk a partition's slices; {@link
 *       dev.fleetprof.spark.read.SliceOpener} and {@link dev.fleetprof.spark.read.HadoopByteSource}
 *       open them; {@link dev.fleetprof.spark.read.RowSource} and {@link
 *       dev.fleetprof.spark.read.ProfileRows} make rows, with {@link
 *       dev.fleetprof.spark.read.UnsafeChains} (call chains in Spark's binary layout) and the
 *       formats' own columns ({@link dev.fleetprof.spark.read.FormatColumns}, by the names a format
 *       declares: {@link dev.fleetprof.spark.read.GprofHistogramColumn}, {@link
 *       dev.fleetprof.spark.read.DcpiHeaderColumn}, {@link dev.fleetprof.spark.read.PprofColumn});
 *       {@link dev.fleetprof.spark.read.ProblemHandler} turns a bad file into an error row, a drop
 *       or a failure, as the read's mode says; {@link dev.fleetprof.spark.read.ReadMetrics} counts
 *       a task's metrics.
 *   <li>{@code columnar/} (the column batches of chain-free queries) and {@code metrics/} (the scan
 *       node's metrics in the Spark UI).
 * </ul>
 *
 * <p>The file formats themselves are decoded by {@link dev.fleetprof.format}, which knows nothing
 * of Spark; this package asks a format only through {@link dev.fleetprof.format.ProfileFormat} (its
 * signature, reader, split layout and slice reader, columns, caller frames), so a new format needs
 * no change here.
 */
package dev.fleetprof.spark;
