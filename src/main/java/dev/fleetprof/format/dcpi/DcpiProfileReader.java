package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Streams the samples of one DCPI profile file: one {@code sample} record per instruction address
 * with a non-zero count, {@code pc(0)} = the address, {@link #count()} = its count (unsigned
 * 32-bit).
 *
 * <p>{@link #open} parses the ASCII header ({@link DcpiHeader}); the binary part is read lazily by
 * {@link #next()}. Only major version 0 has a documented binary format: for a header with major
 * version 1 or more, {@link #open} succeeds (the header facts are available) and the first {@link
 * #next()} throws "unsupported DCPI binary version".
 *
 * <p>Binary part, major version 0: little-endian u32 chunks {@code offset, number, count x number}
 * followed by the footer {@code total_offsets, total_samples}, the last 8 bytes of the file.
 * Checked while streaming, each failure being a {@link ProfileFormatException} with the file, the
 * byte offset and the problem: {@code number >= 1}; the counts fit before the footer (checked
 * before reading them when the length is known); offsets strictly increasing; ranges not
 * overlapping; ranges inside {@code tsize} under the chosen {@link DcpiOffsetUnit} (and 4-byte
 * aligned offsets under {@code BYTES}); nothing but whole chunks before the footer; and, when
 * {@link #next()} returns false, the footer equals the data (non-zero addresses, and the sum of
 * counts modulo 2^32).
 *
 * <p>Sources of known length locate the footer by {@link ByteSource#length()}; sources of unknown
 * length (-1, e.g. gzip) are streamed with a small lookahead, and the footer is recognised as the 8
 * bytes left at a chunk boundary when the input ends. Memory use is a fixed 64 KiB buffer either
 * way.
 *
 * <p>{@link #recordOffset()} is the file offset of the current address's count; {@link
 * #chunkFileOffset()} that of the chunk holding it. Not thread-safe. After a {@link
 * ProfileFormatException} the reader stays failed: {@link #next()} throws the same exception again.
 */
public final class DcpiProfileReader implements ProfileRecordReader {
  /** The {@link #kind()} of every record. */
  public static final String KIND_SAMPLE = "sample";

  private static final int BUFFER_BYTES = 64 * 1024;
  private static final long U32_MASK = 0xffffffffL;

  private final String file;
  private final DcpiHeader header;
  private MappingIndex mappings;
  private final DcpiOffsetUnit unit;
  private final DcpiInput in;
  private final long length;

  private boolean started;
  private boolean done;
  private ProfileFormatException failure;

  private long chunks;
  private long chunkStart = -1;
  private long chunkOffset;
  private long chunkNumber;
  private long chunkIndex;
  private long prevOffset;
  private long prevEnd;

  private long count;
  private long address;
  private long recordOffset = -1;

  private long nonZero;
  private long sum;
  private long footerOffsets = -1;
  private long footerSamples = -1;

  private DcpiProfileReader(
      String file, DcpiHeader header, DcpiOffsetUnit unit, DcpiInput in, long length) {
    this.file = file;
    this.header = header;
    this.unit = unit;
    this.in = in;
    this.length = length;
  }

  /** Opens {@code source} with the default offset unit ({@link DcpiOffsetUnit#DEFAULT}). */
  public static DcpiProfileReader open(ByteSource source) throws IOException {
    return open(source, DcpiOffsetUnit.DEFAULT);
  }

  /** Opens {@code source} and parses its header; the binary part is read by {@link #next()}. */
  public static DcpiProfileReader open(ByteSource source, DcpiOffsetUnit unit) throws IOException {
    if (unit == null) {
      throw new NullPointerException("unit");
    }
    long length = source.length();
    InputStream stream = source.open(0);
    try {
      DcpiInput input = new DcpiInput(stream, 0, length, BUFFER_BYTES);
      DcpiHeader header = DcpiHeaderParser.parse(input, source.name());
      return new DcpiProfileReader(source.name(), header, unit, input, length);
    } catch (IOException | RuntimeException | Error e) {
      try {
        stream.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** The parsed header. */
  public DcpiHeader header() {
    return header;
  }

  /** The offset unit this reader applies. */
  public DcpiOffsetUnit unit() {
    return unit;
  }

  @Override
  public boolean next() throws IOException {
    if (failure != null) {
      throw failure;
    }
    if (done) {
      return false;
    }
    try {
      return advance();
    } catch (ProfileFormatException e) {
      failure = e;
      throw e;
    }
  }

  private ProfileFormatException error(long offset, String problem) {
    return new ProfileFormatException(file, offset, problem);
  }

  private boolean advance() throws IOException {
    if (!started) {
      started = true;
      if (!header.binarySupported()) {
        throw error(
            header.binaryStart(),
            "unsupported DCPI binary version "
                + header.version()
                + " (major version "
                + header.versionMajor()
                + "): only the major-version-0 binary format is documented; the header was parsed,"
                + " the samples cannot be read");
      }
      if (length >= 0 && length - header.binaryStart() < 8) {
        throw error(
            header.binaryStart(),
            "truncated binary part: "
                + (length - header.binaryStart())
                + " bytes after the header, fewer than the 8-byte footer (total_offsets,"
                + " total_samples)");
      }
    }
    while (true) {
      if (chunkIndex < chunkNumber) {
        long at = in.position();
        int avail = in.ensure(12);
        if (avail < 12) {
          throw error(
              at,
              "truncated chunk: the chunk at byte offset "
                  + chunkStart
                  + " declares "
                  + chunkNumber
                  + " counts but the file ends after "
                  + chunkIndex
                  + " of them ("
                  + avail
                  + " bytes left, the 8-byte footer included)");
        }
        long c = in.u32();
        long i = chunkIndex++;
        if (c != 0) {
          count = c;
          address = header.tstart() + unit.byteOffset(chunkOffset, i);
          recordOffset = at;
          nonZero++;
          sum += c;
          return true;
        }
        continue;
      }
      long at = in.position();
      int avail = in.ensure(20);
      if (avail == 8) {
        readFooter(at);
        return false;
      }
      if (avail < 20) {
        throw error(
            at,
            "truncated or trailing bytes: "
                + avail
                + " bytes left after "
                + (chunks == 0 ? "the header" : "the last complete chunk")
                + ", neither the 8-byte footer alone nor a chunk (at least 12 bytes) followed by"
                + " the footer");
      }
      readChunkHeader(at);
    }
  }

  private void readChunkHeader(long at) throws ProfileFormatException {
    long offset = in.u32();
    long number = in.u32();
    if (number == 0) {
      throw error(at, "chunk with number 0 (a chunk holds at least one count): offset " + offset);
    }
    if (length >= 0) {
      long room = (length - 8) - (at + 8);
      if (4 * number > room) {
        throw error(
            at,
            "chunk number "
                + number
                + " needs "
                + 4 * number
                + " bytes of counts but only "
                + room
                + " bytes remain before the footer at byte offset "
                + (length - 8)
                + " (truncated file or corrupt chunk)");
      }
    }
    if (chunks > 0 && offset <= prevOffset) {
      throw error(
          at,
          "chunks out of order: offset "
              + offset
              + " is not greater than the previous chunk's offset "
              + prevOffset
              + " (previous chunk at byte offset "
              + chunkStart
              + ")");
    }
    if (chunks > 0 && offset < prevEnd) {
      throw error(
          at,
          "overlapping chunks: this chunk's range starts at offset "
              + offset
              + ", before the previous chunk's range ends at offset "
              + prevEnd
              + " (offset unit "
              + unit
              + "; previous chunk at byte offset "
              + chunkStart
              + ")");
    }
    if (unit == DcpiOffsetUnit.BYTES && offset % DcpiOffsetUnit.INSTRUCTION_BYTES != 0) {
      throw error(
          at,
          "chunk offset "
              + offset
              + " is not a multiple of 4: with offset unit BYTES no 4-byte instruction starts there"
              + " (if this file counts offsets in instructions, read it with offset unit"
              + " INSTRUCTIONS)");
    }
    long endBytes = unit.rangeEndBytes(offset, number);
    if (endBytes > header.tsize()) {
      String hint = "";
      if (unit == DcpiOffsetUnit.INSTRUCTIONS
          && DcpiOffsetUnit.BYTES.rangeEndBytes(offset, number) <= header.tsize()
          && offset % 4 == 0) {
        hint = " (it would fit with offset unit BYTES)";
      } else if (unit == DcpiOffsetUnit.BYTES) {
        hint = " (offset unit BYTES)";
      }
      throw error(
          at,
          "chunk range beyond the text: offset "
              + offset
              + " with "
              + number
              + " addresses ends "
              + endBytes
              + " bytes after tstart, beyond tsize "
              + header.tsize()
              + hint);
    }
    chunkStart = at;
    chunkOffset = offset;
    chunkNumber = number;
    chunkIndex = 0;
    prevOffset = offset;
    prevEnd = unit.rangeEndOffset(offset, number);
    chunks++;
  }

  private void readFooter(long at) throws ProfileFormatException {
    if (length >= 0 && at != length - 8) {
      throw error(
          at,
          "the file ends at byte offset "
              + (at + 8)
              + ", before its length "
              + length
              + " (truncated read)");
    }
    footerOffsets = in.u32();
    footerSamples = in.u32();
    done = true;
    boolean offsetsOk = footerOffsets == (nonZero & U32_MASK);
    boolean samplesOk = footerSamples == (sum & U32_MASK);
    if (!offsetsOk || !samplesOk) {
      StringBuilder p = new StringBuilder("footer mismatch:");
      if (!offsetsOk) {
        p.append(" total_offsets is ")
            .append(footerOffsets)
            .append(" but the chunks hold ")
            .append(nonZero)
            .append(" addresses with a non-zero count");
      }
      if (!samplesOk) {
        p.append(offsetsOk ? "" : ";")
            .append(" total_samples (at byte offset ")
            .append(at + 4)
            .append(") is ")
            .append(footerSamples)
            .append(" but the counts sum to ")
            .append(sum)
            .append(" (")
            .append(sum & U32_MASK)
            .append(" modulo 2^32)");
      }
      throw error(offsetsOk ? at + 4 : at, p.toString());
    }
  }

  @Override
  public String kind() {
    return KIND_SAMPLE;
  }

  /** The current address's count (unsigned 32-bit, never 0). */
  @Override
  public long count() {
    return count;
  }

  /** Always 1: a DCPI sample has a single address. */
  @Override
  public int depth() {
    return 1;
  }

  /** The current address ({@code i} must be 0). */
  @Override
  public long pc(int i) {
    if (i != 0) {
      throw new IndexOutOfBoundsException("DCPI records have depth 1, asked for pc(" + i + ")");
    }
    return address;
  }

  /** The current address (same as {@code pc(0)}). */
  public long address() {
    return address;
  }

  /** File offset of the current address's count. */
  @Override
  public long recordOffset() {
    return recordOffset;
  }

  /** File offset of the chunk holding the current record (its {@code offset} field). */
  public long chunkFileOffset() {
    return chunkStart;
  }

  /** Chunks read so far (all of them once {@link #next()} returned false). */
  public long chunksRead() {
    return chunks;
  }

  /** Addresses with a non-zero count read so far. */
  public long nonZeroAddresses() {
    return nonZero;
  }

  /** Sum of the counts read so far, not reduced modulo 2^32 (the footer's total_samples is). */
  public long sampleSum() {
    return sum;
  }

  /** True once {@link #next()} returned false: the footer was read and matched the data. */
  public boolean finished() {
    return done && failure == null;
  }

  /** The footer's total_offsets, or -1 before the footer was read. */
  public long footerTotalOffsets() {
    return footerOffsets;
  }

  /** The footer's total_samples, or -1 before the footer was read. */
  public long footerTotalSamples() {
    return footerSamples;
  }

  /** The header's {@code period}: how many events one count stands for; -1 when it has none. */
  @Override
  public long period() {
    return header.period().isPresent() ? header.period().getAsLong() : -1;
  }

  /** The header's {@code event}: what the period counts. */
  @Override
  public String periodUnit() {
    return header.event();
  }

  /**
   * The image's text as one mapping, named by the header's {@code path} line or else its image id,
   * from offset 0: a frame's offset is then the address's offset in the text, the same for the
   * image on every host. (Every address lies inside the text: {@link #next()} checks each chunk.)
   */
  @Override
  public MappingIndex mappings() {
    if (mappings == null) {
      mappings =
          new MappingIndex(
              List.of(
                  new Mapping(header.tstart(), header.textLimit(), 0, header.pathOrImage(), true)));
    }
    return mappings;
  }

  @Override
  public boolean uniformRecords() {
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
