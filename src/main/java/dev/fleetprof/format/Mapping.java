package dev.fleetprof.format;

import java.io.Serializable;

/**
 * One mapped object of a profiled process: addresses {@code [start, limit)} hold the bytes of
 * {@code path} from file offset {@code offset} on. Addresses are unsigned 64-bit bit patterns.
 *
 * @param path the mapped file; empty for an anonymous mapping (JIT code, ...), never null
 * @param executable whether the mapping was executable (only those can hold sampled PCs)
 * @param buildId the build ID the profile records for the file (pprof's {@code Mapping.build_id}:
 *     for ELF files the GNU build ID in lowercase hex), or null where it records none (gperftools'
 *     maps text, gmon.out, DCPI)
 */
public record Mapping(
    long start, long limit, long offset, String path, boolean executable, String buildId)
    implements Serializable {

  public Mapping {
    if (buildId != null && buildId.isEmpty()) {
      buildId = null;
    }
  }

  /** A mapping whose profile records no build ID for its file. */
  public Mapping(long start, long limit, long offset, String path, boolean executable) {
    this(start, limit, offset, path, executable, null);
  }

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
