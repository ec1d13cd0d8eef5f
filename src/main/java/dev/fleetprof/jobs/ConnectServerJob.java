package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A Spark Connect server whose classpath holds this jar ({@code jobs/connect-server}): one warm
 * Spark session for {@code jobs/sql --remote} and notebooks, where the {@code profile} source, the
 * {@code profile} catalog of {@code conf/spark-defaults.conf} and the fleet views' paths work as in
 * a local run. It is a job's session, started as the jobs start theirs ({@link Sessions}), with
 * Spark Connect's own plugin added, and serves until the JVM is stopped (Ctrl-C, SIGTERM).
 */
public final class ConnectServerJob {
  /** Spark Connect's driver plugin: starts the server in the session's driver. */
  static final String PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin";

  /** Where the server listens. */
  record Address(String host, int port) {
    String url() {
      return "sc://" + host + ":" + port;
    }
  }

  /** The command line (see {@code --help}). */
  @Command(
      name = "connect-server",
      sortOptions = false,
      description =
          "Starts a Spark Connect server with the fleetprof jar on its classpath and the"
              + " profile catalog registered, and serves until stopped (Ctrl-C). jobs/sql"
              + " --remote sc://HOST:PORT runs its statements there, without starting Spark"
              + " each time; notebooks connect the same way.",
      optionListHeading = "%nOptions:%n",
      footerHeading = "%n",
      footer = {
        "Example: jobs/connect-server &",
        "         jobs/sql --remote sc://127.0.0.1:15002 jobs/top-functions.sql"
      })
  static final class Options implements CommandLines.Options<Address> {
    @Option(
        names = "--port",
        paramLabel = "N",
        defaultValue = "15002",
        order = 1,
        description = "the port to listen on (default ${DEFAULT-VALUE}, Spark Connect's)")
    private int port;

    @Option(
        names = "--host",
        paramLabel = "ADDRESS",
        defaultValue = "127.0.0.1",
        order = 2,
        description = {
          "the address to listen on (default ${DEFAULT-VALUE}: this machine's clients only;",
          "Spark Connect authenticates no one, so listen elsewhere only on a trusted network)"
        })
    private String host;

    @Override
    public Address args() {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("--port " + port + " is not a port (1 to 65535)");
      }
      return new Address(host, port);
    }
  }

  private ConnectServerJob() {}

  public static void main(String[] argv) throws IOException {
    CommandLines.exitOnError(
        CommandLines.run(
            new Options(),
            argv,
            System.out,
            System.err,
            (appName, address) ->
                Sessions.start(
                    appName,
                    Map.of(
                        "spark.plugins", PLUGIN,
                        "spark.connect.grpc.binding.address", address.host(),
                        "spark.connect.grpc.binding.port", String.valueOf(address.port()))),
            (spark, address) -> serve(spark, address, System.err)));
  }

  /** Says where the server listens (the plugin started it with the session), then waits. */
  private static void serve(SparkSession spark, Address address, PrintStream log) {
    log.println(
        "connect-server: Spark "
            + spark.version()
            + " listening on "
            + address.url()
            + " (jobs/sql --remote "
            + address.url()
            + "); Ctrl-C stops it");
    log.flush();
    try {
      Thread.currentThread().join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
