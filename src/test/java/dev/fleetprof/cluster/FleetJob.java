package dev.fleetprof.cluster;

import dev.fleetprof.testing.ChildJvm;
import dev.fleetprof.testing.SampleData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs the fleet job as users do: the job jar through Spark's own {@code SparkSubmit}, in a child
 * JVM, with the job's command-line contract ({@code --input DIR --output DIR --date YYYY-MM-DD}).
 */
final class FleetJob {
  static final String MAIN = "dev.fleetprof.jobs.FleetAggregate";

  /** Fixed, so that two runs of the job write the same partitions whenever they run. */
  static final String DATE = "2026-11-20";

  /** Generous: a shared CI machine can be several times slower than an idle one. */
  static final long TIMEOUT_SECONDS = 480;

  private static Path samples;

  private static Path localOutput;

  private FleetJob() {}

  /**
   * The job's input: the samples of every format ({@link SampleData#everyFormat}), once per JVM.
   */
  static synchronized Path samples() throws IOException {
    if (samples == null) {
      Path to = Jvms.WORK.resolve("samples");
      deleteRecursively(to);
      samples = SampleData.everyFormat(to);
    }
    return samples;
  }

  /**
   * The job's output for the sample data from a local-mode run (once per JVM): the reference the
   * other runs and readers are checked against.
   */
  static synchronized Path localOutput() throws Exception {
    if (localOutput == null) {
      Path out = Jvms.WORK.resolve("local-output");
      submit("job-local", "local[2]", out, Map.of(), Map.of());
      localOutput = out;
    }
    return localOutput;
  }

  /** Runs the job on the sample data on {@code master}, writing under {@code output}. */
  static void submit(
      String name,
      String master,
      Path output,
      Map<String, String> extraConf,
      Map<String, String> env)
      throws Exception {
    Process p = start(name, master, output, extraConf, env);
    try {
      Jvms.awaitSuccess(p, name, TIMEOUT_SECONDS);
    } finally {
      Jvms.stop(p);
    }
  }

  private static Process start(
      String name,
      String master,
      Path output,
      Map<String, String> extraConf,
      Map<String, String> env)
      throws IOException {
    deleteRecursively(output);
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.sql.shuffle.partitions", "4");
    // Executors (which the standalone worker starts with java) read conf/jvm-options as well.
    conf.put("spark.executor.extraJavaOptions", ChildJvm.optionsArgument());
    // Splits small enough that the samples' larger CPU profiles are read in several record-aligned
    // pieces: their layouts then travel in a broadcast and executors resynchronise mid-file.
    conf.put("spark.sql.files.maxPartitionBytes", "16k");
    conf.put("spark.sql.files.openCostInBytes", "4k");
    conf.putAll(extraConf);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--master",
                master,
                "--deploy-mode",
                "client",
                "--name",
                "fleetprof-" + name,
                "--class",
                MAIN));
    conf.forEach((k, v) -> args.addAll(List.of("--conf", k + "=" + v)));
    args.addAll(
        List.of(
            Jvms.jobJar().toString(),
            "--input",
            samples().toString(),
            "--output",
            output.toString(),
            "--date",
            DATE));
    Map<String, String> childEnv = new LinkedHashMap<>(Map.of("SPARK_LOCAL_IP", "127.0.0.1"));
    childEnv.putAll(env);
    return Jvms.start(
        name, List.of("-Xmx1g"), "org.apache.spark.deploy.SparkSubmit", args, childEnv);
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
