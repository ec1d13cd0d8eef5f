package dev.fleetprof.bench;

import dev.fleetprof.bench.StackPoolProfiles.Written;
import dev.fleetprof.symbols.elf.ElfFile;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The benchmark's inputs, generated under the bench directory at run time (nothing large is checked
 * in) and reused by later runs while their parameters match: a note per input under {@code _meta/}
 * is written only once the input is complete, so an interrupted generation is redone.
 */
final class Inputs {
  /** Bump when a generator changes, so stale inputs are regenerated. */
  private static final int VERSION = 1;

  /**
   * A generated input: a file or a directory of files, with what the generator wrote ({@code
   * binaryLocations}: see {@link Written}).
   */
  record Input(
      String label,
      Path path,
      long bytes,
      long records,
      long countSum,
      int files,
      long binaryLocations) {}

  /** The built bench programs: their folder (what {@code --binaries} names) and their code. */
  record Binaries(Path dir, Map<String, BinaryCode> code, String buildIds, int functions) {
    List<Path> files() {
      return code.values().stream().map(c -> c.path).toList();
    }
  }

  interface Generator {
    Written write(Path target) throws IOException;
  }

  private final Path dir;

  Inputs(Path dir) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir.resolve("_meta"));
  }

  Path dir() {
    return dir;
  }

  Input cpuProfile(long bytes) throws IOException {
    String name = "cpu-" + fileSize(bytes) + ".prof";
    return get(
        name,
        "gperftools, " + size(bytes),
        1,
        "bytes=" + bytes,
        target ->
            new StackPoolProfiles(100_000, 7)
                .write(target, bytes, StackPoolProfiles.bases(11), 13));
  }

  /**
   * The {@link BenchPrograms}, built with gcc/g++ at {@code scale} (1: a few thousand functions),
   * read back with binutils. Rebuilt when the scale or the compilers change.
   */
  Binaries binaries(double scale) throws IOException {
    String compilers =
        firstLine(List.of("gcc", "--version")) + "; " + firstLine(List.of("g++", "--version"));
    String name = "binaries-" + (scale == 1 ? "full" : "x" + scale);
    BenchPrograms programs = new BenchPrograms(PROGRAMS_SEED, scale);
    Input in =
        get(
            name,
            "bench binaries",
            BenchPrograms.SPECS.size(),
            "scale=" + scale + " seed=" + PROGRAMS_SEED + " " + compilers,
            target -> {
              Files.createDirectories(target);
              long bytes = 0;
              try {
                for (Path b : programs.build(target)) {
                  bytes += Files.size(b);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
              }
              return new Written(bytes, programs.functions(), 0);
            });
    Map<String, BinaryCode> code = new LinkedHashMap<>();
    StringBuilder ids = new StringBuilder();
    try {
      for (BenchPrograms.Spec spec : BenchPrograms.SPECS) {
        Path b = in.path().resolve(spec.file());
        code.put(spec.file(), BinaryCode.read(b));
        try (ElfFile elf = ElfFile.open(b)) {
          ids.append(elf.buildId().orElse(Long.toString(Files.size(b)))).append(',');
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return new Binaries(
        in.path(), code, Integer.toHexString(ids.toString().hashCode()), (int) in.records());
  }

  /** The fleet of small profiles of the bench programs; regenerated when the binaries change. */
  Input fleet(int files, Binaries binaries) throws IOException {
    return get(
        "fleet-" + files,
        String.format("%,d small profiles", files),
        files,
        "files=" + files + " binaries=" + binaries.buildIds(),
        target -> {
          Files.createDirectories(target);
          return new BinaryFleet(binaries.code(), 17).writeFleet(target, files, 19);
        });
  }

  /**
   * The deep fleet: real gperftools profiles of {@link DeepFleet}'s program; regenerated when the
   * compiler or the profiler changes.
   */
  Input deepFleet(int files) throws IOException {
    String tools =
        firstLine(List.of("gcc", "--version"))
            + "; "
            + firstLine(List.of("dpkg-query", "-W", "-f=${Version}", "libgoogle-perftools-dev"));
    return get(
        "deep-fleet-" + files,
        String.format("%,d real profiles, deep chains", files),
        files,
        "files=" + files + " cpu=" + DeepFleet.CPU_SECONDS + " " + tools,
        target -> DeepFleet.write(target, files));
  }

  private static final long PROGRAMS_SEED = 41;

  private static String firstLine(List<String> cmd) throws IOException {
    try {
      return BinaryCode.run(cmd).get(0).strip();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  Input gmon(long bytes) throws IOException {
    return get(
        "gmon-" + fileSize(bytes) + ".out",
        "gmon.out, " + size(bytes),
        1,
        "bytes=" + bytes,
        target -> LargeGmon.write(target, bytes, 23));
  }

  Input dcpi(long bytes) throws IOException {
    return get(
        "dcpi-" + fileSize(bytes) + ".prof",
        "DCPI profile, " + size(bytes),
        1,
        "bytes=" + bytes,
        target -> LargeDcpi.write(target, bytes, 29));
  }

  Input pprof(long bytes) throws IOException {
    return get(
        "pprof-" + fileSize(bytes) + ".pb",
        "pprof profile, " + size(bytes),
        1,
        "bytes=" + bytes,
        target -> LargePprof.write(target, bytes, 31));
  }

  private Input get(String name, String label, int files, String params, Generator gen)
      throws IOException {
    Path target = dir.resolve(name);
    Path note = dir.resolve("_meta").resolve(name + ".properties");
    String want = "v" + VERSION + " " + params;
    Properties p = new Properties();
    if (Files.exists(note) && Files.exists(target)) {
      try (Reader r = Files.newBufferedReader(note)) {
        p.load(r);
      }
    }
    if (!want.equals(p.getProperty("params"))) {
      Files.deleteIfExists(note);
      delete(target);
      System.out.printf("generating %s ...%n", target);
      long t0 = System.nanoTime();
      Written w = gen.write(target);
      System.out.printf(
          "  %.1f MB, %,d records in %.1f s%n",
          w.bytes() / 1e6, w.records(), (System.nanoTime() - t0) / 1e9);
      p.setProperty("params", want);
      p.setProperty("bytes", Long.toString(w.bytes()));
      p.setProperty("records", Long.toString(w.records()));
      p.setProperty("countSum", Long.toString(w.countSum()));
      p.setProperty("binaryLocations", Long.toString(w.binaryLocations()));
      try (Writer out = Files.newBufferedWriter(note)) {
        p.store(out, null);
      }
    }
    return new Input(
        label,
        target,
        Long.parseLong(p.getProperty("bytes")),
        Long.parseLong(p.getProperty("records")),
        Long.parseLong(p.getProperty("countSum")),
        files,
        Long.parseLong(p.getProperty("binaryLocations", "0")));
  }

  static void delete(Path target) throws IOException {
    if (!Files.exists(target)) {
      return;
    }
    try (Stream<Path> all = Files.walk(target)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** "2 GiB", "64 MiB". */
  static String size(long bytes) {
    if (bytes % (1L << 30) == 0) {
      return (bytes >> 30) + " GiB";
    }
    return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " B";
  }

  /** A size for a file name: "2GiB". */
  static String fileSize(long bytes) {
    return size(bytes).replace(" ", "");
  }
}
