package dev.fleetprof.format.textprofile;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The records of a {@link TextProfileFormat} file, or of the lines that start in one slice of it.
 */
final class TextProfileReader implements ProfileRecordReader {
  private static final int MAX_LINE = 1 << 16;

  private final String name;
  private final TextProfileFormat.Layout layout;
  private final long end;
  private final boolean resynced;
  private final InputStream in;

  /** Offset of the next byte {@link #in} gives. */
  private long pos;

  private final byte[] line = new byte[MAX_LINE];
  private long recordOffset = -1;
  private long count;
  private long[] chain = new long[16];
  private int depth;

  TextProfileReader(
      ByteSource file, TextProfileFormat.Layout layout, long start, long end, DecodeOptions options)
      throws IOException {
    this.name = file.name();
    this.layout = layout;
    this.end = end;
    this.resynced = start > 0;
    long from = Math.max(start, layout.recordsStart());
    if (from > layout.recordsStart()) {
      // Inside the records: the line that holds byte from - 1 belongs to the slice before, unless
      // it ends right there.
      this.in = new BufferedInputStream(file.open(from - 1), 1 << 16);
      this.pos = from - 1;
      int b;
      while ((b = in.read()) >= 0) {
        pos++;
        if (b == '\n') {
          break;
        }
      }
    } else {
      this.in = new BufferedInputStream(file.open(from), 1 << 16);
      this.pos = from;
    }
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (pos >= end) {
        return false; // the next line starts in the next slice
      }
      long start = pos;
      int n = 0;
      int b;
      while ((b = in.read()) >= 0) {
        pos++;
        if (b == '\n') {
          break;
        }
        if (n == line.length) {
          throw new ProfileFormatException(name, start, "a line longer than " + MAX_LINE);
        }
        line[n++] = (byte) b;
      }
      if (n == 0 && b < 0) {
        return false;
      }
      String text = new String(line, 0, n, StandardCharsets.US_ASCII).trim();
      if (text.isEmpty()) {
        continue;
      }
      parse(text, start);
      return true;
    }
  }

  private void parse(String text, long start) throws ProfileFormatException {
    String[] parts = text.split("\\s+");
    try {
      count = Long.parseUnsignedLong(parts[0]);
      depth = parts.length - 1;
      if (chain.length < depth) {
        chain = Arrays.copyOf(chain, Math.max(depth, 2 * chain.length));
      }
      for (int i = 0; i < depth; i++) {
        String pc = parts[i + 1];
        chain[i] = Long.parseUnsignedLong(pc.startsWith("0x") ? pc.substring(2) : pc, 16);
      }
    } catch (NumberFormatException e) {
      throw new ProfileFormatException(name, start, "not a record: " + text);
    }
    recordOffset = start;
  }

  @Override
  public String kind() {
    return TextProfileFormat.KIND;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public int depth() {
    return depth;
  }

  @Override
  public long pc(int i) {
    return chain[i];
  }

  @Override
  public long recordOffset() {
    return recordOffset;
  }

  @Override
  public long period() {
    return layout.period();
  }

  @Override
  public String periodUnit() {
    return layout.unit();
  }

  @Override
  public boolean uniformRecords() {
    return true;
  }

  @Override
  public boolean resynced() {
    return resynced;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
