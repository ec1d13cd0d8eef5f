package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.Mapping;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the maps text that follows a CPU profile's trailer as a stream of lines, whatever bytes it
 * holds: a NUL is just a byte of its line, lines may be of any length, and the text is decoded as
 * UTF-8 (paths are bytes; Linux tools write them as UTF-8), each invalid sequence replaced with
 * U+FFFD and counted. Only whole lines count: gperftools ends every line with a newline, so
 * whatever follows the last one is a line the file was cut inside, whose limit or path may be cut
 * short. Lines may be of any length (pprof reads the text with a {@code bufio.Scanner} and fails
 * the whole profile on a line over 64 KiB; the limit on the whole text is what bounds a line here).
 * At most {@code max} bytes are read; a longer text gives no mappings (none rather than some: the
 * same file must give the same modules however it is read).
 */
final class MapsText {
  /**
   * What the text held.
   *
   * @param mappings the executable mappings listed, in order (none when the text was over the
   *     limit)
   * @param listed how many mappings were listed, executable or not
   * @param invalidUtf8 invalid UTF-8 sequences replaced with U+FFFD
   * @param overLimit whether the text was longer than the limit (and so not parsed)
   */
  record Parsed(List<Mapping> mappings, int listed, long invalidUtf8, boolean overLimit) {}

  private static final byte[] NO_BYTES = new byte[0];

  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  private long invalid;

  private MapsText() {}

  /**
   * Reads and parses the text {@code in} holds to its end.
   *
   * @param expectedLength the text's length when known (it bounds what {@code $name} substitution
   *     may add), else -1
   * @param max the most bytes of text read
   */
  static Parsed read(InputStream in, long expectedLength, long max) throws IOException {
    return new MapsText().parse(in, expectedLength, max);
  }

  private Parsed parse(InputStream in, long expectedLength, long max) throws IOException {
    ProcMapsParser parser = new ProcMapsParser(expectedLength >= 0 ? expectedLength : max, true);
    byte[] chunk = new byte[64 * 1024];
    byte[] line = NO_BYTES;
    int lineLength = 0;
    long total = 0;
    int got;
    while ((got = in.read(chunk, 0, chunk.length)) >= 0) {
      total += got;
      if (total > max) {
        return new Parsed(List.of(), 0, invalid, true);
      }
      int from = 0;
      for (int i = 0; i < got; i++) {
        if (chunk[i] != '\n') {
          continue;
        }
        if (lineLength == 0) {
          parser.line(decode(chunk, from, i - from));
        } else {
          line = append(line, lineLength, chunk, from, i - from);
          parser.line(decode(line, 0, lineLength + i - from));
          lineLength = 0;
        }
        from = i + 1;
      }
      if (from < got) { // a line continued in the next chunk (or cut off by the file's end)
        line = append(line, lineLength, chunk, from, got - from);
        lineLength += got - from;
      }
    }
    return new Parsed(parser.mappings(), parser.listed(), invalid, false);
  }

  /** {@code line}'s first {@code length} bytes followed by {@code n} bytes of {@code b}. */
  private static byte[] append(byte[] line, int length, byte[] b, int off, int n) {
    if (length + n > line.length) {
      // Doubling keeps a long line linear in its length; the limit on the text bounds it.
      line = Arrays.copyOf(line, Math.max(length + n, Math.max(256, 2 * line.length)));
    }
    System.arraycopy(b, off, line, length, n);
    return line;
  }

  private String decode(byte[] b, int off, int n) {
    boolean ascii = true;
    for (int i = off; i < off + n && ascii; i++) {
      ascii = b[i] >= 0;
    }
    if (ascii) {
      return new String(b, off, n, StandardCharsets.ISO_8859_1);
    }
    ByteBuffer src = ByteBuffer.wrap(b, off, n);
    CharBuffer dst = CharBuffer.allocate(n); // UTF-8 never decodes to more chars than bytes
    decoder.reset();
    while (true) {
      CoderResult r = decoder.decode(src, dst, true);
      if (r.isError()) {
        invalid++;
        dst.put('\uFFFD'); // as CodingErrorAction.REPLACE would, counting each
        src.position(src.position() + r.length());
      } else {
        break; // underflow: all input consumed (an overflow cannot happen, see above)
      }
    }
    decoder.flush(dst);
    return dst.flip().toString();
  }
}
