package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.fleetprof.testing.TestSpark;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local file system the jobs' sessions use gives every file and directory the permissions
 * Hadoop's own gives it, without starting a process.
 */
class ForklessLocalFileSystemTest {
  @TempDir java.nio.file.Path dir;

  /** What {@code conf/spark-defaults.conf} names is what a session's {@code file:} paths get. */
  @Test
  void theJobsSessionsUseIt() throws IOException {
    SparkSession spark = TestSpark.get();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    assertEquals(ForklessLocalFileSystem.class.getName(), conf.get("fs.file.impl"));
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      assertEquals(ForklessLocalFileSystem.class, fs.getClass());
    }
  }

  @Test
  void filesAndDirectoriesGetHadoopsPermissions() throws IOException {
    List<String> modes = List.of("644", "600", "755", "700", "640", "777", "000", "1777", "444");
    try (FileSystem hadoops = stock();
        FileSystem ours = forkless()) {
      for (String mode : modes) {
        FsPermission permission = new FsPermission(mode);
        for (FileSystem fs : List.of(hadoops, ours)) {
          String name = fs.getClass().getSimpleName() + "-" + mode;
          Path file = new Path(dir.resolve(name + ".file").toUri());
          fs.create(file, permission, false, 4096, (short) 1, 1 << 20, null).close();
          Path sub = new Path(dir.resolve(name + ".dir").toUri());
          fs.mkdirs(sub, permission);
          fs.setPermission(sub, permission);
        }
        for (String kind : List.of(".file", ".dir")) {
          java.nio.file.Path a =
              dir.resolve(hadoops.getClass().getSimpleName() + "-" + mode + kind);
          java.nio.file.Path b = dir.resolve(ours.getClass().getSimpleName() + "-" + mode + kind);
          assertEquals(
              PosixFilePermissions.toString(Files.getPosixFilePermissions(a)),
              PosixFilePermissions.toString(Files.getPosixFilePermissions(b)),
              mode + kind);
          assertEquals(
              hadoops.getFileStatus(new Path(a.toUri())).getPermission(),
              ours.getFileStatus(new Path(b.toUri())).getPermission(),
              mode + kind);
        }
      }
      // Checksum files (LocalFileSystem writes a .crc beside each file) get them too.
      assertEquals(
          PosixFilePermissions.toString(
              Files.getPosixFilePermissions(dir.resolve(".LocalFileSystem-640.file.crc"))),
          PosixFilePermissions.toString(
              Files.getPosixFilePermissions(dir.resolve(".ForklessLocalFileSystem-640.file.crc"))));
    }
  }

  /**
   * The reason it exists: Hadoop's starts a {@code chmod} for each file and directory it creates
   * (without its native library), this one none.
   */
  @Test
  void createsFilesWithoutStartingAProcess() throws IOException {
    assumeFalse(NativeIO.isAvailable(), "Hadoop's native library is loaded: it forks nothing");
    try (FileSystem hadoops = stock();
        FileSystem ours = forkless()) {
      long stockStarts = processStarts(hadoops, "stock");
      long ourStarts = processStarts(ours, "ours");
      assertTrue(stockStarts >= 6, "Hadoop's own started " + stockStarts + " processes");
      assertEquals(0, ourStarts);
    }
  }

  /** How many processes three directories and three files (with checksums) start. */
  private long processStarts(FileSystem fs, String name) throws IOException {
    java.nio.file.Path events = dir.resolve(name + ".jfr");
    try (Recording r = new Recording()) {
      r.enable("jdk.ProcessStart");
      r.start();
      for (int i = 0; i < 3; i++) {
        Path sub = new Path(dir.resolve(name + "/d" + i).toUri());
        fs.mkdirs(sub);
        fs.create(new Path(sub, "part-" + i)).close();
      }
      r.stop();
      r.dump(events);
    }
    return RecordingFile.readAllEvents(events).stream()
        .filter(e -> e.getEventType().getName().equals("jdk.ProcessStart"))
        .count();
  }

  private static FileSystem stock() throws IOException {
    LocalFileSystem fs = new LocalFileSystem();
    fs.initialize(URI.create("file:///"), new Configuration());
    return fs;
  }

  private static FileSystem forkless() throws IOException {
    ForklessLocalFileSystem fs = new ForklessLocalFileSystem();
    fs.initialize(URI.create("file:///"), new Configuration());
    return fs;
  }
}
