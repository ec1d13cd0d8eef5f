package dev.fleetprof.format;

import java.io.Serializable;

/**
 * What a format's split reader needs to know of one file before it can read a slice of it: found
 * once per large file when the read is planned ({@link ProfileFormat#splitLayout}), then shipped to
 * every task that reads one of the file's slices ({@link ProfileFormat#openSplit}). It travels in a
 * broadcast, so it should stay small (a header, the records' extent, the mappings), and it must be
 * serializable.
 */
public interface SplitLayout extends Serializable {
  /**
   * Whether the file can be read in slices: the format's boundary checker can find a record's start
   * from any offset. A file that cannot is read whole, as one slice.
   */
  boolean splittable();

  /** Why the file is not {@link #splittable()}, for the planning log; null when it is. */
  String whyNotSplittable();

  /**
   * Where the file's records end: slices are cut over {@code [0, recordsEnd())} only, so that none
   * starts in what follows the records (a trailer, a maps text); the last slice runs to the end of
   * the file.
   */
  long recordsEnd();
}
