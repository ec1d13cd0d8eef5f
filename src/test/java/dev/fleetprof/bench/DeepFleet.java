package dev.fleetprof.bench;

import dev.fleetprof.bench.StackPoolProfiles.Written;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The deep fleet: CPU profiles written by gperftools' own profiler ({@code libprofiler}) in real
 * processes of a real program, {@code deep_service} (src/test/resources/bench), whose call chains
 * are deep (mutual recursion 5 to 164 levels deep, two frames a level, so many chains reach the
 * profiler's cap of 253 pcs) and repeat: the processes of a workload (hosts of one service) walk
 * the same trees, each at the addresses its ASLR gives it. Nothing here is synthesized: every byte
 * of a profile is the profiler's.
 *
 * <p>The rate is 250 Hz: Linux delivers {@code ITIMER_PROF} signals on the scheduler tick, so a
 * higher {@code CPUPROFILE_FREQUENCY} would claim a period the samples do not have (a 1000 Hz
 * setting gave 63 samples in 0.25 s of CPU here).
 */
final class DeepFleet {
  /** Distinct workloads; host h runs workload h mod this. */
  static final int WORKLOADS = 24;

  static final int FREQUENCY = 250;

  /** CPU seconds each process runs for (about 75 samples). */
  static final double CPU_SECONDS = 0.3;

  private DeepFleet() {}

  /**
   * Builds {@code deep_service} in {@code root/_bin} (readers skip names starting with '_') and
   * runs {@code files} processes of it, two per core, each writing one profile where {@link
   * BinaryFleet#fleetFile} puts it. Records and counts are read back by {@link ReferenceDecode},
   * which uses no project code.
   */
  static Written write(Path root, int files) throws IOException {
    Path bin = root.resolve("_bin");
    Files.createDirectories(bin);
    Path source = bin.resolve("deep_service.c");
    try (InputStream in = DeepFleet.class.getResourceAsStream("/bench/deep_service.c")) {
      if (in == null) {
        throw new IOException("bench/deep_service.c is not on the test classpath");
      }
      Files.copy(in, source);
    }
    Path exe = bin.resolve("deep_service");
    run(
        List.of(
            "gcc",
            "-O2",
            "-g",
            "-fno-omit-frame-pointer",
            "-fno-optimize-sibling-calls",
            "-o",
            exe.toString(),
            source.toString(),
            // Linked although no symbol of it is used: CPUPROFILE starts the profiler.
            "-Wl,--no-as-needed",
            "-lprofiler"),
        Map.of());
    int dates = BinaryFleet.fleetDates(files);
    ExecutorService pool =
        Executors.newFixedThreadPool(2 * Runtime.getRuntime().availableProcessors());
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        Path f = BinaryFleet.fleetFile(root, i, dates);
        Files.createDirectories(f.getParent());
        String workload = Integer.toString((i / dates) % WORKLOADS);
        runs.add(
            pool.submit(
                () -> {
                  run(
                      List.of(exe.toString(), workload, Double.toString(CPU_SECONDS)),
                      Map.of(
                          "CPUPROFILE",
                          f.toString(),
                          "CPUPROFILE_FREQUENCY",
                          Integer.toString(FREQUENCY)));
                  return null;
                }));
      }
      for (Future<?> r : runs) {
        r.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause().getMessage(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
    long bytes = 0;
    long records = 0;
    long counts = 0;
    for (int i = 0; i < files; i++) {
      Path f = BinaryFleet.fleetFile(root, i, dates);
      ReferenceDecode.Totals t = ReferenceDecode.mappedLoop(f);
      bytes += Files.size(f);
      records += t.records();
      counts += t.countSum();
    }
    return new Written(bytes, records, counts, 0);
  }

  private static void run(List<String> cmd, Map<String, String> env) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes());
      if (p.waitFor() != 0) {
        throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
