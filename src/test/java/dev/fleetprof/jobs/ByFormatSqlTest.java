package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.testing.SyntheticCpuProfile;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jobs/by-format.sql} sums counts as the unsigned 64-bit values they are: a count stored as
 * 0xFFFFFFFFFFFFFFFF (a bigint of -1) adds 2^64 - 1, and a sum past 2^64 stays exact.
 */
class ByFormatSqlTest {
  private static final BigInteger TWO_TO_64 = BigInteger.TWO.pow(64);
  private static final BigInteger ALL_ONES = TWO_TO_64.subtract(BigInteger.ONE);
  private static final long PERIOD_MICROS = 10000;

  private final SparkSession spark = TestSpark.get();

  /**
   * A gperftools CPU profile (64-bit slots) with counts 2^64 - 1, 2^63 and 5, as the profiler lays
   * it out: header, records (count, depth, pcs), trailer, then the maps text.
   */
  private static byte[] cpuProfile() {
    long pc = SyntheticCpuProfile.EXE_START + 0x100;
    ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0).putLong(3).putLong(0).putLong(PERIOD_MICROS).putLong(0);
    b.putLong(-1L).putLong(1).putLong(pc);
    b.putLong(Long.MIN_VALUE).putLong(1).putLong(pc);
    b.putLong(5).putLong(1).putLong(pc);
    b.putLong(0).putLong(1).putLong(0);
    b.put(SyntheticCpuProfile.MAPS.getBytes(StandardCharsets.US_ASCII));
    return bytes(b);
  }

  /**
   * A GNU gmon.out (version 1, 64-bit little-endian) as glibc writes it for a program built with
   * basic-block counting: a call arc, a basic-block record whose two blocks ran 2^64 - 1 and 3
   * times (a count is pointer-sized), another arc.
   */
  private static byte[] gmon() {
    ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
    b.put("gmon".getBytes(StandardCharsets.US_ASCII)).putInt(1).put(new byte[12]);
    b.put((byte) 1).putLong(0x401020).putLong(0x401100).putInt(5);
    b.put((byte) 2).putInt(2).putLong(0x401100).putLong(-1L).putLong(0x401180).putLong(3);
    b.put((byte) 1).putLong(0x401030).putLong(0x401180).putInt(9);
    return bytes(b);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  @Test
  void countsOfTheWholeUnsignedRangeSumExactly(@TempDir Path tmp) throws Exception {
    Files.write(tmp.resolve("cpu.prof"), cpuProfile());
    Files.write(tmp.resolve("gmon.out"), gmon());

    Map<String, List<Object>> byKind = new HashMap<>();
    for (Row r :
        SqlFiles.run(
                spark,
                tmp.resolve("no-output").toString(),
                "by-format.sql",
                "input",
                tmp.toString())
            .collectAsList()) {
      byKind.put(
          r.getAs("format") + "/" + r.getAs("kind"),
          List.of(r.getAs("rows"), r.getAs("total_count")));
    }

    BigInteger cpu = ALL_ONES.add(BigInteger.TWO.pow(63)).add(BigInteger.valueOf(5));
    BigInteger blocks = ALL_ONES.add(BigInteger.valueOf(3));
    assertEquals(
        Map.of(
            "gperftools/sample", List.of(3L, new BigDecimal(cpu)),
            "gprof/basic_block", List.of(2L, new BigDecimal(blocks)),
            "gprof/arc", List.of(2L, new BigDecimal(14))),
        byKind);

    // Time too counts the unsigned value: count * period microseconds.
    double seconds =
        SqlFiles.run(
                spark,
                tmp.resolve("no-output").toString(),
                "by-format.sql",
                "input",
                tmp.toString())
            .where("format = 'gperftools'")
            .first()
            .getAs("seconds");
    double expected = cpu.doubleValue() * PERIOD_MICROS / 1e6;
    assertEquals(expected, seconds, expected * 1e-12);
  }
}
