package dev.fleetprof.spark.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.spark.ProfileSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The call-chain columns built in Spark's binary layout must be byte for byte what Spark's own
 * projection writes for the same values given as objects: otherwise grouping and joins on frames
 * would see equal chains as different keys.
 */
class UnsafeChainsTest {
  private static final StructType SCHEMA =
      new StructType()
          .add("pcs", new ArrayType(DataTypes.LongType, false), false)
          .add("frames", new ArrayType(ProfileSchema.FRAME_TYPE, false), false)
          .add("mapping", ProfileSchema.MAPPING_TYPE, true);

  // Paths of every length modulo 8 (padding), a multi-byte UTF-8 one, and an empty one; build IDs
  // of two lengths, and none.
  private static final List<Mapping> MAPPINGS =
      List.of(
          new Mapping(
              0x400000L,
              0x500000L,
              0,
              "/usr/bin/server",
              true,
              "0123456789abcdef0123456789abcdef01234567"),
          new Mapping(
              0x7f0000000000L, 0x7f0000100000L, 0x1000, "/lib/x86_64-linux-gnu/libc.so.6", true),
          new Mapping(0x7f0000200000L, 0x7f0000300000L, 0x2000, "/opt/ü/libz.so.1.2", true, "abc"),
          new Mapping(0x7f0000400000L, 0x7f0000500000L, 0, "12345678", true),
          new Mapping(0x7f0000600000L, 0x7f0000700000L, 0, "", true),
          new Mapping(0xffffffffff600000L, 0xffffffffff601000L, 0, "[vsyscall]", true));

  @Test
  void chainsAreWhatSparksProjectionWrites() {
    MappingIndex index = new MappingIndex(MAPPINGS);
    UnsafeChains chains = new UnsafeChains(index, false);
    UnsafeProjection project = UnsafeProjection.create(SCHEMA);
    Random random = new Random(7);
    // Depths across the null-bit word boundaries (64, 128) and an empty chain.
    for (int depth : new int[] {0, 1, 2, 7, 63, 64, 65, 128, 129, 254, 1000}) {
      for (int trial = 0; trial < 20; trial++) {
        long[] pcs = new long[depth + 3]; // longer than depth: only the first depth count
        for (int i = 0; i < pcs.length; i++) {
          pcs[i] =
              random.nextInt(8) == 0
                  ? random.nextLong() // almost surely unmapped
                  : MAPPINGS.get(random.nextInt(MAPPINGS.size())).start()
                      + random.nextInt(0x100000);
        }
        UnsafeRow expected = project.apply(objectRow(index, pcs, depth)).copy();

        UnsafeArrayData frames = chains.frames(pcs, depth);
        assertArrayEquals(bytes(expected.getArray(0)), bytes(chains.pcs(pcs, depth)), "pcs");
        assertArrayEquals(bytes(expected.getArray(1)), bytes(frames), "frames, depth " + depth);
        UnsafeRow mapping = depth > 0 ? chains.mapping(pcs[0]) : null;
        if (expected.isNullAt(2)) {
          assertNull(mapping);
        } else {
          assertArrayEquals(expected.getStruct(2, 5).getBytes(), mapping.getBytes());
        }
      }
    }
  }

  @Test
  void hugeFramesAreRefusedNotAllocated() {
    String longPath = "/" + "x".repeat(1 << 20);
    MappingIndex index = new MappingIndex(List.of(new Mapping(0x1000, 0x2000, 0, longPath, true)));
    long[] pcs = new long[100];
    java.util.Arrays.fill(pcs, 0x1800);
    assertNull(
        new UnsafeChains(index, false).frames(pcs, pcs.length),
        "100 frames of a 1 MiB path exceed the limit of "
            + (UnsafeChains.MAX_FRAMES_BYTES >> 20)
            + " MiB");
    assertEquals(10, new UnsafeChains(index, false).frames(pcs, 10).numElements());
  }

  /** The same values as Spark's generic object rows, built independently of UnsafeChains. */
  private static InternalRow objectRow(MappingIndex index, long[] pcs, int depth) {
    long[] chain = java.util.Arrays.copyOf(pcs, depth);
    List<Object> frames = new ArrayList<>();
    for (long pc : chain) {
      Mapping m = null;
      for (Mapping candidate : MAPPINGS) {
        if (Long.compareUnsigned(candidate.start(), pc) <= 0
            && Long.compareUnsigned(pc, candidate.limit()) < 0) {
          m = candidate;
        }
      }
      frames.add(
          m == null
              ? new GenericInternalRow(new Object[] {null, pc})
              : new GenericInternalRow(
                  new Object[] {UTF8String.fromString(m.path()), pc - m.start() + m.offset()}));
    }
    Mapping leaf = null;
    for (Mapping candidate : MAPPINGS) {
      if (depth > 0
          && Long.compareUnsigned(candidate.start(), chain[0]) <= 0
          && Long.compareUnsigned(chain[0], candidate.limit()) < 0) {
        leaf = candidate;
      }
    }
    return new GenericInternalRow(
        new Object[] {
          new GenericArrayData(java.util.Arrays.stream(chain).boxed().toArray()),
          new GenericArrayData(frames.toArray()),
          leaf == null
              ? null
              : new GenericInternalRow(
                  new Object[] {
                    leaf.start(),
                    leaf.limit(),
                    leaf.offset(),
                    UTF8String.fromString(leaf.path()),
                    leaf.buildId() == null ? null : UTF8String.fromString(leaf.buildId())
                  })
        });
  }

  private static byte[] bytes(org.apache.spark.sql.catalyst.util.ArrayData a) {
    UnsafeArrayData u = (UnsafeArrayData) a;
    byte[] out = new byte[u.getSizeInBytes()];
    org.apache.spark.unsafe.Platform.copyMemory(
        u.getBaseObject(),
        u.getBaseOffset(),
        out,
        org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET,
        out.length);
    return out;
  }
}
