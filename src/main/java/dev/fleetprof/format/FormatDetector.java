package dev.fleetprof.format;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import java.nio.charset.StandardCharsets;

/** Tells the profile formats apart from a file's first bytes. */
public final class FormatDetector {
  /** Bytes of a file's start that {@link #detect} wants (fewer is fine for short files). */
  public static final int HEAD_BYTES = 64;

  public static final String GPERFTOOLS = "gperftools";
  public static final String GPROF = "gprof";
  public static final String DCPI = "dcpi";

  private FormatDetector() {}

  /** The format whose signature {@code head} carries, or null when it is none of them. */
  public static String detect(byte[] head, int len) {
    return detect(head, len, -1);
  }

  /**
   * As {@link #detect(byte[], int)}; with the file's length, old BSD gmon files (which have no
   * magic and are recognised by their sizes adding up) are recognised too.
   */
  public static String detect(byte[] head, int len, long fileLength) {
    if (len >= 4 && head[0] == 'g' && head[1] == 'm' && head[2] == 'o' && head[3] == 'n') {
      return GPROF;
    }
    if (startsWithAscii(head, len, "version")) {
      return DCPI;
    }
    if (CpuProfileHeader.looksLike(head, len)) {
      return GPERFTOOLS;
    }
    if (dev.fleetprof.format.gprof.GmonFile.sniff(head, len, fileLength) != null) {
      return GPROF;
    }
    return null;
  }

  /** A short description of what the bytes look like, for "not a profile" errors. */
  public static String describe(byte[] head, int len) {
    if (len == 0) {
      return "an empty file";
    }
    if (len >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
      return "gzip data in a file whose name does not end in .gz";
    }
    if (len >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
      return "an ELF file (a binary or a core dump)";
    }
    boolean text = true;
    for (int i = 0; i < len; i++) {
      int b = head[i] & 0xff;
      if (b < 9 || (b > 13 && b < 32 && b != 27)) {
        text = false;
        break;
      }
    }
    return text ? "text" : "binary data of no known profile format";
  }

  private static boolean startsWithAscii(byte[] head, int len, String prefix) {
    byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
    if (len < p.length + 1) {
      return false;
    }
    for (int i = 0; i < p.length; i++) {
      if (head[i] != p[i]) {
        return false;
      }
    }
    return head[p.length] == ' ' || head[p.length] == '\t';
  }
}
