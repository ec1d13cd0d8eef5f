package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code functions/} against {@code go tool pprof -top} on the bundled gperftools profiles and
 * their bundled binaries (one date per profile, so that each day is one profile).
 *
 * <p>{@code go tool pprof} (Debian's golang-go, cmd/pprof) names functions with Go's own DWARF
 * reader: it shows every location of a module it cannot name by DWARF as one {@code [module]} row
 * (libc, whose Debian build has only {@code .dynsym}; {@code _start}, which has no DWARF). The job
 * names those from the ELF symbol table. So: every function pprof names has the same flat and
 * cumulative counts in {@code functions/}; each {@code [module]} row's flat count equals the flat
 * counts of the job's functions in that module that pprof does not name. The sample programs are
 * built at -O0, where cmd/pprof's reader is reliable (at -O2 it loses inlined frames and {@code
 * main} in {@code .text.startup}: {@link SymbolizedFleetTest} checks those against addr2line
 * instead).
 */
class PprofTopAgreementTest {
  private static final List<String> PROFILES =
      List.of("deep_recursion", "shared_library", "multithreaded", "x86_32");

  private static SparkSession spark;
  private static Path tmp;
  private static String out;

  @BeforeAll
  static void aggregate() throws Exception {
    ExternalTool.require("go", "golang-go");
    spark = TestSpark.get();
    tmp = Files.createTempDirectory("pprof-top");
    for (int i = 0; i < PROFILES.size(); i++) {
      Path dir = Files.createDirectories(tmp.resolve("in/date=" + day(i)));
      Files.copy(
          SampleData.GPERFTOOLS.resolve(PROFILES.get(i) + ".prof"),
          dir.resolve(PROFILES.get(i) + ".prof"));
    }
    out = tmp.resolve("out").toString();
    FleetAggregate.run(
        spark,
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              tmp.resolve("in").toString(),
              "--output",
              out,
              "--binaries",
              bin().toString()
            }));
  }

  private static String day(int i) {
    return "2026-11-0" + (i + 1);
  }

  private static Path bin() {
    return SampleData.GPERFTOOLS_BINARIES.toAbsolutePath();
  }

  @ParameterizedTest
  @ValueSource(strings = {"deep_recursion", "shared_library", "multithreaded", "x86_32"})
  void functionsEqualPprofTop(String profile) throws Exception {
    Map<String, long[]> pprof =
        PprofTop.of(SampleData.GPERFTOOLS.resolve(profile + ".prof"), bin(), tmp).counts();

    String date = day(PROFILES.indexOf(profile));
    Map<String, long[]> job = new HashMap<>();
    Map<String, String> moduleOf = new HashMap<>();
    for (Row f :
        spark
            .read()
            .parquet(out + "/functions")
            .where("format = 'gperftools' AND kind = 'sample' AND date = '" + date + "'")
            .selectExpr("module", "function", "self_count", "total_count")
            .collectAsList()) {
      String name = f.isNullAt(1) ? null : f.getString(1);
      String module = f.isNullAt(0) ? "" : f.getString(0);
      String key = name == null ? "?" + module : name;
      long[] v = job.computeIfAbsent(key, k -> new long[2]);
      v[0] += ((BigDecimal) f.get(2)).longValueExact();
      v[1] += ((BigDecimal) f.get(3)).longValueExact();
      moduleOf.put(key, module.substring(module.lastIndexOf('/') + 1));
    }
    Map<String, String> want = new TreeMap<>();
    Map<String, String> got = new TreeMap<>();
    Map<String, Long> unnamedFlat = new TreeMap<>();
    job.forEach(
        (name, v) -> {
          if (pprof.containsKey(name)) {
            got.put(name, v[0] + " flat, " + v[1] + " cum");
          } else {
            unnamedFlat.merge("[" + moduleOf.get(name) + "]", v[0], Long::sum);
          }
        });
    pprof.forEach(
        (name, v) -> {
          if (name.startsWith("[")) {
            want.put(name, v[0] + " flat");
            got.put(name, unnamedFlat.getOrDefault(name, 0L) + " flat");
          } else {
            want.put(name, v[0] + " flat, " + v[1] + " cum");
          }
        });
    unnamedFlat.forEach(
        (name, flat) -> {
          if (flat != 0 && !pprof.containsKey(name)) {
            got.put(name, flat + " flat");
          }
        });
    assertEquals(want, got, "functions/ of " + profile + " vs go tool pprof -top");
  }
}
