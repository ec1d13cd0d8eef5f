package dev.fleetprof.format;

import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes of one profile file, as the decoders see them: plain Java, no Spark, no Hadoop. The
 * Spark layer backs it with a Hadoop FileSystem; tests back it with local files or byte arrays.
 */
public interface ByteSource {
  /** The file's name for error messages (its full path where there is one). */
  String name();

  /** The length in bytes, or -1 when it is not known without reading (a compressed file). */
  long length() throws IOException;

  /**
   * A new stream positioned at {@code offset}. Sources of unknown length only support offset 0. The
   * caller closes the stream. Streams are not buffered: wrap them if you read small pieces.
   */
  InputStream open(long offset) throws IOException;
}
