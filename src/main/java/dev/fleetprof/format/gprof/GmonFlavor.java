package dev.fleetprof.format.gprof;

/** The on-disk dialect of a gmon file. */
public enum GmonFlavor {
  /**
   * GNU format, header {@code gmon} + version 0 (pre-1999 gprof). Histogram and arc records as in
   * v1.
   */
  GNU_V0,
  /** GNU format, header {@code gmon} + version 1: what glibc and {@code gprof -s} write today. */
  GNU_V1,
  /**
   * 4.4BSD format: header {@code lpc hpc ncnt version(0x00051879) profrate spare[12]}, bins, arcs.
   */
  BSD_44,
  /** Old BSD format: header {@code lpc hpc ncnt}, bins, arcs; no magic, no version, no rate. */
  BSD_OLD;

  /** True for the two tagged GNU flavors. */
  public boolean isGnu() {
    return this == GNU_V0 || this == GNU_V1;
  }
}
