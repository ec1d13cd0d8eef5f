package dev.fleetprof.jobs;

import dev.fleetprof.symbols.BinaryFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Binaries on any Hadoop FileSystem ({@code file:}, {@code hdfs://}, {@code s3a://}). Local files
 * are used in place; others are copied once per JVM into a temporary folder, because symbol tables
 * are read by mapping the file into memory.
 */
final class HadoopBinaryFiles implements BinaryFiles {
  /** Copies of remote binaries, per JVM, by qualified path and modification time. */
  private static final Map<String, java.nio.file.Path> COPIES = new ConcurrentHashMap<>();

  private final Configuration conf;

  HadoopBinaryFiles(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public boolean isFile(String path) throws IOException {
    try {
      Path p = new Path(path);
      FileSystem fs = p.getFileSystem(conf);
      return regular(fs, fs.getFileStatus(p));
    } catch (FileNotFoundException | IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public List<String> filesIn(String dir) throws IOException {
    List<String> out = new ArrayList<>();
    try {
      Path p = new Path(dir);
      FileSystem fs = p.getFileSystem(conf);
      // listStatus of a file lists the file itself: a file DIR/<build-id> would be a candidate.
      if (!fs.getFileStatus(p).isDirectory()) {
        return out;
      }
      for (FileStatus s : fs.listStatus(p)) {
        if (regular(fs, s)) {
          out.add(s.getPath().toString());
        }
      }
    } catch (FileNotFoundException | IllegalArgumentException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  /**
   * A regular file, never a FIFO, socket or device: Hadoop's local file system reports those as
   * files, and opening a FIFO found among the binaries would block the job forever.
   */
  private static boolean regular(FileSystem fs, FileStatus status) {
    if (!status.isFile()) {
      return false;
    }
    java.net.URI uri = fs.makeQualified(status.getPath()).toUri();
    return !"file".equals(uri.getScheme())
        || java.nio.file.Files.isRegularFile(java.nio.file.Path.of(uri.getPath()));
  }

  @Override
  public java.nio.file.Path local(String path) throws IOException {
    Path p = new Path(path);
    FileSystem fs = p.getFileSystem(conf);
    Path q = fs.makeQualified(p);
    if ("file".equals(q.toUri().getScheme())) {
      return java.nio.file.Path.of(q.toUri());
    }
    FileStatus st = fs.getFileStatus(q);
    String key = q + "@" + st.getModificationTime() + ":" + st.getLen();
    java.nio.file.Path copy = COPIES.get(key);
    if (copy != null && Files.isRegularFile(copy)) {
      return copy;
    }
    synchronized (COPIES) {
      copy = COPIES.get(key);
      if (copy == null || !Files.isRegularFile(copy)) {
        java.nio.file.Path dir = Files.createTempDirectory("fleetprof-binary");
        copy = dir.resolve(q.getName());
        fs.copyToLocalFile(false, q, new Path(copy.toUri()), true);
        copy.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        COPIES.put(key, copy);
      }
      return copy;
    }
  }
}
