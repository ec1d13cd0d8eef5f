/**
 * What a scan takes from a query so that less is read: {@link
 * dev.fleetprof.spark.pushdown.RequiredColumns} (the columns it needs), {@link
 * dev.fleetprof.spark.pushdown.PartitionFilters} (files skipped by their partition values) and
 * {@link dev.fleetprof.spark.pushdown.PushedAggregation} (an aggregation the readers compute in
 * part). Together because the scan builder decides each on the driver and the readers only follow
 * it: the partial aggregation itself is {@code read/}'s {@code PartialAggregateReader}.
 */
package dev.fleetprof.spark.pushdown;
