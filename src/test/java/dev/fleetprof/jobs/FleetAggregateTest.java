package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.CpuProfiles.Rec;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fleet job on the real samples: its Parquet output, read back, adds up to the inputs. */
class FleetAggregateTest {
  private final SparkSession spark = TestSpark.get();

  @Test
  void stacksAddUpToEverySampleAndMergeAcrossHosts(@TempDir Path out) throws Exception {
    // Two "hosts" ran the same binary: the same profile under two host directories. Their stacks
    // must merge into one row each (frames, not raw pcs, are the key) with doubled counts.
    Path in = out.resolve("in");
    long expectedTotal = 0;
    int expectedRecords = 0;
    for (String host : new String[] {"web041", "web042"}) {
      Files.createDirectories(in.resolve("host=" + host));
      for (Path p : SampleData.gperftoolsProfiles()) {
        Files.copy(p, in.resolve("host=" + host).resolve(p.getFileName()));
        List<Rec> recs = CpuProfiles.decode(p.toString(), SampleData.read(p)).records();
        expectedTotal += recs.stream().mapToLong(Rec::count).sum();
        expectedRecords += recs.size();
      }
    }
    FleetAggregate.Summary s = FleetAggregate.run(spark,
        FleetAggregate.Args.parse(new String[] {"--input", in.toString(), "--output",
            out.resolve("fleet").toString()}));

    Dataset<Row> stacks = spark.read().parquet(out.resolve("fleet/stacks").toString());
    assertEquals("decimal(38,0)", stacks.schema().apply("count").dataType().simpleString());
    Row totals = stacks.selectExpr("sum(count)", "sum(records)", "count(*)", "min(profiles)",
        "max(profiles)").first();
    assertEquals(BigDecimal.valueOf(expectedTotal), totals.getDecimal(0).stripTrailingZeros()
        .setScale(0));
    assertEquals(expectedRecords, totals.getLong(1));
    assertEquals(expectedTotal, s.totalCount().longValueExact());
    assertEquals(8, s.files(), "4 profiles with records on each of 2 hosts");
    // Every stack was seen on both hosts, so every row has an even count and >= 2 profiles.
    assertEquals(2L, totals.getLong(3));
    assertTrue(stacks.filter("count % 2 != 0").isEmpty(), "both hosts' stacks merged");
  }

  @Test
  void argumentsAreChecked() {
    FleetAggregate.Args a = FleetAggregate.Args.parse(new String[] {"--input", "a", "--input",
        "b", "--output", "o", "--glob", "*.prof"});
    assertEquals(List.of("a", "b"), a.inputs());
    assertEquals("o", a.output());
    assertEquals("*.prof", a.glob());
    assertEquals(List.of("sample-data"), FleetAggregate.Args.parse(new String[0]).inputs());
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FleetAggregate.Args.parse(new String[] {"--bogus"}));
    assertTrue(e.getMessage().contains("--bogus"));
  }

  @Test
  void sqlScriptsSplitOnSemicolonsOutsideQuotesAndComments() {
    assertEquals(List.of("SELECT ';' AS a", "SELECT 2"),
        SqlRunner.split("-- a comment; with a semicolon\nSELECT ';' AS a;\n\nSELECT 2;\n"));
  }
}
