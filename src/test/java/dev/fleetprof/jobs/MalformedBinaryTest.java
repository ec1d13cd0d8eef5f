package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.ElfSection;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A binary whose debug information is malformed leaves its locations unnamed, with the reason, like
 * a missing binary: it never fails the job, and the other modules are still named.
 */
class MalformedBinaryTest {
  @Test
  void malformedDwarfLeavesFramesUnnamedAndTheRestNamed(@TempDir Path tmp) throws Exception {
    SparkSession spark = TestSpark.get();
    Path bins = Files.createDirectories(tmp.resolve("bins"));
    Path bin = SampleData.GPERFTOOLS_BINARIES;
    Files.copy(bin.resolve("shared_library"), bins.resolve("shared_library"));
    Files.copy(bin.resolve("libwork.so"), bins.resolve("libwork.so"));
    // The unit header of .debug_info says 64-bit DWARF with a length of 2^64-1 bytes.
    Path broken = bins.resolve("shared_library");
    long at;
    try (ElfFile elf = ElfFile.open(broken)) {
      ElfSection info = elf.section(".debug_info").orElseThrow();
      at = info.offset();
    }
    try (FileChannel ch = FileChannel.open(broken, StandardOpenOption.WRITE)) {
      ch.write(
          java.nio.ByteBuffer.wrap(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}),
          at);
    }
    StructType schema =
        new StructType()
            .add("format", DataTypes.StringType)
            .add("module", DataTypes.StringType)
            .add("offset", DataTypes.LongType);
    String exe = "/tmp/fleetprof-gperftools-build/shared_library";
    String lib = "/tmp/fleetprof-gperftools-build/libwork.so";
    List<Row> locations =
        List.of(
            RowFactory.create("gperftools", exe, 0x1190L),
            RowFactory.create("gperftools", exe, 0x11a0L),
            RowFactory.create("gperftools", lib, 0x1110L));
    List<Row> got =
        Symbolization.symbolize(
                spark,
                spark.createDataFrame(locations, schema),
                new Symbolization.Options(List.of(bins.toString()), false))
            .orderBy("module", "offset")
            .collectAsList();
    assertEquals(3, got.size());
    Row named = got.get(0);
    assertEquals(lib, named.getString(1));
    assertTrue(!named.isNullAt(3) && named.getList(3).size() > 0, "libwork.so is named: " + named);
    for (Row r : got.subList(1, 3)) {
      assertNull(r.get(3), "no names from a malformed binary: " + r);
      assertTrue(r.getString(4).startsWith("cannot read the symbols of "), r.getString(4));
    }
  }
}
