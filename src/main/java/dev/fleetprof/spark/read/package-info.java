/**
 * The readers, run in the tasks: {@link dev.fleetprof.spark.read.ProfileReaderFactory} makes one
 * per {@link dev.fleetprof.spark.read.ProfileInputPartition}, which opens each slice ({@link
 * dev.fleetprof.spark.read.SliceOpener}, {@link dev.fleetprof.spark.read.HadoopByteSource}) and
 * turns its records into rows, column batches, stack rows or partial aggregates. The partitions and
 * split layouts ({@link dev.fleetprof.spark.read.SplitFile}) are here rather than with the scan
 * that makes them because only the readers use what they hold; the aggregating readers share {@link
 * dev.fleetprof.spark.read.GroupTable}.
 */
package dev.fleetprof.spark.read;
