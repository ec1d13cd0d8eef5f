package dev.fleetprof.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system ({@code file:} paths), setting permissions through Java instead of a
 * {@code chmod} process. Without Hadoop's native library (Maven's Hadoop jars have none), {@link
 * RawLocalFileSystem#setPermission} starts a {@code chmod} for every file and directory a write
 * creates, and a Parquet write to a local disk creates several per task (staging directories, the
 * file, its checksum): about 420 processes in the quick start, each 12-20 ms on a JVM with a large
 * heap. {@code conf/spark-defaults.conf} names this class as {@code spark.hadoop.fs.file.impl}.
 *
 * <p>Everything else is Hadoop's own. Where the native library is loaded, or the mode has bits Java
 * cannot set (sticky, setuid, setgid) or the file system is not POSIX, Hadoop's method runs.
 */
public final class ForklessLocalFileSystem extends LocalFileSystem {
  public ForklessLocalFileSystem() {
    super(new Raw());
  }

  /** The raw (checksum-free) file system under {@link LocalFileSystem}'s checksums. */
  static final class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      if (NativeIO.isAvailable() || (mode & ~0777) != 0) {
        super.setPermission(p, permission);
        return;
      }
      try {
        // rwxr-x---: the nine bits, as FsPermission spells them and Java reads them.
        Files.setPosixFilePermissions(
            pathToFile(p).toPath(),
            PosixFilePermissions.fromString(new FsPermission(mode).toString()));
      } catch (UnsupportedOperationException notPosix) {
        super.setPermission(p, permission);
      }
    }
  }
}
