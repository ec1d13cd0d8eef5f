package dev.fleetprof.format;

import java.io.Serializable;

/**
 * One mapped object of a profiled process: addresses {@code [start, limit)} hold the bytes of
 * {@code path} from file offset {@code offset} on. Addresses are unsigned 64-bit bit patterns.
 *
 * @param path the mapped file; empty for an anonymous mapping (JIT code, ...), never null
 * @param executable whether the mapping was executable (only those can hold sampled PCs)
 */
public record Mapping(long start, long limit, long offset, String path, boolean executable)
    implements Serializable {

  public boolean contains(long pc) {
    return Long.compareUnsigned(pc, start) >= 0 && Long.compareUnsigned(pc, limit) < 0;
  }

  /**
   * The file offset of {@code pc}: the same in every process that mapped this file (ASLR-proof).
   */
  public long fileOffset(long pc) {
    return pc - start + offset;
  }
}
