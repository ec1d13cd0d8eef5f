/**
 * The files of one read, found once on the driver: {@link dev.fleetprof.spark.listing.FileLister}
 * lists the paths as Spark's file sources do, {@link
 * dev.fleetprof.spark.listing.PartitionDiscovery} makes {@code key=value} directories columns, and
 * {@link dev.fleetprof.spark.listing.ProfileFileIndex} keeps both for the table and its scans.
 * Together because they decide which files a read sees and with which partition values; nothing
 * here opens a file.
 */
package dev.fleetprof.spark.listing;
