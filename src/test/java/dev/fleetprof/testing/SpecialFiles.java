package dev.fleetprof.testing;

import dev.fleetprof.output.ExternalTool;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Files that are not regular files, made for real: a FIFO by {@code mkfifo} (opening one for
 * reading blocks until a writer comes), a Unix socket by binding one.
 */
public final class SpecialFiles {
  private SpecialFiles() {}

  /** Makes a FIFO at {@code path}; skips the test (fails on CI) without {@code mkfifo}. */
  public static Path fifo(Path path) throws IOException, InterruptedException {
    Path mkfifo = ExternalTool.require("mkfifo", "coreutils");
    Files.createDirectories(path.getParent());
    Process p = new ProcessBuilder(mkfifo.toString(), path.toString()).inheritIO().start();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("mkfifo " + path + " failed");
    }
    if (Files.isRegularFile(path) || !Files.exists(path)) {
      throw new IOException("mkfifo made no FIFO at " + path);
    }
    return path;
  }

  /**
   * Binds a Unix domain socket at {@code path}; the socket file stays until deleted, the returned
   * channel is the test's to close.
   */
  public static ServerSocketChannel socket(Path path) throws IOException {
    Files.createDirectories(path.getParent());
    ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    ch.bind(UnixDomainSocketAddress.of(path));
    return ch;
  }
}
