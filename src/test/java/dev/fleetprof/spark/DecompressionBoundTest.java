package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.spark.read.HadoopByteSource;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .gz} inputs are bounded: a gzip bomb (a CPU profile's header followed by gigabytes of zero
 * slots, a few MB compressed) is refused within seconds in every mode, naming the file, the
 * decompressed offset and the option to raise, while real profiles gzipped read exactly as plain.
 */
class DecompressionBoundTest {
  private static final long MIB = 1 << 20;

  /** Zero bytes per gzip member of the bomb; 64 members make 4 GiB. */
  private static final int ZEROS_PER_MEMBER = 64 << 20;

  private static SparkSession spark;
  @TempDir static Path dir;
  private static Path bomb;
  private static long bombCompressed;

  @BeforeAll
  static void layOut() throws IOException {
    spark = TestSpark.get();
    // A real header (the first 5 slots of a 64-bit profile), then zeros: records of count 0 and
    // depth 0 for as long as the data lasts. The zeros are one gzip member compressed once and
    // repeated (gzip readers read concatenated members as one stream, as pigz and `cat` make
    // them), so that the 4 GiB need not be compressed at test time.
    byte[] profile = SampleData.read(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    byte[] header = Arrays.copyOf(profile, 40);
    byte[] zerosMember = gzip(new byte[ZEROS_PER_MEMBER]);
    bomb = dir.resolve("zeros.prof.gz");
    try (OutputStream out = Files.newOutputStream(bomb)) {
      out.write(gzip(header));
      for (int i = 0; i < 64; i++) {
        out.write(zerosMember);
      }
    }
    bombCompressed = Files.size(bomb);
    assertTrue(bombCompressed > 4_000_000 && bombCompressed < 5_000_000, "about 4 MB");
  }

  /** {@code data} gzipped at level 9, as {@code gzip -9} does. */
  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream out =
        new GZIPOutputStream(bytes, 1 << 16) {
          {
            def.setLevel(Deflater.BEST_COMPRESSION);
          }
        }) {
      out.write(data);
    }
    return bytes.toByteArray();
  }

  private static Dataset<Row> read(Path file, Map<String, String> options) {
    return spark.read().format("profile").options(options).load(file.toString());
  }

  private static long offsetIn(String message) {
    String at = "at byte offset ";
    int i = message.indexOf(at) + at.length();
    return Long.parseLong(message.substring(i, message.indexOf(':', i)));
  }

  @Test
  @Timeout(60)
  void permissiveKeepsTheRecordsBeforeTheBoundAndAddsAnErrorRow() {
    Dataset<Row> df = read(bomb, Map.of("mode", "PERMISSIVE"));
    List<Row> errors =
        df.where("kind = 'error'").select("path", "record_offset", "error").collectAsList();
    assertEquals(1, errors.size());
    Row e = errors.get(0);
    String message = e.getString(2);
    assertTrue(e.getString(0).endsWith("/zeros.prof.gz"), e.getString(0));
    assertTrue(message.contains("zeros.prof.gz"), message);
    assertTrue(message.contains("option maxCompressionRatio=500"), message);
    assertTrue(message.contains("raise maxCompressionRatio"), message);
    long offset = e.getLong(1);
    assertEquals(offset, offsetIn(message), "the row's offset is the message's");
    // Checked from 64 MiB on; the first read past that finds zeros far above 500:1.
    assertTrue(offset >= 64 * MIB && offset <= 80 * MIB, "offset " + offset);
    // Every 16 bytes after the 40-byte header were a record: none past the offset.
    long records = df.where("kind <> 'error'").count();
    assertEquals((offset - 40) / 16, records);
  }

  @Test
  @Timeout(60)
  void dropMalformedCountsTheBombAsAProblem() {
    Dataset<Row> errors = read(bomb, Map.of("mode", "DROPMALFORMED")).where("kind = 'error'");
    assertEquals(0, errors.collectAsList().size());
    assertEquals(1, TestSpark.scanMetric(errors, ProfileMetrics.PROBLEMS));
  }

  @Test
  @Timeout(60)
  void failFastFailsNamingTheFileOffsetAndOption() {
    Exception e =
        assertThrows(
            Exception.class, () -> read(bomb, Map.of("mode", "FAILFAST")).select("count").count());
    String message = messages(e);
    assertTrue(message.contains("zeros.prof.gz: at byte offset "), message);
    assertTrue(message.contains("a gzip bomb? raise maxCompressionRatio to read it"), message);
  }

  /**
   * gprof files are tried under each layout that might fit, each from the start: a bomb is refused
   * in each, and the reading that got furthest (the refusal) is the one reported.
   */
  @Test
  @Timeout(60)
  void aGmonHistogramOfZerosIsRefusedToo() throws IOException {
    ByteBuffer header = ByteBuffer.allocate(20 + 41).order(ByteOrder.LITTLE_ENDIAN);
    header.put("gmon".getBytes(StandardCharsets.US_ASCII)).putInt(1).put(new byte[12]);
    int bins = Integer.MAX_VALUE; // 4 GiB of 2-byte bins, all zero
    header.put((byte) 0).putLong(0x400000L).putLong(0x400000L + 4L * bins).putInt(bins);
    header.putInt(100).put(Arrays.copyOf("seconds".getBytes(StandardCharsets.US_ASCII), 15));
    header.put((byte) 's');
    Path gmon = dir.resolve("gmon-zeros.out.gz");
    try (OutputStream out = Files.newOutputStream(gmon)) {
      out.write(gzip(header.array()));
      byte[] zerosMember = gzip(new byte[ZEROS_PER_MEMBER]);
      for (int i = 0; i < 64; i++) {
        out.write(zerosMember);
      }
    }
    Exception e =
        assertThrows(
            Exception.class,
            () -> read(gmon, Map.of("mode", "FAILFAST", "format", "gprof")).count());
    String message = messages(e);
    assertTrue(message.contains("gmon-zeros.out.gz: at byte offset "), message);
    assertTrue(message.contains("raise maxCompressionRatio to read it"), message);
  }

  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  @Test
  @Timeout(60)
  void aHigherRatioReadsFurtherUntilTheAbsoluteBound() {
    String message =
        read(
                bomb,
                Map.of(
                    ReadOptions.MAX_COMPRESSION_RATIO.name(), "2000",
                    ReadOptions.MAX_DECOMPRESSED_BYTES.name(), "96m"))
            .where("kind = 'error'")
            .select("error")
            .first()
            .getString(0);
    assertEquals(96 * MIB, offsetIn(message), message);
    assertTrue(message.contains("decompressed past " + 96 * MIB + " bytes (ratio "), message);
    assertTrue(message.contains("option maxDecompressedBytes=" + 96 * MIB), message);
  }

  @Test
  void realProfilesGzippedReadExactlyAsPlainOnesAndAsPprofCounts() throws IOException {
    for (Path sample : SampleData.gperftoolsProfiles()) {
      String name = sample.getFileName().toString();
      Path gz = dir.resolve(name + ".gz");
      Files.write(gz, gzip(Files.readAllBytes(sample)));
      String columns = "kind, count, pcs, record_offset, frames, period";
      List<Row> plain = read(sample, Map.of()).selectExpr(columns.split(", ")).collectAsList();
      List<Row> zipped = read(gz, Map.of()).selectExpr(columns.split(", ")).collectAsList();
      assertEquals(rowStrings(plain), rowStrings(zipped), name);
      assertTrue(zipped.stream().noneMatch(r -> r.getString(0).equals("error")), name);
      long total = zipped.stream().mapToLong(r -> r.getLong(1)).sum();
      assertEquals(SampleData.pprofSampleCount(sample), total, name);
    }
  }

  private static List<String> rowStrings(List<Row> rows) {
    return rows.stream().map(Row::toString).sorted().toList();
  }

  @Test
  void smallFilesAreNeverRefusedForTheirRatio() throws IOException {
    Path sample = SampleData.GPERFTOOLS.resolve("deep_recursion.prof");
    Path gz = dir.resolve("deep_recursion-ratio.prof.gz");
    byte[] data = Files.readAllBytes(sample);
    byte[] compressed = gzip(data);
    Files.write(gz, compressed);
    assertTrue(data.length > 20 * compressed.length, "compresses well: " + compressed.length);
    Dataset<Row> df =
        read(gz, Map.of(ReadOptions.MAX_COMPRESSION_RATIO.name(), "1", "mode", "FAILFAST"));
    assertEquals(
        SampleData.pprofSampleCount(sample), df.selectExpr("sum(count)").first().getLong(0));
  }

  @Test
  void aLowMaxDecompressedBytesRefusesARealProfileNamingIt() throws IOException {
    Path sample = SampleData.GPERFTOOLS.resolve("multithreaded.prof");
    Path gz = dir.resolve("multithreaded-small-bound.prof.gz");
    Files.write(gz, gzip(Files.readAllBytes(sample)));
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                read(
                        gz,
                        Map.of(
                            ReadOptions.MAX_DECOMPRESSED_BYTES.name(), "10k", "mode", "FAILFAST"))
                    .select("count")
                    .count());
    String message = messages(e);
    assertTrue(
        message.contains(
            "multithreaded-small-bound.prof.gz: at byte offset 10240: decompressed past 10240"
                + " bytes"),
        message);
    assertTrue(message.contains("raise maxDecompressedBytes to read it"), message);
  }

  /** The bound at the stream: a file of exactly N bytes reads whole; one more byte is refused. */
  @Test
  void aFileOfExactlyTheBoundReadsAndOneByteMoreIsRefused() throws IOException {
    byte[] data = new byte[5000];
    Arrays.fill(data, (byte) 'x');
    Path exact = dir.resolve("exact.gz");
    Files.write(exact, gzip(data));
    HadoopByteSource.GzipLimits limits = new HadoopByteSource.GzipLimits(5000, 2);
    try (InputStream in = source(exact, limits).open(0)) {
      assertEquals(5000, in.readAllBytes().length);
    }
    HadoopByteSource.GzipLimits lower = new HadoopByteSource.GzipLimits(4999, 2);
    HadoopByteSource refusing = source(exact, lower);
    try (InputStream in = refusing.open(0)) {
      byte[] buf = new byte[8192];
      int n = in.readNBytes(buf, 0, 4999);
      assertEquals(4999, n, "every byte up to the bound is delivered");
      ProfileFormatException e = assertThrows(ProfileFormatException.class, in::read);
      assertEquals(4999, e.offset());
      assertEquals(refusing.name(), e.file());
      ProfileFormatException again = assertThrows(ProfileFormatException.class, () -> in.read(buf));
      assertEquals(e.getMessage(), again.getMessage(), "no read gets past a refusal");
    }
  }

  private static HadoopByteSource source(Path file, HadoopByteSource.GzipLimits limits)
      throws IOException {
    return new HadoopByteSource(
        file.toUri().toString(), Files.size(file), new Configuration(), limits);
  }

  @Test
  void badValuesOfTheOptionsFailNamingThem() {
    for (Map.Entry<String, String> bad :
        List.of(
            Map.entry(ReadOptions.MAX_DECOMPRESSED_BYTES.name(), "lots"),
            Map.entry(ReadOptions.MAX_DECOMPRESSED_BYTES.name(), "0"),
            Map.entry(ReadOptions.MAX_COMPRESSION_RATIO.name(), "0.5"),
            Map.entry(ReadOptions.MAX_COMPRESSION_RATIO.name(), "NaN"),
            Map.entry(ReadOptions.MAX_COMPRESSION_RATIO.name(), "many"))) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  new ReadOptions(
                      new CaseInsensitiveStringMap(
                          Map.of("path", "/x", bad.getKey(), bad.getValue()))),
              bad.toString());
      assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
    }
    ReadOptions read =
        new ReadOptions(
            new CaseInsensitiveStringMap(
                Map.of("path", "/x", "maxdecompressedbytes", "2g", "MAXCOMPRESSIONRATIO", "50")));
    assertEquals(new HadoopByteSource.GzipLimits(2L << 30, 50), read.gzipLimits());
    assertTrue(
        ReadOptions.hadoopOptions(
                new CaseInsensitiveStringMap(Map.of("maxCompressionRatio", "50", "fs.x", "1")))
            .keySet()
            .equals(java.util.Set.of("fs.x")),
        "the options are the source's own, not Hadoop's");
  }
}
