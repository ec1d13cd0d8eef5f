package dev.fleetprof.format;

import java.io.IOException;
import java.util.List;

/**
 * One profile format: how to recognise a file of it and how to open a decoder over it. Every format
 * is registered once, in {@link ProfileFormats}; readers (the Spark source, the tests, the fuzz
 * targets) find and open formats only through that list, so that adding a format means writing its
 * package under {@code format/} and one line there.
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
}
