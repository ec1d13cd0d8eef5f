package dev.fleetprof.spark.read;

import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.StackIds;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;

/**
 * Builds a CPU-profile row's call-chain columns ({@code pcs}, {@code frames}, {@code mapping}) in
 * Spark's own binary layout ({@link UnsafeArrayData}, {@link UnsafeRow}), in buffers reused from
 * row to row. Spark projects every scanned row into that layout; a value already in it is copied
 * with one memory copy, whereas a frame built as an object struct is allocated, null-cleared and
 * copied field by field, which was more than half the time of an all-columns read (measured with
 * JFR on the scan benchmark).
 *
 * <p>Each mapping's frame struct (null bits, the module's offset and size, the offset in the file,
 * the module's bytes) is laid out once; a frame is then that template copied with its offset
 * patched. The layout is exactly what Spark's writers produce (8-byte aligned, zero padded), so
 * equal frames are equal bytes for grouping and joins.
 */
final class UnsafeChains {
  /**
   * No row may hold more than this many bytes of frames: every frame repeats its module's path, and
   * a corrupt or hostile maps text could name a huge path under thousands of pcs.
   */
  static final int MAX_FRAMES_BYTES = 64 << 20;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int STRUCT_FIXED = 24; // null bits, module (offset and size), offset
  private static final int FRAME_FIELDS = 2;
  private static final int MAPPING_FIELDS = 5; // start, limit, offset, path, build_id

  private final MappingIndex mappings;
  private final byte[][] frameTemplates;
  private final long[] mappingStarts;
  private final long[] mappingOffsets;
  private final long[] moduleHashes;
  private final UnsafeRow[] mappingRows;
  private final UnsafeArrayData pcs = new UnsafeArrayData();
  private final UnsafeArrayData frames = new UnsafeArrayData();
  private byte[] pcsBytes = new byte[4096];
  private byte[] framesBytes = new byte[16384];
  private long lastStackId;
  private long lastCheck;

  /** Subtracted from every caller's offset (not the leaf's): 1 puts a caller inside its call. */
  private final long callerDelta;

  /**
   * @param callersMinusOne callers' frames at their return address minus one ({@code
   *     gperftools.callerAddress=call}); the leaf stays as sampled
   */
  UnsafeChains(MappingIndex mappings, boolean callersMinusOne) {
    this.mappings = mappings;
    this.callerDelta = callersMinusOne ? 1 : 0;
    int n = mappings.size();
    frameTemplates = new byte[n][];
    mappingStarts = new long[n];
    mappingOffsets = new long[n];
    moduleHashes = new long[n];
    mappingRows = new UnsafeRow[n];
    for (int i = 0; i < n; i++) {
      Mapping m = mappings.get(i);
      byte[] path = m.path().getBytes(StandardCharsets.UTF_8);
      int padded = roundUp(path.length);
      byte[] frame = new byte[STRUCT_FIXED + padded];
      putLong(frame, 8, ((long) STRUCT_FIXED << 32) | path.length);
      System.arraycopy(path, 0, frame, STRUCT_FIXED, path.length);
      frameTemplates[i] = frame;
      mappingStarts[i] = m.start();
      mappingOffsets[i] = m.offset();
      moduleHashes[i] = StackIds.module(m.path());

      int fixed = 8 + MAPPING_FIELDS * 8;
      byte[] buildId =
          m.buildId() == null ? new byte[0] : m.buildId().getBytes(StandardCharsets.UTF_8);
      byte[] row = new byte[fixed + padded + roundUp(buildId.length)];
      putLong(row, 8, m.start());
      putLong(row, 16, m.limit());
      putLong(row, 24, m.offset());
      putLong(row, 32, ((long) fixed << 32) | path.length);
      System.arraycopy(path, 0, row, fixed, path.length);
      if (m.buildId() == null) {
        putLong(row, 0, 1L << 4); // build_id (field 4) null
      } else {
        putLong(row, 40, ((long) (fixed + padded) << 32) | buildId.length);
        System.arraycopy(buildId, 0, row, fixed + padded, buildId.length);
      }
      UnsafeRow r = new UnsafeRow(MAPPING_FIELDS);
      r.pointTo(row, row.length);
      mappingRows[i] = r;
    }
  }

  /** {@code pcs[0..depth)} as an array value; valid until the next call. */
  UnsafeArrayData pcs(long[] pcs, int depth) {
    int header = UnsafeArrayData.calculateHeaderPortionInBytes(depth);
    int size = header + depth * 8;
    if (pcsBytes.length < size) {
      pcsBytes = new byte[Math.max(size, pcsBytes.length * 2)];
    }
    byte[] b = pcsBytes;
    Arrays.fill(b, 0, header, (byte) 0);
    putLong(b, 0, depth);
    Platform.copyMemory(
        pcs, Platform.LONG_ARRAY_OFFSET, b, Platform.BYTE_ARRAY_OFFSET + header, depth * 8L);
    this.pcs.pointTo(b, Platform.BYTE_ARRAY_OFFSET, size);
    return this.pcs;
  }

