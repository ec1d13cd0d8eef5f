package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.spark.metrics.ProfileMetrics;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.SpecialFiles;
import dev.fleetprof.testing.TestSpark;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Listing trees an operator can meet: symbolic links that loop, links out of the tree, FIFOs and
 * sockets beside the profiles. A read never loops, never counts a file twice and never blocks on a
 * file that is not a regular one. Each test has a time limit, so that a hang fails it (in a thread
 * of its own: a task blocked opening a FIFO cannot be interrupted).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ListingSafetyTest {
  private static final Path SAMPLE = SampleData.GPERFTOOLS.resolve("multithreaded.prof");

  /** What {@code go tool pprof -raw} counted in one copy of the sample. */
  private static final long PER_COPY = SampleData.pprofSampleCount(SAMPLE);

  private final SparkSession spark = TestSpark.get();

  private static Path copy(Path to) throws Exception {
    Files.createDirectories(to.getParent());
    return Files.copy(SAMPLE, to);
  }

  private DataFrameReader reader(String... options) {
    DataFrameReader r = spark.read().format("profile");
    for (int i = 0; i < options.length; i += 2) {
      r = r.option(options[i], options[i + 1]);
    }
    return r;
  }

  /** What one read gave: the records' total, the files records came from, and the error rows. */
  private record Read(long total, TreeSet<String> paths, Map<String, Row> errors) {}

  private static Read read(Dataset<Row> df) {
    long total = 0;
    TreeSet<String> paths = new TreeSet<>();
    Map<String, Row> errors = new TreeMap<>();
    for (Row r : df.selectExpr("path", "kind", "count", "error", "record_offset").collectAsList()) {
      String name = r.getString(0).substring(r.getString(0).lastIndexOf('/') + 1);
      if (r.getString(1).equals("error")) {
        assertEquals(null, errors.put(name, r), "one error row per file");
      } else {
        total += r.getLong(2);
        paths.add(r.getString(0));
      }
    }
    return new Read(total, paths, errors);
  }

  private static void assertNoPathThrough(String linkName, Read read) {
    for (String p : read.paths()) {
      assertTrue(!p.contains("/" + linkName + "/"), "read through the link " + linkName + ": " + p);
    }
  }

  @Test
  void aLoopInADateDirectoryIsNotFollowed(@TempDir Path tmp) throws Exception {
    Path day = tmp.resolve("fleet/date=2026-11-20");
    copy(day.resolve("host=web041/cpu.prof"));
    copy(day.resolve("host=web042/cpu.prof"));
    Files.createSymbolicLink(day.resolve("loop"), Path.of(".."));

    Dataset<Row> df = reader().load(tmp.resolve("fleet").toString());
    Read read = read(df);
    assertEquals(2 * PER_COPY, read.total());
    assertEquals(2, read.paths().size(), read.paths().toString());
    assertNoPathThrough("loop", read);
    assertEquals(Map.of(), read.errors());
    assertEquals(
        List.of("web041", "web042"),
        df.selectExpr("host")
            .distinct()
            .orderBy("host")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList());
  }

  @Test
  void aLoopUnderAHostDirectoryIsNotFollowed(@TempDir Path tmp) throws Exception {
    Path host = tmp.resolve("fleet/date=2026-11-20/host=web041");
    copy(host.resolve("cpu.prof"));
    copy(tmp.resolve("fleet/date=2026-11-20/host=web042/cpu.prof"));
    Files.createSymbolicLink(host.resolve("loop"), Path.of(".."));

    Read read = read(reader().load(tmp.resolve("fleet").toString()));
    assertEquals(2 * PER_COPY, read.total());
    assertEquals(2, read.paths().size(), read.paths().toString());
    assertNoPathThrough("loop", read);
  }

  @Test
  void aLoopInAPlainTreeIsNotFollowed(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("plain");
    copy(root.resolve("top.prof"));
    copy(root.resolve("a/b/deep.prof"));
    Files.createSymbolicLink(root.resolve("a/b/loop"), Path.of("../.."));

    Read read = read(reader().load(root.toString()));
    assertEquals(2 * PER_COPY, read.total());
    assertEquals(2, read.paths().size(), read.paths().toString());
    assertNoPathThrough("loop", read);
  }

  @Test
  void fileLinksAreReadDirectoryLinksOnlyWhenAskedFor(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("in");
    copy(root.resolve("real.prof"));
    Path outside = tmp.resolve("outside/other");
    Path target = copy(outside.resolve("o.prof"));
    Files.createSymbolicLink(root.resolve("elsewhere"), outside);
    Files.createSymbolicLink(root.resolve("linked.prof"), target);

    Read plain = read(reader().load(root.toString()));
    assertEquals(2 * PER_COPY, plain.total(), "the file and the linked file");
    assertNoPathThrough("elsewhere", plain);

    Read followed = read(reader("followSymlinks", "true").load(root.toString()));
    assertEquals(3 * PER_COPY, followed.total(), "and the linked directory's file, once");
    assertTrue(
        followed.paths().contains("file:" + root.resolve("elsewhere/o.prof")),
        followed.paths().toString());
  }

  @Test
  void followingLinksCutsLoopsAndReadsEveryDirectoryOnce(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("in");
    copy(root.resolve("real/x.prof"));
    // Listed before the directory it points to: the directory is still read once, by its own name.
    Files.createSymbolicLink(root.resolve("alias"), Path.of("real"));
    Files.createSymbolicLink(root.resolve("real/up"), Path.of(".."));
    Files.createSymbolicLink(root.resolve("real/self"), Path.of("."));
    Path outside = tmp.resolve("outside");
    copy(outside.resolve("o.prof"));
    Files.createSymbolicLink(root.resolve("ext"), outside);
    Files.createSymbolicLink(outside.resolve("back"), root); // a loop through another tree

    Read read = read(reader("followSymlinks", "true").load(root.toString()));
    assertEquals(2 * PER_COPY, read.total());
    assertEquals(
        new TreeSet<>(
            List.of("file:" + root.resolve("real/x.prof"), "file:" + root.resolve("ext/o.prof"))),
        read.paths());
  }

  @ParameterizedTest
  @ValueSource(strings = {"PERMISSIVE", "DROPMALFORMED", "FAILFAST"})
  void fifosAndSocketsAreNeverOpened(String mode, @TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("host");
    copy(dir.resolve("good.prof"));
    Path fifo = SpecialFiles.fifo(dir.resolve("cpu.prof"));
    try (ServerSocketChannel socket = SpecialFiles.socket(dir.resolve("agent.sock"))) {
      Dataset<Row> df = reader("mode", mode).load(dir.toString());
      switch (mode) {
        case "FAILFAST" -> {
          Exception e = assertThrows(Exception.class, () -> read(df));
          String msg = ProfileSourceTest.fullMessage(e);
          assertTrue(
              (msg.contains("cpu.prof: at byte offset 0: not a regular file (a FIFO)")
                      || msg.contains(
                          "agent.sock: at byte offset 0: not a regular file (a socket)"))
                  && msg.contains("it was not opened"),
              msg);
        }
        case "DROPMALFORMED" -> {
          Read read = read(df);
          assertEquals(PER_COPY, read.total());
          assertEquals(Map.of(), read.errors());
          df.collectAsList();
          assertEquals(2, TestSpark.scanMetric(df, ProfileMetrics.PROBLEMS), "both are counted");
        }
        default -> {
          Read read = read(df);
          assertEquals(PER_COPY, read.total());
          assertEquals(new TreeSet<>(List.of("agent.sock", "cpu.prof")), read.errors().keySet());
          Row fifoRow = read.errors().get("cpu.prof");
          assertTrue(
              fifoRow
                  .getString(3)
                  .endsWith(
                      "cpu.prof: at byte offset 0: not a regular file (a FIFO);"
                          + " it was not opened"),
              fifoRow.getString(3));
          assertEquals(0L, fifoRow.getLong(4));
          assertTrue(
              read.errors()
                  .get("agent.sock")
                  .getString(3)
                  .contains("not a regular file (a socket)"),
              read.errors().get("agent.sock").getString(3));

          Read byName = read(reader().load(fifo.toString()));
          assertEquals(
              Map.of("cpu.prof", read.errors().get("cpu.prof").getString(3)),
              Map.of("cpu.prof", byName.errors().get("cpu.prof").getString(3)),
              "a FIFO given by name is not opened either");
        }
      }
    }
  }

  @Test
  void aCharacterDeviceGivenByNameIsNotOpened() {
    Path device = Path.of("/dev/zero"); // read, it would never end
    Read read = read(reader().load(device.toString()));
    assertEquals(0, read.total());
    assertTrue(
        read.errors().get("zero").getString(3).contains("not a regular file (a character device)"),
        read.errors().toString());
  }

  @Test
  void followSymlinksMustBeTrueOrFalse(@TempDir Path tmp) throws Exception {
    copy(tmp.resolve("a.prof"));
    Exception e =
        assertThrows(
            Exception.class, () -> reader("followSymlinks", "yes").load(tmp.toString()).count());
    assertTrue(ProfileSourceTest.fullMessage(e).contains("followSymlinks='yes'"));
  }
}
