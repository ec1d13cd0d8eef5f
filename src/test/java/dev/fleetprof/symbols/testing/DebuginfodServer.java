package dev.fleetprof.symbols.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.output.ExternalTool;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real elfutils {@code debuginfod} serving the ELF files of a folder ({@code debuginfod -F}), on
 * a free port, asked for only at 127.0.0.1. Ready once it answers 200 for each path the caller
 * names (its scan of the folder runs in the background after start); stopped (the process this
 * class started, nothing else) by {@link #close}.
 */
public final class DebuginfodServer implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);

  private final Process process;
  private final Path log;
  public final URI url;

  private DebuginfodServer(Process process, Path log, URI url) {
    this.process = process;
    this.log = log;
    this.url = url;
  }

  /** Skips (or fails under CI) without debuginfod on PATH. */
  public static void require() {
    ExternalTool.require("debuginfod", "debuginfod");
  }

  /** A port nothing listens on at the moment (bound, then released). */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * Serves {@code served}, with its database and log in {@code work}, once it answers each of
   * {@code readyPaths} (e.g. {@code /buildid/ID/debuginfo}).
   */
  public static DebuginfodServer start(Path served, Path work, List<String> readyPaths)
      throws Exception {
    require();
    Files.createDirectories(work);
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      int port = freePort();
      Path log = work.resolve("debuginfod-" + port + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  "debuginfod",
                  "-p",
                  Integer.toString(port),
                  "-F",
                  "-c",
                  "1",
                  "-d",
                  work.resolve("db-" + port + ".sqlite").toString(),
                  served.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      // No upstream servers to forward to, and no client cache in the real home.
      pb.environment().put("DEBUGINFOD_URLS", "");
      pb.environment().put("HOME", work.toString());
      Process p = pb.start();
      DebuginfodServer server =
          new DebuginfodServer(p, log, URI.create("http://127.0.0.1:" + port));
      try {
        server.awaitReady(readyPaths);
        return server;
      } catch (IOException e) {
        last = e; // e.g. the port was taken meanwhile: try another
        server.close();
      } catch (Throwable t) {
        server.close(); // never leave the server running after a failed start
        throw t;
      }
    }
    fail("debuginfod did not start: " + last);
    return null;
  }

  /** Waits until the server answers 200 for every path (the scan in the background found them). */
  private void awaitReady(List<String> paths) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    String last = "";
    for (String path : paths) {
      while (true) {
        if (!process.isAlive()) {
          throw new IOException("debuginfod exited " + process.exitValue() + ": " + log());
        }
        if (System.nanoTime() - deadline > 0) {
          fail("debuginfod at " + url + " did not serve " + path + " in time: " + last + log());
        }
        try {
          int status =
              http.send(
                      HttpRequest.newBuilder(url.resolve(path))
                          .timeout(Duration.ofSeconds(5))
                          .build(),
                      HttpResponse.BodyHandlers.discarding())
                  .statusCode();
          if (status == 200) {
            break;
          }
          last = "HTTP " + status;
        } catch (IOException e) {
          last = e.toString(); // not listening yet
        }
        Thread.sleep(100);
      }
    }
  }

  /** {@code http_requests_total{type=TYPE}} from the server's metrics: requests it answered. */
  public long requests(String type) throws Exception {
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(url.resolve("/metrics"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m =
        Pattern.compile("http_requests_total\\{type=\"" + Pattern.quote(type) + "\"\\} (\\d+)")
            .matcher(body);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private String log() {
    try {
      return "\n" + String.join("\n", tail(Files.readAllLines(log), 20));
    } catch (IOException e) {
      return "";
    }
  }

  private static List<String> tail(List<String> lines, int n) {
    return lines.subList(Math.max(0, lines.size() - n), lines.size());
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
