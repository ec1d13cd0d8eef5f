package dev.fleetprof.testing;

import dev.fleetprof.format.gperftools.CpuProfileHeader;
import dev.fleetprof.format.gperftools.CpuProfileReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test helpers over gperftools CPU profile bytes: sequential decoding and byte-order conversion.
 */
public final class CpuProfiles {
  private CpuProfiles() {}

  /** All records of a whole file, read sequentially, and how reading ended. */
  public record Decoded(
      CpuProfileHeader header,
      List<DecodedRecord> records,
      CpuProfileReader.End end,
      long stopOffset) {}

  public static Decoded decode(String name, byte[] data) throws IOException {
    {
      CpuProfileHeader h =
          CpuProfileHeader.parse(name, data, Math.min(data.length, 64), data.length);
      CpuProfileReader r =
          CpuProfileReader.wholeFile(name, h, new ByteArrayInputStream(data), data.length, true);
      List<DecodedRecord> out = new ArrayList<>();
      while (r.next()) {
        out.add(new DecodedRecord(r.recordOffset(), r.count(), Arrays.copyOf(r.pcs(), r.depth())));
      }
      return new Decoded(h, out, r.end(), r.stopOffset());
    }
  }

  /**
   * The same profile written by a machine of the other byte order: every slot of the binary part
   * (header, records, trailer) reversed, the maps text unchanged.
   */
  public static byte[] swapByteOrder(byte[] data, int width, long binaryEnd) {
    byte[] out = data.clone();
    for (int p = 0; p + width <= binaryEnd; p += width) {
      for (int i = 0; i < width; i++) {
        out[p + i] = data[p + width - 1 - i];
      }
    }
    return out;
  }
}
