package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.FleetFixture;
import dev.fleetprof.testing.GeneratedCode;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The fleet job on the real samples: its Parquet output, read back, adds up to the inputs. */
@ExtendWith(GeneratedCode.class)
class FleetAggregateTest {
  private final SparkSession spark = TestSpark.get();

  /** The samples pprof counts in gperftools sample profiles, one host's worth. */
  private static long sampleTotal(List<Path> profiles) {
    return profiles.stream().mapToLong(SampleData::pprofSampleCount).sum();
  }

  private FleetSummary run(String... argv) throws Exception {
    return FleetAggregate.run(spark, FleetAggregate.Args.parse(argv));
  }

  private static BigDecimal dec(long v) {
    return BigDecimal.valueOf(v);
  }

  @Test
  void everyTableAddsUpToTheProfilesAndStacksMergeAcrossHosts(@TempDir Path tmp) throws Exception {
    // Two hosts ran the same binaries on 2026-11-20: their stacks must merge into one row each
    // (frames, not raw pcs, are the key). One more host on 2026-11-21, and a stray README.
    List<Path> all = SampleData.gperftoolsProfiles();
    List<Path> one = List.of(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    FleetFixture fleet =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "web041", all)
            .copy("2026-11-20", "web042", all)
            .copy("2026-11-21", "web043", one)
            .write("2026-11-20", "web042", "README.txt", "not a profile\n".getBytes());
    Path in = fleet.root();
    String out = tmp.resolve("fleet").toString();
    FleetSummary s = run("--input", in.toString(), "--output", out);

    assertEquals(List.of("2026-11-20", "2026-11-21"), s.dates());
    // zero_samples.prof has no records, hence no rows: the job cannot see it.
    assertEquals(2 * (all.size() - 1) + 1 + 1, s.files(), "the profiles with records, the README");
    assertEquals(1, s.filesWithProblems());
    long day1 = 2 * sampleTotal(all);
    long day2 = sampleTotal(one);
    assertEquals(dec(day1 + day2), s.totalCount());
    // The bytes read: every file in files/ (the README included), its size on disk.
    long bytes = 0;
    for (Row r : spark.read().parquet(out + "/files").select("path").collectAsList()) {
      bytes += Files.size(Path.of(new org.apache.hadoop.fs.Path(r.getString(0)).toUri().getPath()));
    }
    assertEquals(bytes, s.bytes());

    for (String t : List.of("stacks", "host_stacks", "locations", "modules", "files")) {
      assertTrue(Files.exists(Path.of(out, t, "_SUCCESS")), t + " is marked done");
      assertTrue(Files.exists(Path.of(out, t, "date=2026-11-21", "_SUCCESS")), t);
    }
    Dataset<Row> stacks = spark.read().parquet(out + "/stacks");
    assertEquals("decimal(38,0)", stacks.schema().apply("count").dataType().simpleString());
    assertEquals("date", stacks.schema().apply("date").name());
    Row d1 =
        stacks
            .where("date = '2026-11-20'")
            .selectExpr("sum(count)", "min(profiles)", "min(hosts)", "max(hosts)")
            .first();
    assertEquals(dec(day1), d1.getDecimal(0));
    assertEquals(2L, d1.getLong(1), "every stack came from both hosts' copies");
    assertEquals(2L, d1.getLong(2));
    assertEquals(2L, d1.getLong(3));
    assertTrue(stacks.where("date = '2026-11-20' AND count % 2 != 0").isEmpty());
    assertEquals(
        dec(day2),
        stacks.where("date = '2026-11-21'").selectExpr("sum(count)").first().getDecimal(0));

    Dataset<Row> hostStacks = spark.read().parquet(out + "/host_stacks");
    assertEquals(
        dec(day1 / 2),
        hostStacks.where("host = 'web041'").selectExpr("sum(count)").first().getDecimal(0));

    // Locations: every stack has one leaf, so self counts add up to the day's total; a
    // location's total is the count of the stacks it is on (recursion counted once), checked
    // here against a plain loop over the source's rows, whose caller frames the job shows as
    // pprof does: the return address minus one.
    Dataset<Row> locations = spark.read().parquet(out + "/locations").where("date = '2026-11-20'");
    assertEquals(dec(day1), locations.selectExpr("sum(self_count)").first().getDecimal(0));
    Row top = locations.orderBy(org.apache.spark.sql.functions.desc("total_count")).first();
    long onStack = 0;
    for (Row r :
        spark
            .read()
            .format("profile")
            .load(in.resolve("date=2026-11-20").toString())
            .where("kind = 'sample'")
            .select("frames", "count")
            .collectAsList()) {
      List<Row> frames = r.getList(0);
      for (int i = 0; i < frames.size(); i++) {
        Row f = frames.get(i);
        if (java.util.Objects.equals(f.get(0), top.getAs("module"))
            && f.getLong(1) - (i == 0 ? 0 : 1) == (long) top.getAs("offset")) {
          onStack += r.getLong(1);
          break;
        }
      }
    }
    assertEquals(dec(onStack), top.getAs("total_count"));

    Dataset<Row> modules = spark.read().parquet(out + "/modules");
    assertEquals(
        dec(day1 / 2),
        modules
            .where("date = '2026-11-20' AND host = 'web042'")
            .selectExpr("sum(self_count)")
            .first()
            .getDecimal(0));

    Row readme = spark.read().parquet(out + "/files").where("path LIKE '%README.txt'").first();
    assertEquals(1L, (long) readme.getAs("problems"));
    assertTrue(((String) readme.getAs("problem")).contains("not a profile"));
  }

