package dev.fleetprof.format;

import java.io.IOException;

/**
 * A profile file whose bytes do not follow its format. Every decoder reports malformed input with
 * this exception, naming the file and the byte offset where the problem was found, so that a fleet
 * job over thousands of files can say exactly which file is bad and where.
 */
public class ProfileFormatException extends IOException {
  private final String file;
  private final long offset;
  private final String problem;

  public ProfileFormatException(String file, long offset, String problem) {
    this(file, offset, problem, null);
  }

  public ProfileFormatException(String file, long offset, String problem, Throwable cause) {
    super(file + ": at byte offset " + offset + ": " + problem, cause);
    this.file = file;
    this.offset = offset;
    this.problem = problem;
  }

  /** The file's path (or another name the caller gave it). */
  public String file() {
    return file;
  }

  /** Byte offset in the (uncompressed) file where the problem was found. */
  public long offset() {
    return offset;
  }

  /** What is wrong, without the file and offset. */
  public String problem() {
    return problem;
  }
}
