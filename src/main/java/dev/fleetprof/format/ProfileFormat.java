package dev.fleetprof.format;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * One profile format: how to recognise a file of it, how to open a decoder over it, and what the
 * layers above need to know of it that the records alone do not say: whether and how its large
 * files split, which of the source's columns only it fills, what its counts measure. Every format
 * is registered once, in {@link ProfileFormats}; readers (the Spark source, the fleet job, the
 * tests, the fuzz targets) find and open formats only through that list and these methods, so that
 * adding a format means writing its package under {@code format/} and registering it, with no
 * change in {@code spark/} or {@code jobs/}.
 *
 * <p>Recognition has two strengths, as pprof's legacy parsers have: a signature (magic bytes or a
 * keyword that no other format starts with) is trusted first, for every format; a format with no
 * signature (the old BSD gmon header) may then recognise a file by its sizes adding up, which is
 * only tried after the bytes were found to be no known foreign file and no text.
 */
public interface ProfileFormat {
  /** The format's name, as the {@code format} column and option spell it (lower case). */
  String name();

  /** Whether {@code head} (the file's first {@code len} bytes) carries this format's signature. */
  boolean hasSignature(byte[] head, int len);

  /**
   * Whether a file with no signature is of this format by its structure (e.g. sizes in a header
   * that add up to the file's length). Only asked for bytes that are no known foreign file and no
   * text.
   *
   * @param fileLength the file's length, or -1 when unknown (compressed)
   */
  default boolean matchesWithoutSignature(byte[] head, int len, long fileLength) {
    return false;
  }

  /** The read options this format's decoder understands (case-sensitive documented names). */
  default List<String> optionNames() {
    return List.of();
  }

  /**
   * Checks this format's options on their own, so that a bad value fails when the read is planned
   * rather than in every task.
   *
   * @throws IllegalArgumentException naming the option and the bad value
   */
  default void validate(DecodeOptions options) {}

  /**
   * Opens a decoder over a whole file that carries this format ({@link #hasSignature} or {@link
   * #matchesWithoutSignature} said so, or the user named the format).
   *
   * @throws ProfileFormatException (naming the file and offset) when the file is not readable as
   *     this format
   */
  ProfileRecordReader open(ByteSource file, DecodeOptions options) throws IOException;

  /**
   * As {@link #open(ByteSource, DecodeOptions)}, for a caller that already read the file's first
   * {@code headLength} bytes (to detect its format): a format whose header fits in them parses it
   * from there instead of opening the file once more.
   */
  default ProfileRecordReader open(
      ByteSource file, byte[] head, int headLength, DecodeOptions options) throws IOException {
    return open(file, options);
  }

  /**
   * Whether a large file of this format may be read in slices (as Spark's {@code
   * FileFormat.isSplitable}): then {@link #splitLayout} is asked for each such file, and {@link
   * #openSplit} opens its slices. False by default: most profiles are small, and a format without a
   * boundary checker cannot split.
   */
  default boolean splits() {
    return false;
  }

  /**
   * The layout of a file to read in slices, or null to read it whole. Asked once per file when the
   * read is planned, for a format that {@link #splits()}, only for an uncompressed file of known
   * length larger than the split size whose first bytes this format recognises (and, when the read
   * names a format, only for that one). A layout that is not {@link SplitLayout#splittable()} has
   * the file read whole, with its reason logged.
   *
   * @param file the whole file
   * @param options the read's format options (chains and mappings wanted)
   */
  default SplitLayout splitLayout(ByteSource file, DecodeOptions options) throws IOException {
    return null;
  }

  /**
   * Opens a decoder over the records that start in {@code [start, end)} of a file whose {@code
   * layout} {@link #splitLayout} returned; the slices of a file together give each record once,
   * exactly as {@link #open(ByteSource, DecodeOptions)} gives them, whatever the split size. A
   * slice starting inside the file finds its first record with the format's boundary checker (and
   * says so: {@link ProfileRecordReader#resynced()}); its last record may run past {@code end}.
   *
   * @throws ProfileFormatException when the slice is not readable as this format
   */
  default ProfileRecordReader openSplit(
      ByteSource file, SplitLayout layout, long start, long end, DecodeOptions options)
      throws IOException {
    throw new UnsupportedOperationException(name() + " files are not read in slices");
  }

  /**
   * The columns of the source's schema that only this format fills (gprof's {@code histogram}), by
   * name; the source fills them from this format's decoder and leaves them null on other rows.
   */
  default List<String> columns() {
    return List.of();
  }

  /**
   * What this format's counts measure, per record kind, first match first; a kind none of them
   * names is counted as itself (measure = the kind, in {@code count}).
   */
  default List<CountMeasure> measures() {
    return List.of();
  }

  /**
   * Whether the caller frames ({@code frames} past the leaf) of this format's records are built at
   * the stored pc minus one, inside the call instruction (as a read option of the format asks),
   * rather than at the return address it stores. {@code pcs} and {@code mapping} are the same
   * either way.
   */
  default boolean callerFramesMinusOne(DecodeOptions options) {
    return false;
  }

  /**
   * The read options under which this format's caller frames are call sites, as pprof shows them
   * and a symbolizer needs them (a job that names frames sets them); empty when its frames already
   * are.
   */
  default Map<String, String> callSiteFrameOptions() {
    return Map.of();
  }

  /**
   * Whether this format's files may be gzip data under any name (Go writes pprof profiles gzipped
   * as {@code cpu.prof}), so that gzip data not named {@code .gz} is decompressed and looked at
   * again; other formats' files are compressed by name only, and such data is refused.
   */
  default boolean gzippedUnderAnyName() {
    return false;
  }

  /** What this format's frames' offsets are, for naming them from binaries. */
  default FrameAddresses frameAddresses() {
    return FrameAddresses.FILE_OFFSETS;
  }

  /**
   * Why this format's frames are not named ({@link FrameAddresses#NOT_SYMBOLIZED}), as a job's
   * summary and each location's problem say it; null for a format whose frames are.
   */
  default String whyNotSymbolized() {
    return null;
  }
}