  /**
   * Every Spark job of a run says in the Spark UI which part of the run it is (the description the
   * UI shows; Spark's default is the call site, "count at FleetAggregate.java:NNN"), each dataset's
   * write by its name; and the thread's later jobs are not labelled as the run's.
   */
  @Test
  void theSparkUiNamesEveryJobOfARun(@TempDir Path tmp) throws Exception {
    FleetFixture fleet =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "a", List.of(SampleData.GPERFTOOLS.resolve("multithreaded.prof")));
    List<String> descriptions = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart job) {
            descriptions.add(String.valueOf(job.properties().getProperty("spark.job.description")));
          }
        };
    spark.sparkContext().addSparkListener(listener);
    try {
      run("--input", fleet.root().toString(), "--output", tmp.resolve("fleet").toString());
      spark.range(1).count(); // a job of this thread after the run
      long deadline = System.nanoTime() + 30_000_000_000L; // listeners hear of jobs asynchronously
      while (!descriptions.contains("null") && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    // The count after the run may be more than one job (adaptive execution runs stages as jobs).
    List<String> run = descriptions.subList(0, descriptions.indexOf("null"));
    for (String after : descriptions.subList(run.size(), descriptions.size())) {
      assertEquals("null", after, "after the run: " + descriptions);
    }
    assertTrue(run.size() > 6, "a run's jobs: " + run);
    for (String d : run) {
      assertTrue(d.startsWith("fleet-aggregate: "), "every job of the run is named: " + run);
    }
    for (String dataset : FleetAggregate.DATASETS) {
      assertTrue(run.contains("fleet-aggregate: writing " + dataset), dataset + ": " + run);
    }
  }

  @Test
  void reRunningADateReplacesExactlyThatDate(@TempDir Path tmp) throws Exception {
    List<Path> one = List.of(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    List<Path> other = List.of(SampleData.GPERFTOOLS.resolve("deep_recursion.prof"));
    FleetFixture fleet =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "a", one)
            .copy("2026-11-21", "a", one);
    Path in = fleet.root();
    String out = tmp.resolve("fleet").toString();
    run("--input", in.toString(), "--output", out);
    Path day1 = Path.of(out, "stacks", "date=2026-11-20");
    List<String> day1Files;
    try (var files = Files.list(day1)) {
      day1Files = files.map(p -> p.getFileName().toString()).sorted().toList();
    }

    // Late profiles arrive for the 21st; the job is re-run for that date only.
    fleet.copy("2026-11-21", "b", other);
    FleetSummary s = run("--input", in.toString(), "--output", out, "--date", "2026-11-21");
    assertEquals(List.of("2026-11-21"), s.dates());
    try (var files = Files.list(day1)) {
      assertEquals(
          day1Files,
          files.map(p -> p.getFileName().toString()).sorted().toList(),
          "the other date's files are untouched");
    }
    Dataset<Row> stacks = FleetOutput.read(spark, out, "stacks");
    assertEquals(
        dec(sampleTotal(one)),
        stacks.where("date = '2026-11-20'").selectExpr("sum(count)").first().getDecimal(0));
    assertEquals(
        dec(sampleTotal(one) + sampleTotal(other)),
        stacks.where("date = '2026-11-21'").selectExpr("sum(count)").first().getDecimal(0),
        "replaced, not appended");
  }

  @Test
  void aCorruptPartFileOfAnotherDateNeverFailsARun(@TempDir Path tmp) throws Exception {
    List<Path> one = List.of(SampleData.GPERFTOOLS.resolve("multithreaded.prof"));
    FleetFixture fleet =
        new FleetFixture(tmp.resolve("in"))
            .copy("2026-11-20", "a", one)
            .copy("2026-11-21", "a", one);
    String out = tmp.resolve("fleet").toString();
    run("--input", fleet.root().toString(), "--output", out);
    // Every part file of the 20th in every dataset is overwritten with garbage (a disk fault, a
    // half-copied backup): Parquet would fail on any of them, at its footer.
    List<Path> parts;
    try (var walk = Files.walk(Path.of(out))) {
      parts =
          walk.filter(p -> p.toString().contains("date=2026-11-20"))
              .filter(p -> p.getFileName().toString().startsWith("part-"))
              .toList();
    }
    assertFalse(parts.isEmpty());
    for (Path p : parts) {
      Files.write(p, "not parquet".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
    FleetSummary s =
        run("--input", fleet.root().toString(), "--output", out, "--date", "2026-11-21");
    assertEquals(List.of("2026-11-21"), s.dates());
    assertEquals(1, s.files());
    assertEquals(dec(sampleTotal(one)), s.totalCount(), "the 21st's samples, read back");
  }

  @Test
  void withoutDateDirectoriesTheDateComesFromTheCommandLine(@TempDir Path tmp) throws Exception {
    String out = tmp.resolve("fleet").toString();
    FleetSummary s =
        run("--input", SampleData.GPERFTOOLS.toString(), "--output", out, "--date", "2026-01-02");
    assertEquals(List.of("2026-01-02"), s.dates());
    assertEquals(dec(sampleTotal(SampleData.gperftoolsProfiles())), s.totalCount());
    assertTrue(Files.isDirectory(Path.of(out, "locations", "date=2026-01-02")));
  }

  @Test
  void argumentsAreChecked() {
    FleetAggregate.Args a =
        FleetAggregate.Args.parse(
            new String[] {
              "--input",
              "a",
              "--input",
              "b",
              "--output",
              "o",
              "--glob",
              "*.prof",
              "--date",
              "2026-11-20",
              "--pprof",
              "p.pb.gz"
            });
    assertEquals(java.time.LocalDate.of(2026, 11, 20), a.date());
    assertEquals("p.pb.gz", a.pprof());
    assertEquals(List.of("a", "b"), a.inputs());
    assertEquals("o", a.output());
    assertEquals("*.prof", a.glob());
    // The job has no demo defaults (jobs/fleet-aggregate, the local script, has them).
    assertThrows(
        IllegalArgumentException.class,
        () -> FleetAggregate.Args.parse(new String[] {"--output", "o"}));
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                FleetAggregate.Args.parse(
                    new String[] {"--input", "a", "--output", "o", "--bogus"}));
    assertTrue(e.getMessage().contains("--bogus"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            FleetAggregate.Args.parse(
                new String[] {"--input", "a", "--output", "o", "--date", "20/11/2026"}));
  }
}
