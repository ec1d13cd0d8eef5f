package dev.fleetprof.bench;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import dev.fleetprof.testing.SyntheticCpuProfile;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Throughput of the {@code profile} source against the physical reference, measured in one run on
 * one generated file (nothing large is checked in): a plain single-threaded Java decode of every
 * record and PC, then Spark scans of the same file. Prints MB/s, records/s and the ratio to the
 * reference. Run with {@code bench/run [GiB]}.
 */
public final class ScanBenchmark {
  private record Result(String name, double seconds, long records) {}

  public static void main(String[] args) throws Exception {
    double gib = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    Path dir = Path.of(args.length > 1 ? args[1] : "target/bench");
    Files.createDirectories(dir);
    Path file = dir.resolve("synthetic-" + gib + "g.prof");
    long target = (long) (gib * (1L << 30));
    if (!Files.exists(file) || Files.size(file) < target) {
      System.out.printf("generating %s (%.2f GiB) ...%n", file, gib);
      SyntheticCpuProfile.write(file, target, 7);
    }
    long bytes = Files.size(file);

    SparkSession spark = SparkSession.builder().master("local[*]").appName("fleetprof-bench")
        .config("spark.ui.enabled", "false").config("spark.sql.adaptive.enabled", "false")
        .getOrCreate();
    List<Result> results = new ArrayList<>();
    // Warm up the JIT and the page cache on both paths once, then measure.
    plainDecode(file);
    spark.read().format("profile").load(file.toString()).selectExpr("sum(count)").collect();

    results.add(time("plain Java decode, 1 thread (reference)", () -> plainDecode(file)));
    results.add(time("profile -> noop, all columns", () -> {
      spark.read().format("profile").load(file.toString())
          .write().format("noop").mode("overwrite").save();
      return -1;
    }));
    results.add(time("profile, sum(count)", () -> spark.read().format("profile")
        .load(file.toString()).selectExpr("sum(count)", "count(*)").first().getLong(1)));
    spark.stop();

    long records = results.get(0).records();
    double ref = bytes / results.get(0).seconds();
    System.out.printf("%nfile: %s, %.1f MB, %d records; %d cores, Java %s%n", file,
        bytes / 1e6, records, Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    System.out.printf("%-45s %10s %10s %14s %8s%n", "what", "seconds", "MB/s", "records/s",
        "x ref");
    for (Result r : results) {
      System.out.printf("%-45s %10.2f %10.0f %14.0f %8.2f%n", r.name(), r.seconds(),
          bytes / 1e6 / r.seconds(), records / r.seconds(), (bytes / r.seconds()) / ref);
    }
  }

  interface Run {
    long run() throws Exception;
  }

  private static Result time(String name, Run run) throws Exception {
    long t0 = System.nanoTime();
    long n = run.run();
    return new Result(name, (System.nanoTime() - t0) / 1e9, n);
  }

  /** Every record and every PC, single-threaded, from the page cache: the physical reference. */
  static long plainDecode(Path file) throws Exception {
    byte[] head = new byte[64];
    try (InputStream in = Files.newInputStream(file)) {
      int n = in.readNBytes(head, 0, head.length);
      CpuProfileHeader h = CpuProfileHeader.parse(file.toString(), head, n, Files.size(file));
      try (InputStream body = Files.newInputStream(file)) {
        CpuProfileReader r = CpuProfileReader.wholeFile(file.toString(), h, body, Files.size(file),
            true);
        long records = 0;
        long checksum = 0;
        while (r.next()) {
          records++;
          long[] pcs = r.pcs();
          for (int i = 0; i < r.depth(); i++) {
            checksum += pcs[i];
          }
          checksum += r.count();
        }
        if (checksum == 42) {
          System.out.println("(checksum)");
        }
        return records;
      }
    }
  }
}
