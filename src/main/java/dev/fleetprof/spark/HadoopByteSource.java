package dev.fleetprof.spark;

import dev.fleetprof.format.ByteSource;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A file on any Hadoop FileSystem (local, HDFS, S3A, ...) as a decoder's {@link ByteSource}. Files
 * whose names end in {@code .gz} are decompressed transparently (and have an unknown length, so
 * they are never split).
 */
public final class HadoopByteSource implements ByteSource {
  private final Path path;
  private final Configuration conf;
  private final long length;
  private final boolean gzip;

  public HadoopByteSource(String path, long length, Configuration conf) {
    this.path = new Path(path);
    this.conf = conf;
    this.length = length;
    this.gzip = isGzip(path);
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
        return new GZIPInputStream(in, 1 << 16);
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
}
