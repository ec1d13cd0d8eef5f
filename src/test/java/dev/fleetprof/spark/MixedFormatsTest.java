package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.GeneratedCode;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * All of sample-data in one DataFrame: every file gets the right format, and each format's totals
 * agree with its reference (gprof's flat profile; the DCPI generator's expected values).
 */
@ExtendWith(GeneratedCode.class)
class MixedFormatsTest {
  private final SparkSession spark = TestSpark.get();

  private static String name(String uri) {
    Path p = Path.of(java.net.URI.create(uri));
    return p.getParent().getFileName() + "/" + p.getFileName();
  }

  @Test
  void everyFileOfSampleDataGetsItsFormat() {
    Dataset<Row> df = spark.read().format("profile").load(SampleData.ROOT.toString());
    Map<String, String> formats = new HashMap<>();
    for (Row r : df.select("path", "format").distinct().collectAsList()) {
      formats.put(name(r.getString(0)), r.getString(1));
    }
    assertEquals("gperftools", formats.get("gperftools/x86_32.prof"));
    assertEquals("gprof", formats.get("c-pie-64/gmon.out"));
    assertEquals("gprof", formats.get("c-pie-64-bsd/gmon.bsd"), "old BSD format, no magic");
    assertEquals("gprof", formats.get("c-pie-64-bsd44/gmon.bsd44"));
    assertEquals("dcpi", formats.get("dcpi/valid-medium.prof"));
    assertTrue(formats.keySet().stream().noneMatch(n -> n.contains("_reference")), "skipped");
    assertEquals(
        List.of("arc", "histogram", "sample"),
        df
            .select("kind")
            .distinct()
            .orderBy("kind")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList()
            .stream()
            .filter(k -> !k.equals("basic_block"))
            .toList());
  }

  /** gprof's flat profile: the last "cumulative seconds" is the histogram's total time. */
  private static double gprofTotalSeconds(Path flat) throws Exception {
    double total = 0;
    for (String line : Files.readAllLines(flat)) {
      String[] f = line.strip().split("\\s+");
      if (f.length >= 3 && f[0].matches("\\d+\\.\\d+") && f[1].matches("\\d+\\.\\d+")) {
        total = Math.max(total, Double.parseDouble(f[1]));
      }
    }
    return total;
  }

  @Test
  void gprofHistogramSecondsMatchGprofsFlatProfile() throws Exception {
    for (SampleData.Gmon sample :
        List.of(SampleData.GMON_C_PIE_64, SampleData.GMON_CXX_NOPIE_64, SampleData.GMON_C_32)) {
      Path file = sample.gmon();
      Row r =
          spark
              .read()
              .format("profile")
              .load(file.toString())
              .filter("kind = 'histogram'")
              .selectExpr(
                  "sum(count / histogram.rate)",
                  "min(histogram.dimension)",
                  "bool_and(histogram.limit > pcs[0])",
                  "count(*)",
                  "min(period)",
                  "min(frames[0].offset = pcs[0])",
                  "count(mapping)")
              .first();
      double expected = gprofTotalSeconds(sample.text("gprof-p.txt"));
      assertEquals(expected, r.getDouble(0), 0.006, sample + " histogram seconds");
      assertEquals("seconds", r.getString(1));
      assertTrue(r.getBoolean(2), "every bin ends after it starts");
      assertTrue(r.getLong(3) > 0);
      assertEquals(10000L, r.getLong(4), "100 Hz: one tick is 10000 microseconds");
      assertTrue(r.getBoolean(5), "gprof frames carry the link-time address");
      assertEquals(0L, r.getLong(6), "gmon files list no mappings");
    }
  }

  @Test
  void dcpiTotalsMatchTheGeneratorsExpectedValues() throws Exception {
    for (String name :
        new String[] {
          "valid-medium.prof", "valid-large.prof", "valid-unaligned.prof", "valid-bigcounts.prof"
        }) {
      Map<String, String> e = SampleData.dcpiExpected(name);
      Row r =
          spark
              .read()
              .format("profile")
              .load(SampleData.DCPI.resolve(name).toString())
              .selectExpr(
                  "count(*)",
                  "sum(cast(count AS decimal(38,0)))",
                  "min(pcs[0])",
                  "max(pcs[0])",
                  "min(frames[0].offset = pcs[0] - mapping.start)",
                  "min(mapping.path = frames[0].module)",
                  "min(period_unit = dcpi.event)")
              .first();
      assertEquals(Long.parseLong(e.get("nonzero_addresses")), r.getLong(0), name);
      assertEquals(new java.math.BigDecimal(e.get("sum_counts")), r.getDecimal(1), name);
      assertEquals(
          Long.parseUnsignedLong(e.get("first_address").substring(2), 16), r.getLong(2), name);
      assertEquals(
          Long.parseUnsignedLong(e.get("last_address").substring(2), 16), r.getLong(3), name);
      assertTrue(r.getBoolean(4) && r.getBoolean(5) && r.getBoolean(6), name);
    }
    Row h =
        spark
            .read()
            .format("profile")
            .load(SampleData.DCPI.resolve("valid-medium.prof").toString())
            .selectExpr(
                "dcpi.event",
                "dcpi.image",
                "cast(dcpi.epoch AS string)",
                "period",
                "dcpi.header['platform']")
            .first();
    assertEquals("cycles", h.getString(0));
    assertEquals("3a5f0c1e9b7d2468", h.getString(1));
    assertEquals("1998-03-01 12:30:00", h.getString(2).substring(0, 19));
    assertEquals(62464L, h.getLong(3));
    assertEquals("alpha-osf1-v4.0", h.getString(4));
  }

  @Test
  void decoderOptionsReachTheDecoders() {
    String insn = SampleData.DCPI_REFERENCE.resolve("valid-instructions.prof").toString();
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("mode", "FAILFAST")
                    .load(insn)
                    .collectAsList());
    assertTrue(ProfileSourceTest.fullMessage(e).contains("valid-instructions.prof"));
    assertTrue(
        spark.read().format("profile").option("dcpi.offsetUnit", "instructions").load(insn).count()
            > 0);

    Exception forced =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () ->
                spark
                    .read()
                    .format("profile")
                    .option("mode", "FAILFAST")
                    .option("gmon.pointerSize", "4")
                    .load(SampleData.gmonOut("c-pie-64").toString())
                    .collectAsList());
    assertTrue(
        ProfileSourceTest.fullMessage(forced).contains("gmon.out"),
        ProfileSourceTest.fullMessage(forced));
  }
}
