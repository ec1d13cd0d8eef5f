package dev.fleetprof.format.dcpi;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.testing.TestSources;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every prefix of small valid files, and single-byte corruptions of them, read from known-length
 * and unknown-length sources: each read either ends cleanly or throws a ProfileFormatException
 * naming the file, never anything else, never hangs.
 */
class DcpiTruncationTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "valid-small.prof",
        "valid-unaligned.prof",
        "valid-bigcounts.prof",
        "valid-empty.prof"
      })
  void everyPrefixFailsCleanlyOrReads(String name) throws Exception {
    byte[] bytes = Files.readAllBytes(DcpiSamplesTest.path(name));
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          int clean = 0;
          for (int len = 0; len < bytes.length; len++) {
            byte[] prefix = Arrays.copyOf(bytes, len);
            String n = name + "[0.." + len + ")";
            boolean a = readsCleanly(TestSources.bytes(n, prefix), n);
            boolean b = readsCleanly(TestSources.unknownLength(n, prefix), n);
            if (a != b) {
              fail(n + ": known-length and unknown-length reads disagree");
            }
            clean += a ? 1 : 0;
          }
          // a strict prefix can only read cleanly if its last 8 bytes happen to be a matching
          // footer
          assertTrue(clean <= 2, name + ": " + clean + " strict prefixes read cleanly");
          assertTrue(readsCleanly(TestSources.bytes(name, bytes), name), "the whole file reads");
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"valid-small.prof", "valid-unaligned.prof", "valid-bigcounts.prof"})
  void singleByteCorruptionsFailCleanlyOrRead(String name) throws Exception {
    byte[] bytes = Files.readAllBytes(DcpiSamplesTest.path(name));
    Random rnd = new Random(42);
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          for (int at = 0; at < bytes.length; at++) {
            for (int mask : new int[] {0x01, 0x80, 1 + rnd.nextInt(255)}) {
              byte[] b = bytes.clone();
              b[at] ^= (byte) mask;
              String n = name + "[" + at + "^" + mask + "]";
              readsCleanly(TestSources.bytes(n, b), n);
              readsCleanly(TestSources.unknownLength(n, b), n);
            }
          }
        });
  }

  /** True if read to the end without error; false on a ProfileFormatException; fails otherwise. */
  static boolean readsCleanly(ByteSource source, String name) {
    try (DcpiProfileReader r = DcpiProfileReader.open(source)) {
      long rows = 0;
      while (r.next()) {
        rows++;
        if (rows > 1_000_000) {
          fail(name + ": too many rows");
        }
      }
      return true;
    } catch (ProfileFormatException e) {
      if (!e.getMessage().startsWith(name + ": at byte offset ") || e.offset() < 0) {
        fail("bad message: " + e.getMessage());
      }
      return false;
    } catch (Throwable t) {
      throw new AssertionError(name + ": unexpected " + t, t);
    }
  }
}
