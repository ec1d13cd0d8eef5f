package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counts of the whole unsigned 64-bit range add up exactly through every level the job aggregates
 * at (file, host, fleet, location, module): each level sums the one below, so a count that turned
 * negative or lost its top bits at any of them shows here.
 */
class FleetAggregateCountsTest {
  private final SparkSession spark = TestSpark.get();

  private static final long A = SyntheticCpuProfile.EXE_START + 0x100;
  private static final long B = SyntheticCpuProfile.EXE_START + 0x200;
  private static final long C = SyntheticCpuProfile.LIBC_START + 0x300;
  private static final String EXE = "/usr/bin/fleet-server";
  private static final String LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";

  /** 2^64 - 1, then the same chain again with a count that sets a bit in every piece. */
  private static final BigInteger RECURSIVE =
      BigInteger.TWO
          .pow(64)
          .subtract(BigInteger.ONE)
          .add(BigInteger.TWO.pow(44).add(BigInteger.TWO.pow(22)).add(BigInteger.valueOf(7)));

  private static final BigInteger TOP_BIT = BigInteger.TWO.pow(63);

  private static byte[] profile() {
    ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0).putLong(3).putLong(0).putLong(10000).putLong(0);
    b.putLong(-1L).putLong(3).putLong(A).putLong(B).putLong(B);
    b.putLong(Long.MIN_VALUE).putLong(2).putLong(B).putLong(C);
    b.putLong((1L << 44) + (1L << 22) + 7).putLong(3).putLong(A).putLong(B).putLong(B);
    b.putLong(0).putLong(1).putLong(0);
    b.put(SyntheticCpuProfile.MAPS.getBytes(StandardCharsets.US_ASCII));
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  private static BigDecimal dec(BigInteger v) {
    return new BigDecimal(v);
  }

  private static BigInteger times(long n, BigInteger v) {
    return v.multiply(BigInteger.valueOf(n));
  }

  @Test
  void fullRangeCountsAddUpExactlyInEveryDataset(@TempDir Path tmp) throws Exception {
    new FleetFixture(tmp.resolve("in"))
        .write("2026-11-20", "h1", "a.prof", profile())
        .write("2026-11-20", "h1", "b.prof", profile())
        .write("2026-11-20", "h2", "a.prof", profile());
    String out = tmp.resolve("out").toString();
    BigInteger perFile = RECURSIVE.add(TOP_BIT);
    FleetSummary s =
        FleetAggregate.run(
            spark,
            FleetAggregate.Args.parse(
                new String[] {"--input", tmp.resolve("in").toString(), "--output", out}));
    assertEquals(dec(times(3, perFile)), s.totalCount());

    Map<Long, BigDecimal> stacks = new HashMap<>();
    for (Row r :
        spark
            .read()
            .parquet(out + "/stacks")
            .selectExpr("size(frames)", "count", "records", "profiles", "hosts")
            .collectAsList()) {
      stacks.put((long) r.getInt(0), r.getDecimal(1));
      assertEquals(List.of(3L, 2L), List.of(r.getLong(3), r.getLong(4)), "profiles, hosts");
    }
    assertEquals(Map.of(3L, dec(times(3, RECURSIVE)), 2L, dec(times(3, TOP_BIT))), stacks);

    assertEquals(
        dec(times(2, perFile)),
        spark
            .read()
            .parquet(out + "/host_stacks")
            .where("host = 'h1'")
            .selectExpr("sum(count)")
            .first()
            .getDecimal(0));
    for (Row r : spark.read().parquet(out + "/files").collectAsList()) {
      assertEquals(dec(perFile), r.getAs("count"));
    }

    // Recursion: B calls itself (its return address twice on the stack) and counts once; B is
    // also the leaf of the other stack. Caller frames are return addresses minus one, as in pprof.
    Map<String, List<BigDecimal>> locations = new HashMap<>();
    for (Row r : spark.read().parquet(out + "/locations").collectAsList()) {
      locations.put(
          r.getAs("module") + "+" + Long.toHexString(r.getAs("offset")),
          List.of(r.getAs("self_count"), r.getAs("total_count")));
    }
    assertEquals(
        Map.of(
            EXE + "+1100", List.of(dec(times(3, RECURSIVE)), dec(times(3, RECURSIVE))),
            EXE + "+11ff", List.of(dec(BigInteger.ZERO), dec(times(3, RECURSIVE))),
            EXE + "+1200", List.of(dec(times(3, TOP_BIT)), dec(times(3, TOP_BIT))),
            LIBC + "+282ff", List.of(dec(BigInteger.ZERO), dec(times(3, TOP_BIT)))),
        locations);

    Map<String, List<BigDecimal>> modules = new HashMap<>();
    for (Row r : spark.read().parquet(out + "/modules").where("host = 'h1'").collectAsList()) {
      modules.put(r.getAs("module"), List.of(r.getAs("self_count"), r.getAs("total_count")));
    }
    assertEquals(
        Map.of(
            EXE,
            List.of(dec(times(2, perFile)), dec(times(2, perFile))),
            LIBC,
            List.of(dec(BigInteger.ZERO), dec(times(2, TOP_BIT)))),
        modules);
  }
}
