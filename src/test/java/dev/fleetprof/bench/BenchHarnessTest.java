package dev.fleetprof.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fleetprof.bench.ReferenceDecode.Totals;
import dev.fleetprof.bench.StackPoolProfiles.Written;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.format.dcpi.DcpiProfileReader;
import dev.fleetprof.format.gprof.GmonFile;
import dev.fleetprof.format.gprof.GmonOptions;
import dev.fleetprof.testing.TestSources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark checks each row against what its generators say they wrote; these tests check the
 * generators and the reference loops themselves against the project's decoders (and pprof), so a
 * broken harness fails here rather than printing plausible numbers.
 */
class BenchHarnessTest {
  @TempDir
  Path dir;

  @Test
  void referenceLoopsReadWhatTheGeneratorWrote() throws Exception {
    Path file = dir.resolve("cpu.prof");
    // Past the read loop's 8 MiB buffer, so records straddle refills.
    Written w = new StackPoolProfiles(5_000, 1).write(file, 20L << 20, StackPoolProfiles.bases(2), 3);
    assertEquals(Files.size(file), w.bytes());
    Totals decoder = ReferenceDecode.projectDecoder(file);
    assertEquals(w.records(), decoder.records());
    assertEquals(w.countSum(), decoder.countSum());
    assertEquals(decoder, ReferenceDecode.readLoop(file));
    assertEquals(decoder, ReferenceDecode.mappedLoop(file));
  }

  @Test
  void gmonGeneratorMatchesTheDecoder() throws Exception {
    Path file = dir.resolve("gmon.out");
    Written w = LargeGmon.write(file, 3L << 20, 5);
    assertEquals(Files.size(file), w.bytes());
    long[] got = readAll(GmonFile.open(TestSources.file(file), GmonOptions.auto()));
    assertEquals(w.records(), got[0]);
    assertEquals(w.countSum(), got[1]);
  }

  @Test
  void dcpiGeneratorMatchesTheDecoder() throws Exception {
    Path file = dir.resolve("dcpi.prof");
    Written w = LargeDcpi.write(file, 3L << 20, 7);
    assertEquals(Files.size(file), w.bytes());
    // Reading to the end also checks the footer against the data.
    long[] got = readAll(DcpiProfileReader.open(TestSources.file(file)));
    assertEquals(w.records(), got[0]);
    assertEquals(w.countSum(), got[1]);
  }

  @Test
  void fleetIsLaidOutByDateAndHost() throws Exception {
    Written w = new StackPoolProfiles(1_000, 9).writeFleet(dir, 250, 11);
    List<Path> files = profiles(dir);
    assertEquals(250, files.size());
    assertTrue(files.stream().allMatch(f -> f.toString().matches(
        ".*/date=2026-11-1\\d/host=web\\d{3}/cpu\\.prof")), files.get(0).toString());
    assertEquals(2, files.stream().map(f -> f.getParent().getParent()).distinct().count());
    long records = 0;
    long counts = 0;
    for (Path f : files) {
      // 10-60 KB of records, plus the one that crosses the target, the trailer and the maps text.
      assertTrue(Files.size(f) >= 10_000 && Files.size(f) < 64_000, f + ": " + Files.size(f));
      Totals t = ReferenceDecode.projectDecoder(f);
      records += t.records();
      counts += t.countSum();
    }
    assertEquals(w.records(), records);
    assertEquals(w.countSum(), counts);
  }

  @Test
  void pprofMergeKeepsEveryProfile() throws Exception {
    boolean ci = "true".equals(System.getenv("CI"));
    assumeTrue(ci || ScanBenchmark.onPath("go"), "needs go (go tool pprof)");
    Written w = new StackPoolProfiles(500, 13).writeFleet(dir.resolve("fleet"), 4, 17);
    List<String> cmd = ScanBenchmark.pprofMerge(dir.resolve("merged.pb.gz"));
    profiles(dir.resolve("fleet")).forEach(f -> cmd.add(f.toString()));
    Processes.Outcome o = Processes.run(cmd, dir.resolve("pprof.log"), 300,
        ScanBenchmark.pprofEnv(dir));
    assertTrue(o.ok(), o.output());
    assertEquals(w.countSum(), ScanBenchmark.pprofSampleCount(dir.resolve("merged.pb.gz"), dir));
  }

  private static List<Path> profiles(Path root) throws Exception {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> p.getFileName().toString().equals("cpu.prof")).sorted().toList();
    }
  }

  /** {rows, sum of counts}. */
  private static long[] readAll(ProfileRecordReader r) throws Exception {
    try (r) {
      long rows = 0;
      long counts = 0;
      while (r.next()) {
        rows++;
        counts += r.count();
      }
      return new long[] {rows, counts};
    }
  }
}
