package dev.fleetprof.format;

/**
 * Says what a file that is no profile looks like: a profile directory also holds READMEs, core
 * dumps, binaries and archives, and those must be refused by name, never decoded as garbage (nor
 * taken for an old BSD gmon file, which has no signature and is recognised by its sizes alone).
 */
public final class ForeignFiles {
  /** Signatures of files often found beside profiles, and what to call them. */
  private static final Object[][] FOREIGN = {
    {new byte[] {0x7f, 'E', 'L', 'F'}, "an ELF file"},
    {
      new byte[] {(byte) 0x1f, (byte) 0x8b},
      "gzip data (only files named *.gz, and pprof profiles, are decompressed)"
    },
    {new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, "a PNG image"},
    {new byte[] {(byte) 0xff, (byte) 0xd8, (byte) 0xff}, "a JPEG image"},
    {new byte[] {'%', 'P', 'D', 'F', '-'}, "a PDF document"},
    {new byte[] {'P', 'K', 3, 4}, "a zip archive (or a jar)"},
    {new byte[] {'B', 'Z', 'h'}, "bzip2 data"},
    {new byte[] {(byte) 0xfd, '7', 'z', 'X', 'Z', 0}, "xz data"},
    {new byte[] {(byte) 0x28, (byte) 0xb5, (byte) 0x2f, (byte) 0xfd}, "zstd data"},
  };

  private ForeignFiles() {}

  /** Whether the bytes carry a known foreign signature or are text. */
  public static boolean isForeignOrText(byte[] head, int len) {
    return foreign(head, len) != null || isText(head, len);
  }

  /** A short description of what the bytes look like, for "not a profile" errors. */
  public static String describe(byte[] head, int len) {
    if (len == 0) {
      return "an empty file";
    }
    String foreign = foreign(head, len);
    if (foreign != null) {
      return foreign.equals("an ELF file") ? elf(head, len) : foreign;
    }
    return isText(head, len) ? "text" : "binary data of no known profile format";
  }

  private static String foreign(byte[] head, int len) {
    for (Object[] f : FOREIGN) {
      byte[] magic = (byte[]) f[0];
      if (len >= magic.length
          && java.util.Arrays.equals(head, 0, magic.length, magic, 0, magic.length)) {
        return (String) f[1];
      }
    }
    return null;
  }

  /** An ELF file by its e_type: a core dump deserves to be called one. */
  private static String elf(byte[] head, int len) {
    if (len < 18 || (head[5] != 1 && head[5] != 2)) {
      return "an ELF file";
    }
    int type =
        head[5] == 1
            ? (head[16] & 0xff) | (head[17] & 0xff) << 8
            : (head[16] & 0xff) << 8 | (head[17] & 0xff);
    switch (type) {
      case 1:
        return "an ELF object file";
      case 2:
        return "an ELF executable";
      case 3:
        return "an ELF shared library or position-independent executable";
      case 4:
        return "an ELF core dump";
      default:
        return "an ELF file";
    }
  }

  /**
   * No control bytes but tab, newline, carriage return, form feed, escape: text in any ASCII
   * superset.
   */
  private static boolean isText(byte[] head, int len) {
    for (int i = 0; i < len; i++) {
      int b = head[i] & 0xff;
      if (b < 9 || (b > 13 && b < 32 && b != 27) || b == 127) {
        return false;
      }
    }
    return len > 0;
  }
}
