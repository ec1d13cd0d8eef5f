package dev.fleetprof.spark.read;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.spark.ReadOptions;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A file on any Hadoop FileSystem (local, HDFS, S3A, ...) as a decoder's {@link ByteSource}. Files
 * whose names end in {@code .gz} (and, through {@link #decompressed()}, gzip data the reader chose
 * to inflate) are decompressed transparently (and have an unknown length, so they are never split),
 * within the {@link GzipLimits}: a gzip bomb fails its read with a {@link ProfileFormatException}
 * at the decompressed offset where a limit was passed.
 */
public final class HadoopByteSource implements ByteSource {
  private final Path path;
  private final Configuration conf;
  private final long length;
  private final boolean gzip;
  private final GzipLimits limits;

  /** A source with the default {@link GzipLimits}. */
  public HadoopByteSource(String path, long length, Configuration conf) {
    this(path, length, conf, GzipLimits.DEFAULT);
  }

  public HadoopByteSource(String path, long length, Configuration conf, GzipLimits limits) {
    this(path, length, conf, limits, isGzip(path));
  }

  private HadoopByteSource(
      String path, long length, Configuration conf, GzipLimits limits, boolean gzip) {
    this.path = new Path(path);
    this.conf = conf;
    this.length = length;
    this.gzip = gzip;
    this.limits = limits;
  }

  /**
   * The same file read through gzip whatever its name, within the same limits: for gzip data in a
   * file not named {@code .gz} (Go writes its pprof profiles gzipped under any name).
   */
  public HadoopByteSource decompressed() {
    return gzip ? this : new HadoopByteSource(path.toString(), length, conf, limits, true);
  }

  /** Whether {@code head} starts with gzip's magic bytes. */
  public static boolean isGzipData(byte[] head, int len) {
    return len >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
  }

  public static boolean isGzip(String path) {
    return path.endsWith(".gz");
  }

  @Override
  public String name() {
    return path.toString();
  }

  @Override
  public long length() {
    return gzip ? -1 : length;
  }

  public boolean gzip() {
    return gzip;
  }

  /**
   * Reads the first {@code length} bytes of the (uncompressed) file into {@code into} with one open
   * and one positioned read; a file that shrank since it was listed fails with an EOFException.
   */
  public void readFully(byte[] into, int length) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    if (fs instanceof LocalFileSystem local) {
      // The checksummed local file system looks for a .crc file beside every file it opens (a
      // failed open and an exception each time), which cost more than reading a small profile;
      // profilers write no .crc files.
      fs = local.getRawFileSystem();
    }
    try (FSDataInputStream in = fs.open(path, 4096)) {
      in.readFully(0, into, 0, length);
    }
  }

  @Override
  public InputStream open(long offset) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    FSDataInputStream in = fs.open(path, 1 << 20);
    try {
      if (gzip) {
        if (offset != 0) {
          throw new IOException(path + ": a gzip file can only be read from its start");
        }
        CountingStream compressed = new CountingStream(in);
        return new BoundedGzipStream(
            path.toString(), new GZIPInputStream(compressed, 1 << 16), compressed, limits);
      }
      if (offset > 0) {
        in.seek(offset);
      }
      return in;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /**
   * How far a {@code .gz} file may inflate: at most {@code maxDecompressedBytes} bytes, and, once
   * past {@link #RATIO_CHECKED_FROM} decompressed bytes, at most {@code maxCompressionRatio} times
   * the compressed bytes read so far (so that small files, whose headers and zero-filled tables
   * compress well, are never refused by the ratio).
   *
   * <p>The defaults were chosen from measured ratios (decompressed / compressed, {@code gzip -9}):
   * the sample gperftools profiles 6.1-27.9, the sample DCPI files 1.0-4.5 and gmon.out files
   * 14.6-18.5; 256 MiB inputs generated as {@code bench/} makes them 2.5 (gperftools, a pool of
   * 100,000 stacks), 2.7 (gmon.out) and 2.8 (DCPI); a 64 MiB gmon histogram with only 1 bin in
   * 1,000 non-zero (a large, mostly idle program) 317 and with 1 in 100 48. Zeros compress 1,030:1
   * (deflate's limit), so a ratio bound of 500 refuses them and leaves real profiles a wide margin;
   * 16 GiB is 4 times the largest profile the benchmarks read. A file of zeros is refused after 64
   * MiB, well under a second of decompression.
   */
  public record GzipLimits(long maxDecompressedBytes, double maxCompressionRatio)
      implements Serializable {
    public static final long DEFAULT_MAX_DECOMPRESSED_BYTES = 16L << 30;
    public static final double DEFAULT_MAX_COMPRESSION_RATIO = 500;

    /** The ratio is checked only once this many bytes have been decompressed. */
    public static final long RATIO_CHECKED_FROM = 64L << 20;

    public static final GzipLimits DEFAULT =
        new GzipLimits(DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_COMPRESSION_RATIO);

    public GzipLimits {
      if (maxDecompressedBytes <= 0) {
        throw new IllegalArgumentException("maxDecompressedBytes must be positive");
      }
      if (!(maxCompressionRatio >= 1)) {
        throw new IllegalArgumentException("maxCompressionRatio must be a number of at least 1");
      }
    }
  }

  /** Counts the bytes read through it: the compressed bytes the inflater has taken. */
  private static final class CountingStream extends FilterInputStream {
    long count;

    CountingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = in.skip(n);
      count += skipped;
      return skipped;
    }
  }

  /**
   * The decompressed stream, checked against the {@link GzipLimits} before each read: every byte up
   * to a limit is delivered, and the read after fails at that offset (and every read after it, so
   * that no caller can read past a refusal). The compressed count runs ahead of the inflater by at
   * most its input buffer (64 KiB), which only lowers the ratio seen.
   */
  private static final class BoundedGzipStream extends InputStream {
    private final String file;
    private final InputStream inflated;
    private final CountingStream compressed;
    private final GzipLimits limits;
    private long decompressed;
    private ProfileFormatException refused;

    BoundedGzipStream(
        String file, InputStream inflated, CountingStream compressed, GzipLimits limits) {
      this.file = file;
      this.inflated = inflated;
      this.compressed = compressed;
      this.limits = limits;
    }

    /** The most bytes the next read may return (at least 1), or an exception past a limit. */
    private int allowed(int len) throws IOException {
      if (refused != null) {
        throw refused;
      }
      if (decompressed >= GzipLimits.RATIO_CHECKED_FROM
          && decompressed > limits.maxCompressionRatio() * Math.max(1, compressed.count)) {
        throw refuse(ReadOptions.MAX_COMPRESSION_RATIO.name(), limits.maxCompressionRatio());
      }
      long left = limits.maxDecompressedBytes() - decompressed;
      if (left <= 0) {
        // At the limit: a file of exactly that size ends here; any more byte is refused.
        if (inflated.read() < 0) {
          return -1;
        }
        throw refuse(ReadOptions.MAX_DECOMPRESSED_BYTES.name(), limits.maxDecompressedBytes());
      }
      return (int) Math.min(len, left);
    }

    private ProfileFormatException refuse(String option, double limit) {
      double ratio = (double) decompressed / Math.max(1, compressed.count);
      refused =
          new ProfileFormatException(
              file,
              decompressed,
              String.format(
                  Locale.ROOT,
                  "decompressed past %d bytes (ratio %.0f), the limit set by option %s=%s;"
                      + " a gzip bomb? raise %s to read it",
                  decompressed,
                  ratio,
                  option,
                  limit == Math.rint(limit) ? Long.toString((long) limit) : Double.toString(limit),
                  option));
      return refused;
    }

    @Override
    public int read() throws IOException {
      if (allowed(1) < 0) {
        return -1;
      }
      int b = inflated.read();
      if (b >= 0) {
        decompressed++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      int max = allowed(len);
      if (max < 0) {
        return -1;
      }
      int n = inflated.read(b, off, max);
      if (n > 0) {
        decompressed += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      if (n <= 0) {
        return 0;
      }
      int max = allowed((int) Math.min(n, Integer.MAX_VALUE));
      if (max < 0) {
        return 0;
      }
      long skipped = inflated.skip(max);
      decompressed += skipped;
      return skipped;
    }

    @Override
    public int available() throws IOException {
      return refused != null ? 0 : inflated.available();
    }

    @Override
    public void close() throws IOException {
      inflated.close();
    }
  }
}
