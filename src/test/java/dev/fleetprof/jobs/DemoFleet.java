package dev.fleetprof.jobs;

import dev.fleetprof.testing.SampleData;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** The quick start's fleet job run, for tests outside this package that read its output. */
public final class DemoFleet {
  private DemoFleet() {}

  /**
   * Aggregates the demo fleet ({@code sample-fleet}, named with its binaries) into {@code output}
   * on {@code spark}, as {@code jobs/fleet-aggregate} does with no options.
   */
  public static void aggregate(SparkSession spark, Path output) throws IOException {
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input", SampleData.FLEET.toAbsolutePath().toString(),
              "--output", output.toAbsolutePath().toString(),
              "--binaries", SampleData.FLEET_BINARIES.toAbsolutePath().toString()
            }));
  }
}
