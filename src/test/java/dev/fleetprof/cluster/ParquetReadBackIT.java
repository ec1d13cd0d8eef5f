package dev.fleetprof.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;

/**
 * The job's {@code stacks/} files as any Parquet consumer sees them, read with parquet-hadoop's own
 * reader instead of Spark: the columns carry standard logical types (strings, a LIST of structs, an
 * exact DECIMAL(38,0) count), and the counts add up to the samples' total.
 */
class ParquetReadBackIT {
  @Test
  void stacksFilesHaveStandardTypesAndAddUpToTheSamples() throws Exception {
    Path stacks = FleetJob.localOutput().resolve("stacks");
    List<Path> files;
    try (Stream<Path> s = Files.walk(stacks)) {
      files =
          s.filter(Files::isRegularFile)
              .filter(p -> p.getFileName().toString().endsWith(".parquet"))
              .filter(p -> !p.getFileName().toString().startsWith("."))
              // The table's log: a checkpoint is Parquet too, of Delta's actions, not of rows.
              .filter(p -> !p.getParent().getFileName().toString().equals("_delta_log"))
              .sorted()
              .toList();
    }
    assertFalse(files.isEmpty(), "no Parquet file under " + stacks);

    Configuration conf = new Configuration(false);
    BigInteger total = BigInteger.ZERO;
    long rows = 0;
    for (Path f : files) {
      org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(f.toUri());
      try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
        checkSchema(f, r.getFooter().getFileMetaData().getSchema());
      }
      try (ParquetReader<Group> r =
          ParquetReader.builder(new GroupReadSupport(), path).withConf(conf).build()) {
        for (Group g = r.read(); g != null; g = r.read()) {
          assertEquals(1, g.getFieldRepetitionCount("count"), f + ": a row without a count");
          // A DECIMAL's bytes are its unscaled value, big-endian two's complement.
          total = total.add(new BigInteger(g.getBinary("count", 0).getBytes()));
          rows++;
        }
      }
    }
    assertTrue(rows > 0, "no rows in " + files);
    assertEquals(
        expectedTotal(), total, "sum of count over " + files.size() + " files, " + rows + " rows");
    System.out.println(
        "parquet-hadoop read "
            + rows
            + " stack rows in "
            + files.size()
            + " files, total count "
            + total);
  }

  private static void checkSchema(Path f, MessageType schema) {
    for (String name : List.of("format", "kind")) {
      PrimitiveType t = schema.getType(name).asPrimitiveType();
      assertEquals(PrimitiveTypeName.BINARY, t.getPrimitiveTypeName(), f + ": " + name);
      assertEquals(
          LogicalTypeAnnotation.stringType(), t.getLogicalTypeAnnotation(), f + ": " + name);
    }

    PrimitiveType count = schema.getType("count").asPrimitiveType();
    assertTrue(
        count.getLogicalTypeAnnotation() instanceof DecimalLogicalTypeAnnotation,
        f + ": count is not a DECIMAL: " + count);
    DecimalLogicalTypeAnnotation dec =
        (DecimalLogicalTypeAnnotation) count.getLogicalTypeAnnotation();
    assertEquals(38, dec.getPrecision(), f + ": " + count);
    assertEquals(0, dec.getScale(), f + ": " + count);
    // 38 digits need 16 bytes; INT32/INT64 decimals stop at 9 and 18 digits.
    assertTrue(
        count.getPrimitiveTypeName() == PrimitiveTypeName.BINARY
            || (count.getPrimitiveTypeName() == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                && count.getTypeLength() >= 16),
        f + ": count cannot hold 38 digits: " + count);

    // The standard three-level LIST: frames (LIST) > repeated group > element struct.
    GroupType frames = schema.getType("frames").asGroupType();
    assertEquals(
        LogicalTypeAnnotation.listType(),
        frames.getLogicalTypeAnnotation(),
        f + ": frames is not a LIST: " + frames);
    assertEquals(1, frames.getFieldCount(), f + ": " + frames);
    GroupType repeated = frames.getType(0).asGroupType();
    assertTrue(repeated.isRepetition(Type.Repetition.REPEATED), f + ": " + frames);
    GroupType element = repeated.getType(0).asGroupType();
    assertEquals(2, element.getFieldCount(), f + ": frame struct " + element);
    PrimitiveType module = element.getType("module").asPrimitiveType();
    assertEquals(PrimitiveTypeName.BINARY, module.getPrimitiveTypeName(), f + ": " + element);
    assertEquals(
        LogicalTypeAnnotation.stringType(), module.getLogicalTypeAnnotation(), f + ": " + element);
    PrimitiveType offset = element.getType("offset").asPrimitiveType();
    assertEquals(PrimitiveTypeName.INT64, offset.getPrimitiveTypeName(), f + ": " + element);
  }

  /**
   * The samples' total count straight from the {@code profile} source: each record's count as the
   * unsigned 64-bit value it stores, summed exactly in Java.
   */
  private static BigInteger expectedTotal() throws IOException {
    BigInteger total = BigInteger.ZERO;
    java.util.Iterator<Long> counts =
        TestSpark.get()
            .read()
            .format("profile")
            .load(FleetJob.samples().toString())
            // stacks count samples: a pprof profile's "samples" values where it has that sample
            // type (Go CPU profiles), else the value count holds
            .selectExpr(
                "CASE WHEN format = 'pprof' AND array_contains(pprof.sample_types.type, 'samples')"
                    + " THEN element_at(pprof.values,"
                    + " CAST(array_position(pprof.sample_types.type, 'samples') AS INT))"
                    + " ELSE count END")
            .as(Encoders.LONG())
            .toLocalIterator();
    while (counts.hasNext()) {
      total = total.add(new BigInteger(Long.toUnsignedString(counts.next())));
    }
    return total;
  }
}
