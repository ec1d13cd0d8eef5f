package dev.fleetprof.symbols;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The file system binaries are searched in, as {@link BinaryLocator} needs it: the job backs it
 * with Hadoop's FileSystem (binaries on HDFS or S3), tests with local folders. Paths are strings in
 * that file system's syntax ({@code /usr/lib}, {@code hdfs://nn/binaries/...}).
 */
public interface BinaryFiles {
  /** Whether {@code path} names a regular file (false for folders, missing paths, bad syntax). */
  boolean isFile(String path) throws IOException;

  /** The regular files directly in {@code dir}, sorted by name; empty when it is not a folder. */
  List<String> filesIn(String dir) throws IOException;

  /**
   * A local file with the content of {@code path}, to be mapped into memory: the file itself where
   * it is local, else a copy the implementation keeps as long as it likes.
   */
  Path local(String path) throws IOException;

  /** {@code child} (relative, may contain '/') under {@code dir}. */
  default String join(String dir, String child) {
    String c = child.startsWith("/") ? child.substring(1) : child;
    return dir.endsWith("/") ? dir + c : dir + "/" + c;
  }
}
