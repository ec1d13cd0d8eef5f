package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code jobs/gprof-callgraph.sql} against {@code gprof -b -q PROGRAM gmon.out...} on the bundled
 * gmon.out files and binaries. For every function gprof lists, its parent lines are the job's
 * {@code called by} rows and its child lines the job's {@code calls} rows: the same functions with
 * the same call counts (the numerator of {@code called/total}, or the lone number gprof prints for
 * a call from the function itself or from another member of its cycle). The job lists no function
 * gprof does not.
 *
 * <p>gprof's pseudo-entries are compared by what they mean rather than line by line:
 *
 * <ul>
 *   <li>{@code <spontaneous>} as the only parent: gprof has no arc into the function (its callers
 *       are outside the program, like {@code main}'s, or it was only ever sampled): the job has no
 *       {@code called by} row for it.
 *   <li>{@code <cycle N as a whole>}: not a function, so not a key of the comparison. Its lines are
 *       the members' totals, not arcs; the arcs of the members are in the members' own entries
 *       (arcs between members as lone numbers), which are compared like any other. Its {@code
 *       called} field {@code N+M} is checked against the job's arcs: N the calls into members from
 *       outside the cycle, M the calls between different members (gprof's cycle_link skips a
 *       member's calls to itself).
 *   <li>The {@code called} field of each function, {@code N} or {@code N+M}: N the calls from other
 *       functions, M the calls from itself, from the job's {@code called by} rows.
 *   <li>{@code <cycle N>} after a member's name is dropped.
 * </ul>
 *
 * GCC clone suffixes ({@code .isra.0}, ...) are dropped on both sides: gprof names the ELF symbol,
 * the job the function DWARF names. The c-32 sample runs on two hosts and is compared with gprof
 * summing the same gmon.out twice; the samples sit on two dates, so the default date (the latest
 * with that program's data) matters.
 */
class GprofCallgraphTest {
  /** A function's line: index, % time, self and children seconds, called (N or N+M), name. */
  private static final Pattern PRIMARY =
      Pattern.compile(
          "^\\[(\\d+)]\\s+[\\d.]+\\s+[\\d.]+"
              + "\\s+[\\d.]+\\s+(?:(\\d+)(?:\\+(\\d+))?\\s+)?(.+?) \\[\\1]$");

  /** A parent, child or cycle-member line: self and children seconds unless a lone number. */
  private static final Pattern ARC =
      Pattern.compile(
          "^\\s+(?:[\\d.]+\\s+[\\d.]+\\s+)?(\\d+)(?:/\\d+|\\+(\\d+))?\\s+(.+?) \\[(\\d+)]$");

  private static final Pattern CYCLE_WHOLE = Pattern.compile("^<cycle (\\d+) as a whole>$");
  private static final Pattern CYCLE_MEMBER = Pattern.compile(" <cycle \\d+>$");
  private static final Pattern CLONE =
      Pattern.compile("(\\.(isra|constprop|part|cold|lto_priv)\\.\\d+)+| \\[clone [^]]*\\]");
  private static final String CALLED_BY = "called by ";
  private static final String CALLS = "calls ";

  @TempDir static Path tmp;
  private static SparkSession spark;
  private static String out;

  @BeforeAll
  static void aggregate() throws Exception {
    spark = TestSpark.get();
    String[][] files = {
      {"2026-11-20", "workload", "web1", "c-pie-64"},
      {"2026-11-21", "shapes", "web1", "cxx-nopie-64"},
      {"2026-11-21", "workload32", "web1", "c-32"},
      {"2026-11-21", "workload32", "web2", "c-32"}
    };
    for (String[] f : files) {
      Path dir =
          Files.createDirectories(
              tmp.resolve("in/date=" + f[0] + "/program=" + f[1] + "/host=" + f[2]));
      Files.copy(SampleData.gmonOut(f[3]), dir.resolve("gmon.out"));
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

  private static Path bin() {
    return SampleData.GPROF_BINARIES.toAbsolutePath();
  }

  @ParameterizedTest
  @CsvSource({"c-pie-64, workload, 1", "cxx-nopie-64, shapes, 1", "c-32, workload32, 2"})
  void callGraphEqualsGprof(String sample, String program, int copies) throws Exception {
    ExternalTool.require("gprof", "binutils");
    List<String> command =
        new ArrayList<>(List.of("gprof", "-b", "-q", bin().resolve(program).toString()));
    for (int i = 0; i < copies; i++) {
      command.add(SampleData.gmonOut(sample).toAbsolutePath().toString());
    }
    ExternalTool.Result r = ExternalTool.run(command, tmp.resolve("home"), Map.of(), 120);
    assertEquals(0, r.exit(), r.stderr());
    CallGraph gprof = CallGraph.parse(r.stdout());
    assertTrue(
        gprof.arcs.size() > 3 && gprof.arcs.values().stream().anyMatch(a -> !a.isEmpty()),
        "gprof's call graph was read:\n" + r.stdout());
    if (sample.equals("cxx-nopie-64")) {
      assertFalse(gprof.cycles.isEmpty(), "shapes has the is_even/is_odd cycle:\n" + r.stdout());
    }

    // Default date: the latest with this program's gmon.out data.
    Map<String, Map<String, Long>> job = new TreeMap<>();
    for (Row row : runSql("gprof-callgraph.sql", "program", program).collectAsList()) {
      String relation = row.getAs("relation");
      String key =
          (relation.equals("called by") ? CALLED_BY : CALLS) + normalize(row.getAs("other"));
      job.computeIfAbsent(normalize(row.getAs("function")), k -> new TreeMap<>())
          .merge(key, ((Number) row.getAs("calls")).longValue(), Long::sum);
    }
    // Functions gprof lists with no arc at all (sampled only) have no rows in the job.
    gprof.arcs.keySet().forEach(f -> job.putIfAbsent(f, new TreeMap<>()));
    assertEquals(gprof.arcs, job, "callers and callees of " + sample + " vs gprof -b -q");

    for (String f : gprof.spontaneous) {
      assertTrue(
          job.get(f).keySet().stream().noneMatch(k -> k.startsWith(CALLED_BY)),
          f + " is <spontaneous> in gprof: no caller in the job");
    }
    gprof.called.forEach(
        (f, called) -> {
          long fromOthers = 0;
          long fromItself = 0;
          for (Map.Entry<String, Long> e : job.get(f).entrySet()) {
            if (e.getKey().equals(CALLED_BY + f)) {
              fromItself += e.getValue();
            } else if (e.getKey().startsWith(CALLED_BY)) {
              fromOthers += e.getValue();
            }
          }
          assertEquals(called, fromOthers + "+" + fromItself, "gprof's called field of " + f);
        });
    gprof.cycles.forEach(
        (cycle, members) -> {
          long outside = 0;
          long between = 0;
          for (String member : members) {
            for (Map.Entry<String, Long> e : job.get(member).entrySet()) {
              String caller =
                  e.getKey().startsWith(CALLED_BY)
                      ? e.getKey().substring(CALLED_BY.length())
                      : null;
              if (caller == null || caller.equals(member)) {
                continue;
              }
              if (members.contains(caller)) {
                between += e.getValue();
              } else {
                outside += e.getValue();
              }
            }
          }
          assertEquals(
              gprof.cycleCalled.get(cycle),
              outside + "+" + between,
              "<cycle " + cycle + " as a whole> of " + sample + ", members " + members);
        });
  }

  @Test
  void defaultsToTheProgramsLatestDateAndFiltersByFunction() throws Exception {
    assertEquals(
        0,
        runSql("gprof-callgraph.sql", "program", "workload", "date", "2026-11-21").count(),
        "workload has no data on the later date");
    List<Row> merge =
        runSql(
                "gprof-callgraph.sql",
                "program",
                "workload",
                "date",
                "2026-11-20",
                "function",
                "merge%")
            .collectAsList();
    Set<String> functions = new TreeSet<>();
    merge.forEach(r -> functions.add(r.getAs("function")));
    assertEquals(Set.of("merge", "merge_sort"), functions);
    assertTrue(
        merge.stream()
            .anyMatch(
                r ->
                    r.getAs("function").equals("merge_sort")
                        && r.getAs("relation").equals("called by")
                        && r.getAs("other").equals("main")));
  }

  private static String normalize(String gprofName) {
    return CLONE.matcher(CYCLE_MEMBER.matcher(gprofName.strip()).replaceAll("")).replaceAll("");
  }

  /** What {@code gprof -b -q} prints, as comparable facts. */
  private static final class CallGraph {
    /** Per function: "called by F" and "calls F" with the call counts of its lines. */
    final Map<String, Map<String, Long>> arcs = new TreeMap<>();

    /** Per function: its called field as "N+M" (M 0 when gprof prints N alone). */
    final Map<String, String> called = new TreeMap<>();

    final Set<String> spontaneous = new TreeSet<>();

    /** Per cycle number: its members; and its called field as "N+M". */
    final Map<String, Set<String>> cycles = new TreeMap<>();

    final Map<String, String> cycleCalled = new TreeMap<>();

    static CallGraph parse(String text) {
      CallGraph g = new CallGraph();
      List<String> entry = new ArrayList<>();
      boolean inGraph = false;
      for (String line : text.split("\n")) {
        if (line.startsWith("index % time")) {
          inGraph = true;
        } else if (line.startsWith("Index by function name")) {
          break;
        } else if (inGraph && line.startsWith("-----")) {
          g.add(entry);
          entry.clear();
        } else if (inGraph && !line.isBlank()) {
          entry.add(line);
        }
      }
      g.add(entry);
      return g;
    }

    private void add(List<String> entry) {
      int primary = -1;
      Matcher p = null;
      for (int i = 0; i < entry.size() && primary < 0; i++) {
        p = PRIMARY.matcher(entry.get(i));
        if (p.matches()) {
          primary = i;
        }
      }
      if (primary < 0) {
        assertTrue(entry.isEmpty(), "an entry without its function line: " + entry);
        return;
      }
      String calledField =
          (p.group(2) == null ? "0" : p.group(2)) + "+" + (p.group(3) == null ? "0" : p.group(3));
      Matcher whole = CYCLE_WHOLE.matcher(p.group(4));
      if (whole.matches()) {
        cycleCalled.put(whole.group(1), calledField);
        Set<String> members = cycles.computeIfAbsent(whole.group(1), k -> new TreeSet<>());
        for (String line : entry.subList(primary + 1, entry.size())) {
          Matcher m = arcLine(line);
          String member = normalize(m.group(3));
          members.add(member);
          called.merge(
              member,
              m.group(1) + "+" + (m.group(2) == null ? "0" : m.group(2)),
              (a, b) -> a.equals(b) ? a : a + " and " + b);
        }
        return;
      }
      String function = normalize(p.group(4));
      Map<String, Long> lines = arcs.computeIfAbsent(function, k -> new TreeMap<>());
      called.merge(function, calledField, (a, b) -> a.equals(b) ? a : a + " and " + b);
      for (int i = 0; i < entry.size(); i++) {
        if (i == primary) {
          continue;
        }
        if (entry.get(i).strip().equals("<spontaneous>") && i < primary) {
          spontaneous.add(function);
          continue;
        }
        Matcher m = arcLine(entry.get(i));
        lines.merge(
            (i < primary ? CALLED_BY : CALLS) + normalize(m.group(3)),
            Long.parseLong(m.group(1)),
            Long::sum);
      }
    }

    private static Matcher arcLine(String line) {
      Matcher m = ARC.matcher(line);
      assertTrue(m.matches(), "a gprof call graph line this test cannot read: " + line);
      return m;
    }
  }

  private static Dataset<Row> runSql(String file, String... defines) throws Exception {
    return SqlFiles.run(spark, out, file, defines);
  }
}
