package dev.fleetprof.bench;

import com.google.protobuf.CodedOutputStream;
import dev.fleetprof.bench.StackPoolProfiles.Written;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A large uncompressed pprof profile streamed to disk, laid out as Go writes one: the samples first
 * (drawn from a pool of call chains, skewed toward a few hot ones, as real profiles are), then the
 * mapping, locations (each with a line), functions, string table and period. Two sample types,
 * {@code samples/count} (the default, so {@code count} sums to the generator's count) and {@code
 * cpu/nanoseconds}.
 */
final class LargePprof {
  private static final int LOCATIONS = 20_000;
  private static final int CHAINS = 5_000;
  private static final long PERIOD = 10_000_000;
  private static final long START = 0x400000;

  private LargePprof() {}

  static Written write(Path file, long targetBytes, long seed) throws IOException {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[][] chains = new long[CHAINS][];
    for (int i = 0; i < CHAINS; i++) {
      long[] c = new long[5 + rnd.nextInt(40)];
      for (int j = 0; j < c.length; j++) {
        c[j] = 1 + rnd.nextInt(LOCATIONS);
      }
      chains[i] = c;
    }
    List<String> strings = new ArrayList<>(List.of("", "samples", "count", "cpu", "nanoseconds"));
    int binary = strings.size();
    strings.add("/opt/app/bin/server");
    int sourceFile = strings.size();
    strings.add("server.go");
    long records = 0;
    long countSum = 0;
    try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      CodedOutputStream out = CodedOutputStream.newInstance(raw, 1 << 16);
      for (int[] st : new int[][] {{1, 2}, {3, 4}}) {
        out.writeTag(1, 2);
        out.writeUInt32NoTag(
            CodedOutputStream.computeInt64Size(1, st[0])
                + CodedOutputStream.computeInt64Size(2, st[1]));
        out.writeInt64(1, st[0]);
        out.writeInt64(2, st[1]);
      }
      // The tables take about 50 bytes per location.
      long samplesEnd = targetBytes - 50L * LOCATIONS;
      while (out.getTotalBytesWritten() < samplesEnd) {
        // Zipf-like: a few chains hold most samples.
        int pick = (int) (CHAINS * Math.pow(rnd.nextDouble(), 3));
        long[] chain = chains[pick];
        long count = 1 + rnd.nextInt(3);
        int ids = 0;
        for (long id : chain) {
          ids += CodedOutputStream.computeUInt64SizeNoTag(id);
        }
        int values =
            CodedOutputStream.computeInt64SizeNoTag(count)
                + CodedOutputStream.computeInt64SizeNoTag(count * PERIOD);
        int size =
            1
                + CodedOutputStream.computeUInt32SizeNoTag(ids)
                + ids
                + 1
                + CodedOutputStream.computeUInt32SizeNoTag(values)
                + values;
        out.writeTag(2, 2);
        out.writeUInt32NoTag(size);
        out.writeTag(1, 2);
        out.writeUInt32NoTag(ids);
        for (long id : chain) {
          out.writeUInt64NoTag(id);
        }
        out.writeTag(2, 2);
        out.writeUInt32NoTag(values);
        out.writeInt64NoTag(count);
        out.writeInt64NoTag(count * PERIOD);
        records++;
        countSum += count;
      }
      // The mapping, one location and one function per location id, then the strings.
      byte[] mapping =
          message(
              o -> {
                o.writeUInt64(1, 1);
                o.writeUInt64(2, START);
                o.writeUInt64(3, START + 16L * LOCATIONS + 4096);
                o.writeInt64(5, binary);
              });
      out.writeByteArray(3, mapping);
      for (int l = 1; l <= LOCATIONS; l++) {
        long id = l;
        int name = strings.size();
        strings.add("main.f" + l);
        byte[] line =
            message(
                o -> {
                  o.writeUInt64(1, id);
                  o.writeInt64(2, 10 + id % 500);
                });
        out.writeByteArray(
            4,
            message(
                o -> {
                  o.writeUInt64(1, id);
                  o.writeUInt64(2, 1);
                  o.writeUInt64(3, START + 16 * id);
                  o.writeByteArray(4, line);
                }));
        out.writeByteArray(
            5,
            message(
                o -> {
                  o.writeUInt64(1, id);
                  o.writeInt64(2, name);
                  o.writeInt64(3, name);
                  o.writeInt64(4, sourceFile);
                }));
      }
      for (String s : strings) {
        out.writeString(6, s);
      }
      out.writeByteArray(
          11,
          message(
              o -> {
                o.writeInt64(1, 3);
                o.writeInt64(2, 4);
              }));
      out.writeInt64(12, PERIOD);
      out.writeInt64(14, 1);
      out.flush();
      return new Written(out.getTotalBytesWritten(), records, countSum);
    }
  }

  private interface Body {
    void write(CodedOutputStream o) throws IOException;
  }

  private static byte[] message(Body body) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    CodedOutputStream o = CodedOutputStream.newInstance(bytes);
    body.write(o);
    o.flush();
    return bytes.toByteArray();
  }
}