  /**
   * The frames of {@code pcs[0..depth)}, or null when they would exceed {@link #MAX_FRAMES_BYTES}.
   */
  UnsafeArrayData frames(long[] pcs, int depth) {
    long id = StackIds.SEED;
    int header = UnsafeArrayData.calculateHeaderPortionInBytes(depth);
    int cursor = header + depth * 8; // where the first struct goes, after the offset-and-size slots
    int needed = cursor + depth * STRUCT_FIXED;
    ensureFrames(needed);
    byte[] b = framesBytes;
    Arrays.fill(b, 0, header, (byte) 0);
    putLong(b, 0, depth);
    for (int i = 0; i < depth; i++) {
      long pc = pcs[i];
      int m = mappings.find(pc);
      long offset = offset(m, pc, i);
      int size;
      if (m >= 0) {
        byte[] t = frameTemplates[m];
        size = t.length;
        needed += size - STRUCT_FIXED;
        if (needed > b.length) {
          if (needed > MAX_FRAMES_BYTES) {
            return null;
          }
          ensureFrames(needed);
          b = framesBytes;
        }
        System.arraycopy(t, 0, b, cursor, size);
        putLong(b, cursor + 16, offset);
        id = StackIds.frame(id, moduleHashes[m], offset);
      } else {
        size = STRUCT_FIXED;
        putLong(b, cursor, 1L); // the module is null
        putLong(b, cursor + 8, 0L);
        putLong(b, cursor + 16, offset);
        id = StackIds.frame(id, StackIds.NO_MODULE, offset);
      }
      putLong(b, header + i * 8, ((long) cursor << 32) | size);
      cursor += size;
    }
    frames.pointTo(b, Platform.BYTE_ARRAY_OFFSET, cursor);
    lastStackId = StackIds.finish(id, depth);
    return frames;
  }

  /**
   * The {@code stack_id} of the frames the last {@link #frames} call built (computed in the same
   * pass, so that a read of both looks each pc's mapping up once).
   */
  long lastStackId() {
    return lastStackId;
  }

  /** The problem of a record whose {@code depth} frames {@link #frames} could not build. */
  static ProfileFormatException framesTooLarge(String path, long recordOffset, int depth) {
    return new ProfileFormatException(
        path,
        recordOffset,
        "the record's "
            + depth
            + " frames would take more than "
            + (MAX_FRAMES_BYTES >> 20)
            + " MiB (each repeats its module's path; is the maps text corrupt?)");
  }

  /** The {@code stack_id} of {@code pcs[0..depth)}: see {@link StackIds}. */
  long stackId(long[] pcs, int depth) {
    return stackId(pcs, depth, StackIds.SEED);
  }

  /**
   * Computes the {@code stack_id} of {@code pcs[0..depth)} ({@link #lastStackId}) and a second
   * fingerprint of the same frames from another seed ({@link #lastCheck}: two chains with equal ids
   * and equal checks have equal frames but with a chance of about 2^-128), in one walk; false when
   * the chain's frames would not fit in a row ({@link #frames} would give null).
   */
  boolean identify(long[] pcs, int depth) {
    long id = StackIds.SEED;
    long check = StackIds.CHECK_SEED;
    long bytes = UnsafeArrayData.calculateHeaderPortionInBytes(depth) + 8L * depth;
    for (int i = 0; i < depth; i++) {
      long pc = pcs[i];
      int m = mappings.find(pc);
      long module = m >= 0 ? moduleHashes[m] : StackIds.NO_MODULE;
      long offset = offset(m, pc, i);
      id = StackIds.frame(id, module, offset);
      check = StackIds.frame(check, module, offset);
      bytes += m >= 0 ? frameTemplates[m].length : STRUCT_FIXED;
    }
    lastStackId = StackIds.finish(id, depth);
    lastCheck = StackIds.finish(check, depth);
    return bytes <= MAX_FRAMES_BYTES;
  }

  /** The check {@link #identify} computed with the last {@link #lastStackId}. */
  long lastCheck() {
    return lastCheck;
  }

  private long stackId(long[] pcs, int depth, long seed) {
    long id = seed;
    for (int i = 0; i < depth; i++) {
      long pc = pcs[i];
      int m = mappings.find(pc);
      id = StackIds.frame(id, m >= 0 ? moduleHashes[m] : StackIds.NO_MODULE, offset(m, pc, i));
    }
    return StackIds.finish(id, depth);
  }

  /**
   * The frame offset of {@code pcs[i]}, held by mapping {@code m} (-1: none, the offset is the pc):
   * the pc's offset in the mapped file, a caller's moved by {@link #callerDelta}. The mapping is
   * the one holding the pc as stored; only the offset moves, as pprof does.
   */
  private long offset(int m, long pc, int i) {
    long at = m >= 0 ? pc - mappingStarts[m] + mappingOffsets[m] : pc;
    return i == 0 ? at : at - callerDelta;
  }

  /** The mapping holding {@code pc} as a struct value, or null. */
  UnsafeRow mapping(long pc) {
    int m = mappings.find(pc);
    return m >= 0 ? mappingRows[m] : null;
  }

  private void ensureFrames(int size) {
    if (framesBytes.length < size) {
      framesBytes =
          Arrays.copyOf(
              framesBytes,
              (int) Math.min(MAX_FRAMES_BYTES, Math.max(size, 2L * framesBytes.length)));
    }
  }

  private static int roundUp(int n) {
    return (n + 7) & ~7;
  }

  private static void putLong(byte[] b, int at, long v) {
    LONGS.set(b, at, v);
  }
}
