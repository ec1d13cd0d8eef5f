package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.testing.SpecialFiles;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A binaries directory holding a FIFO or a socket (a stale debugger pipe, an agent's socket) never
 * offers it as a binary: opening a FIFO would block the job forever.
 */
class HadoopBinaryFilesTest {
  @TempDir Path dir;

  @Test
  @Timeout(60)
  void fifosAndSocketsAreNotBinaries() throws Exception {
    Path program = Files.write(dir.resolve("program"), new byte[] {0x7f, 'E', 'L', 'F'});
    Path fifo = SpecialFiles.fifo(dir.resolve("libwork.so"));
    Files.createSymbolicLink(dir.resolve("linked.so"), fifo);
    try (ServerSocketChannel socket = SpecialFiles.socket(dir.resolve("agent.sock"))) {
      HadoopBinaryFiles files = new HadoopBinaryFiles(new Configuration());
      assertEquals(
          List.of(program.toUri().toString().replace("file:///", "file:/")),
          files.filesIn(dir.toString()));
      assertTrue(files.isFile(program.toString()));
      assertFalse(files.isFile(fifo.toString()), "a FIFO");
      assertFalse(files.isFile(dir.resolve("linked.so").toString()), "a link to a FIFO");
      assertFalse(files.isFile(dir.resolve("agent.sock").toString()), "a socket");
    }
  }
}
