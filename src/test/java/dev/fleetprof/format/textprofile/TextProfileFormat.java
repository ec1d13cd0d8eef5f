package dev.fleetprof.format.textprofile;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.SplitLayout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A format that exists only for the tests, to prove that a format plugs into the source, path SQL
 * and the fleet job with no change outside {@code format/}: registered through {@code
 * META-INF/services} (in {@code src/test/plugin-format/}, on the class path of its own test run
 * only), it uses only {@link ProfileFormat}'s hooks. A text file:
 *
 * <pre>
 * %fleetprof-test-profile 10000 microseconds
 * 3 0x401000 0x402000
 * 1 0x401010
 * </pre>
 *
 * <p>The first line is the signature, then what one count stands for (a period and its unit); then
 * one record per line: its count and its call chain, leaf first, in hex. Every record is a sample
 * of CPU time. Any line break starts a record, so a file splits at any offset: a slice that starts
 * inside the file skips to the next line (as Hadoop's text files do).
 */
public final class TextProfileFormat implements ProfileFormat {
  public static final String NAME = "textprofile";

  static final String SIGNATURE = "%fleetprof-test-profile";
  static final String KIND = "sample";

  /** The longest header line read; a longer one is no header. */
  static final int MAX_HEADER = 256;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean hasSignature(byte[] head, int len) {
    byte[] sig = SIGNATURE.getBytes(StandardCharsets.US_ASCII);
    if (len < sig.length + 1) {
      return false;
    }
    for (int i = 0; i < sig.length; i++) {
      if (head[i] != sig[i]) {
        return false;
      }
    }
    return head[sig.length] == ' ' || head[sig.length] == '\n';
  }

  @Override
  public TextProfileReader open(ByteSource file, DecodeOptions options) throws IOException {
    Layout layout = readLayout(file);
    return new TextProfileReader(file, layout, 0, Long.MAX_VALUE, options);
  }

  /** Any file of this format splits: every line break is a record boundary. */
  @Override
  public boolean splits() {
    return true;
  }

  @Override
  public Layout splitLayout(ByteSource file, DecodeOptions options) throws IOException {
    return readLayout(file);
  }

  @Override
  public TextProfileReader openSplit(
      ByteSource file, SplitLayout layout, long start, long end, DecodeOptions options)
      throws IOException {
    return new TextProfileReader(file, (Layout) layout, start, end, options);
  }

  @Override
  public List<CountMeasure> measures() {
    return List.of(CountMeasure.cpuSamples(KIND));
  }

  /**
   * What a slice's reader needs: the header's period and unit, where the records start, and the
   * file's length (the records run to its end).
   */
  record Layout(long period, String unit, long recordsStart, long length) implements SplitLayout {
    @Override
    public boolean splittable() {
      return true;
    }

    @Override
    public String whyNotSplittable() {
      return null;
    }

    @Override
    public long recordsEnd() {
      return length;
    }
  }

  /** Reads the header line. */
  static Layout readLayout(ByteSource file) throws IOException {
    byte[] buf = new byte[MAX_HEADER];
    int n;
    try (InputStream in = file.open(0)) {
      n = in.readNBytes(buf, 0, buf.length);
    }
    int eol = 0;
    while (eol < n && buf[eol] != '\n') {
      eol++;
    }
    if (eol == n) {
      throw new ProfileFormatException(file.name(), 0, "the header line does not end");
    }
    String[] parts = new String(buf, 0, eol, StandardCharsets.US_ASCII).trim().split("\\s+");
    if (parts.length != 3 || !parts[0].equals(SIGNATURE)) {
      throw new ProfileFormatException(
          file.name(), 0, "expected '" + SIGNATURE + " PERIOD UNIT' as the first line");
    }
    long period;
    try {
      period = Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      throw new ProfileFormatException(file.name(), 0, "period " + parts[1] + " is no number");
    }
    return new Layout(period, parts[2], eol + 1, file.length());
  }
}
