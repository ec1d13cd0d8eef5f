package dev.fleetprof.format.pprof;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.ZipException;

/**
 * One pass over a pprof file's protobuf bytes, field by field, with every length checked before it
 * is used: against the bytes left in the enclosing message, in the file when its length is known,
 * and against {@link #MAX_FIELD_BYTES} always (a gzip file's length is not known before it is
 * inflated). Offsets are 64-bit: the protobuf reader's own counter is an int, so it is moved into
 * {@link #base} between top-level fields.
 */
final class ProtoInput implements Closeable {
  /**
   * The largest top-level field (one sample, location, mapping, function or string) accepted: 64
   * MiB holds a sample of 8 million frames or a string far longer than any symbol.
   */
  static final int MAX_FIELD_BYTES = 64 << 20;

  /** The protobuf reader's counter is moved into {@link #base} once past this many bytes. */
  private static final int RESET_COUNTER_AT = 1 << 30;

  private final String file;
  private final long fileLength;
  private final InputStream stream;
  private final CodedInputStream in;
  private long base;

  ProtoInput(ByteSource source) throws IOException {
    this.file = source.name();
    this.fileLength = source.length();
    this.stream = source.open(0);
    this.in = CodedInputStream.newInstance(stream, 1 << 16);
    in.setSizeLimit(Integer.MAX_VALUE);
  }

  String file() {
    return file;
  }

  /** Byte offset in the (uncompressed) file of the next byte to read. */
  long position() {
    return base + in.getTotalBytesRead();
  }

  /** The next top-level field's tag, or 0 at the end of the file. */
  int topLevelTag() throws IOException {
    if (in.getTotalBytesRead() > RESET_COUNTER_AT) {
      base += in.getTotalBytesRead();
      in.resetSizeCounter();
    }
    return tag();
  }

  /** The next tag of the current message, or 0 at its end. */
  int tag() throws IOException {
    if (in.isAtEnd()) {
      return 0;
    }
    long at = position();
    long tag = in.readRawVarint64();
    int field = (int) (tag >>> 3);
    if (tag >>> 3 > WireFormat.getTagFieldNumber(-1) || field == 0) {
      throw error(at, "invalid field tag " + Long.toUnsignedString(tag));
    }
    int wire = (int) (tag & 7);
    if (wire == 3 || wire == 4 || wire > 5) {
      throw error(at, "field " + field + " has wire type " + wire + ", which pprof never writes");
    }
    return (int) tag;
  }

  static int field(int tag) {
    return tag >>> 3;
  }

  static int wireType(int tag) {
    return tag & 7;
  }

  /** Fails unless {@code tag} has wire type {@code wire}; {@code at} is where the tag was. */
  void expect(int tag, int wire, String name, long at) throws ProfileFormatException {
    if (wireType(tag) != wire) {
      throw error(
          at,
          "field "
              + field(tag)
              + " ("
              + name
              + ") has wire type "
              + wireType(tag)
              + ", not "
              + wire
              + " as profile.proto says");
    }
  }

  long varint() throws IOException {
    return in.readRawVarint64();
  }

  /**
   * Reads a length prefix and checks it against the bytes left in the enclosing message (or the
   * file) and {@link #MAX_FIELD_BYTES}, before anything is read or allocated for it.
   */
  int length(String what) throws IOException {
    long at = position();
    long len = in.readRawVarint64();
    long left = in.getBytesUntilLimit();
    if (left < 0) { // at the top level: the rest of the file, if its length is known
      left = fileLength >= 0 ? fileLength - position() : Long.MAX_VALUE;
    }
    if (len < 0 || len > left) {
      throw error(
          at,
          what
              + " says it is "
              + Long.toUnsignedString(len)
              + " bytes long, but only "
              + left
              + " bytes are left"
              + (in.getBytesUntilLimit() < 0 ? " in the file" : " in its enclosing message"));
    }
    if (len > MAX_FIELD_BYTES) {
      throw error(
          at, what + " says it is " + len + " bytes long, over the limit of " + MAX_FIELD_BYTES);
    }
    return (int) len;
  }

  /** Enters a length-delimited message; returns the limit to give {@link #leave}. */
  int enter(String what) throws IOException {
    return in.pushLimit(length(what));
  }

  /** Leaves a message entered with {@link #enter}, skipping what was not read of it. */
  void leave(int oldLimit) throws IOException {
    int rest = in.getBytesUntilLimit();
    if (rest > 0) {
      in.skipRawBytes(rest);
    }
    in.popLimit(oldLimit);
  }

  /** A length-delimited UTF-8 string (invalid sequences replaced, as pprof keeps raw bytes). */
  String string(String what) throws IOException {
    int len = length(what);
    return len == 0 ? "" : new String(in.readRawBytes(len), StandardCharsets.UTF_8);
  }

  /** Skips a field of any wire type (groups were refused by {@link #tag}). */
  void skip(int tag) throws IOException {
    switch (wireType(tag)) {
      case WireFormat.WIRETYPE_VARINT -> in.readRawVarint64();
      case WireFormat.WIRETYPE_FIXED64 -> in.skipRawBytes(8);
      case WireFormat.WIRETYPE_FIXED32 -> in.skipRawBytes(4);
      default -> in.skipRawBytes(length("field " + field(tag)));
    }
  }

  /**
   * Skips a top-level field whose length was checked: large samples are skipped in the first pass.
   */
  void skipBytes(int len) throws IOException {
    in.skipRawBytes(len);
  }

  /** Bytes left in the current message (after {@link #enter}). */
  int bytesLeftInMessage() {
    return in.getBytesUntilLimit();
  }

  ProfileFormatException error(long at, String problem) {
    return new ProfileFormatException(file, at, problem);
  }

  /**
   * The exception to throw for what the protobuf reader or the inflater refused (a truncated
   * message, a malformed varint, a broken gzip stream), at the current offset; other I/O errors
   * (the file system's) are returned as they are.
   */
  IOException translate(IOException e) {
    if (e instanceof ProfileFormatException) {
      return e;
    }
    if (e instanceof InvalidProtocolBufferException || e instanceof EOFException) {
      return new ProfileFormatException(
          file,
          position(),
          "the file ends inside a field, or a field is malformed: " + e.getMessage(),
          e);
    }
    if (e instanceof ZipException) {
      return new ProfileFormatException(
          file, position(), "the gzip stream is corrupt: " + e.getMessage(), e);
    }
    return e;
  }

  @Override
  public void close() throws IOException {
    stream.close();
  }
}
