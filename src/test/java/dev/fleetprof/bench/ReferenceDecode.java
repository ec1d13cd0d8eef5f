package dev.fleetprof.bench;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The physical reference of the scan benchmark: how fast one core can walk every record and every
 * pc of a 64-bit little-endian gperftools profile from the page cache. {@link #readLoop} (the
 * reference) and {@link #mappedLoop} use no project code, so they stay the yardstick however the
 * project's decoder changes: the first copies the page cache into a buffer, as every stream-based
 * reader (Hadoop's included) must, the second reads it in place. {@link #projectDecoder} does the
 * same walk through {@link CpuProfileReader}, to show what the decoder itself costs. All fold every
 * slot into sums that the caller compares, so no work can be optimised away.
 */
final class ReferenceDecode {
  private static final int BUFFER = 8 << 20;
  private static final long WINDOW = 256L << 20;

  /** Records, their counts' sum, and a sum of every pc (for cross-checking the decoders). */
  record Totals(long records, long countSum, long pcSum) {}

  private ReferenceDecode() {}

  static Totals mappedLoop(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      ByteBuffer head = window(ch, 0, size);
      if (size < 40 || head.getLong(0) != 0 || head.getLong(8) < 3) {
        throw new IOException(file + ": not a 64-bit little-endian gperftools profile");
      }
      long base = 8 * (2 + head.getLong(8)); // the file offset of w's first byte
      ByteBuffer w = window(ch, base, size);
      int lim = w.limit();
      int p = 0;
      long records = 0;
      long counts = 0;
      long pcs = 0;
      while (true) {
        if (lim - p < 24) {
          if (base + p + 24 > size) {
            break; // truncated: no complete record left
          }
          base += p;
          w = window(ch, base, size);
          lim = w.limit();
          p = 0;
        }
        long count = w.getLong(p);
        long n = w.getLong(p + 8);
        if (n < 0 || n > CpuProfileReader.MAX_DEPTH) {
          throw new IOException(file + ": bad depth " + n + " at byte " + (base + p));
        }
        int need = 16 + 8 * (int) n;
        if (lim - p < need) {
          if (base + p + need > size) {
            break;
          }
          base += p;
          w = window(ch, base, size);
          lim = w.limit();
          p = 0;
        }
        if (count == 0 && n == 1 && w.getLong(p + 16) == 0) {
          break; // the trailer
        }
        for (int q = p + 16, end = p + need; q < end; q += 8) {
          pcs += w.getLong(q);
        }
        counts += count;
        records++;
        p += need;
      }
      return new Totals(records, counts, pcs);
    }
  }

  private static ByteBuffer window(FileChannel ch, long at, long size) throws IOException {
    return ch.map(FileChannel.MapMode.READ_ONLY, at, Math.min(WINDOW, size - at))
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  static Totals readLoop(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
      int lim = refill(ch, buf);
      if (lim < 40 || buf.getLong(0) != 0 || buf.getLong(8) < 3) {
        throw new IOException(file + ": not a 64-bit little-endian gperftools profile");
      }
      int p = (int) (8 * (2 + buf.getLong(8)));
      long records = 0;
      long counts = 0;
      long pcs = 0;
      while (true) {
        if (lim - p < 24) {
          lim = compact(ch, buf, p, lim);
          p = 0;
          if (lim < 24) {
            break;
          }
        }
        long count = buf.getLong(p);
        long n = buf.getLong(p + 8);
        if (n < 0 || n > CpuProfileReader.MAX_DEPTH) {
          throw new IOException(file + ": bad depth " + n);
        }
        int need = 16 + 8 * (int) n;
        if (lim - p < need) {
          lim = compact(ch, buf, p, lim);
          p = 0;
          if (lim < need) {
            break;
          }
        }
        if (count == 0 && n == 1 && buf.getLong(p + 16) == 0) {
          break;
        }
        for (int q = p + 16, end = p + need; q < end; q += 8) {
          pcs += buf.getLong(q);
        }
        counts += count;
        records++;
        p += need;
      }
      return new Totals(records, counts, pcs);
    }
  }

  /** Moves the unread bytes {@code [p, lim)} to the front and fills the rest; the new limit. */
  private static int compact(FileChannel ch, ByteBuffer buf, int p, int lim) throws IOException {
    buf.limit(lim).position(p);
    buf.compact();
    return refill(ch, buf);
  }

  private static int refill(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining() && ch.read(buf) >= 0) {
      // read until the buffer is full or the file ends
    }
    int lim = buf.position();
    buf.clear();
    return lim;
  }

  static Totals projectDecoder(Path file) throws IOException {
    byte[] head = new byte[64];
    long length = Files.size(file);
    int n;
    try (InputStream in = Files.newInputStream(file)) {
      n = in.readNBytes(head, 0, head.length);
    }
    CpuProfileHeader h = CpuProfileHeader.parse(file.toString(), head, n, length);
    try (InputStream body = Files.newInputStream(file)) {
      CpuProfileReader r = CpuProfileReader.wholeFile(file.toString(), h, body, length, true);
      long records = 0;
      long counts = 0;
      long pcs = 0;
      while (r.next()) {
        long[] chain = r.pcs();
        for (int i = 0, d = r.depth(); i < d; i++) {
          pcs += chain[i];
        }
        counts += r.count();
        records++;
      }
      return new Totals(records, counts, pcs);
    }
  }
}
