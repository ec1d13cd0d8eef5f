package dev.fleetprof.format.pprof;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import java.io.IOException;
import java.util.List;

/**
 * pprof's {@code profile.proto} (Go's runtime/pprof, {@code go tool pprof -proto}, async-profiler,
 * perf converters), uncompressed or in a {@code .gz} file. Protobuf has no magic number: a file is
 * recognised by its first fields decoding as a Profile's ({@link #matchesWithoutSignature}).
 *
 * <p>A protobuf message cannot be cut on record boundaries, so a file is always read whole, by one
 * task (only gperftools CPU profiles are split).
 */
public final class PprofFormat implements ProfileFormat {
  public static final String NAME = "pprof";

  /** The sample type whose values are the {@code count} column: a type's name or its index. */
  public static final String SAMPLE_TYPE = "pprof.sampleType";

  /** The most fields of a Profile's start looked at by {@link #matchesWithoutSignature}. */
  private static final int MAX_FIELDS_CHECKED = 16;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean hasSignature(byte[] head, int len) {
    return false;
  }

  /**
   * Whether the head decodes as the start of a Profile: fields of Profile's numbers with their wire
   * types, lengths that fit the file, and messages (sample types, samples, mappings, locations,
   * functions) holding only their own fields, for as far as the head goes. Writers order the fields
   * differently (Go starts with time_nanos and interleaves locations with samples; {@code
   * output/pprof/PprofWriter} starts with samples), so any of Profile's fields may come first;
   * three sound fields in a row are wanted (or a whole file of fewer): 4 in a million random
   * 64-byte heads pass (measured), and are then refused by the decoder, not read as garbage.
   */
  @Override
  public boolean matchesWithoutSignature(byte[] head, int len, long fileLength) {
    long end = fileLength >= 0 ? fileLength : Long.MAX_VALUE;
    int[] pos = {0};
    int complete = 0;
    while (pos[0] < len && complete < MAX_FIELDS_CHECKED) {
      long tag = varint(head, len, pos);
      if (tag == -2) {
        break; // the head ends inside the tag
      }
      if (tag < 0 || tag >>> 3 >= PROFILE.length || !allowed(PROFILE, tag)) {
        return false;
      }
      int field = (int) (tag >>> 3);
      long value = varint(head, len, pos);
      if (value == -2) {
        break;
      }
      if (value < 0) {
        return false;
      }
      if ((tag & 7) == 0) {
        complete++;
        continue;
      }
      if (pos[0] + value > end) {
        return false; // longer than the file
      }
      int[] inner = field < MESSAGES.length ? MESSAGES[field] : null;
      if (inner != null && !isMessage(head, len, pos[0], value, inner)) {
        return false;
      }
      if (pos[0] + value > len) {
        complete++; // sound as far as the head shows it; it runs past the head
        break;
      }
      pos[0] += (int) value;
      complete++;
    }
    return complete >= 3 || (complete >= 1 && pos[0] == len && len == fileLength);
  }

  private static boolean allowed(int[] wireTypes, long tag) {
    return (wireTypes[(int) (tag >>> 3)] & 1 << (tag & 7)) != 0;
  }

  private static final int V = 1 << 0;
  private static final int L = 1 << 2;

  /** Profile's fields 0-15: which wire types each may have (0: not a field). */
  private static final int[] PROFILE = {0, L, L, L, L, L, L, V, V, V, V, L, V, V | L, V, V};

  /** ValueType's fields: type and unit, varints. */
  private static final int[] VALUE_TYPE = {0, V, V};

  /** Sample's fields: location ids and values (varints, or packed), labels (messages). */
  private static final int[] SAMPLE = {0, V | L, V | L, L};

  /** Mapping's fields: all varints (ids, addresses, string indices, flags). */
  private static final int[] MAPPING = {0, V, V, V, V, V, V, V, V, V, V};

  /** Location's fields: id, mapping id, address, lines (messages), is_folded. */
  private static final int[] LOCATION = {0, V, V, V, L, V};

  /** Function's fields: id, name, system name, file name, start line. */
  private static final int[] FUNCTION = {0, V, V, V, V, V};

  /** The fields of each Profile field that is a message, by its number; null for the others. */
  private static final int[][] MESSAGES = {
    null, VALUE_TYPE, SAMPLE, MAPPING, LOCATION, FUNCTION, null, null, null, null, null, VALUE_TYPE
  };

  /**
   * Whether what the head holds of a message of {@code length} bytes at {@code from} has only the
   * fields of {@code wireTypes}.
   */
  private static boolean isMessage(byte[] head, int len, int from, long length, int[] wireTypes) {
    int[] pos = {from};
    long msgEnd = from + length;
    int end = (int) Math.min(len, msgEnd);
    while (pos[0] < end) {
      long tag = varint(head, end, pos);
      if (tag == -2) {
        return true;
      }
      if (tag < 0 || tag >>> 3 >= wireTypes.length || !allowed(wireTypes, tag)) {
        return false;
      }
      long value = varint(head, end, pos);
      if (value == -2) {
        return true;
      }
      if (value < 0) {
        return false;
      }
      if ((tag & 7) == 2) {
        if (pos[0] + value > msgEnd) {
          return false; // a field longer than its message
        }
        pos[0] += (int) Math.min(value, len);
      }
    }
    return pos[0] == end || end == len;
  }

  /**
   * A varint at {@code pos[0]} (moved past it): its value, -1 when malformed (over 10 bytes or
   * negative as a length would be), -2 when the bytes end inside it.
   */
  private static long varint(byte[] b, int len, int[] pos) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= len) {
        return -2;
      }
      int x = b[pos[0]++] & 0xff;
      v |= (long) (x & 0x7f) << shift;
      if (x < 0x80) {
        return v < 0 ? -1 : v;
      }
    }
    return -1;
  }

  @Override
  public List<String> optionNames() {
    return List.of(SAMPLE_TYPE);
  }

  @Override
  public void validate(DecodeOptions options) {
    String type = options.option(SAMPLE_TYPE, null);
    if (type != null && (type.isBlank() || !type.strip().equals(type))) {
      throw new IllegalArgumentException(
          "option "
              + SAMPLE_TYPE
              + " must name a sample type (as go tool pprof -sample_index does: e.g. 'cpu',"
              + " 'alloc_space', or its index '0'), got '"
              + type
              + "'");
    }
  }

  /** A profile names what its values measure: its sample types. */
  @Override
  public List<CountMeasure> measures() {
    return List.of(new CountMeasure(null, CountMeasure.Meaning.SAMPLE_TYPE, null));
  }

  /** {@code pprof}: the sample's values and types, labels, times and inline chains. */
  @Override
  public List<String> columns() {
    return List.of(COLUMN);
  }

  /** The source's column only pprof fills. */
  public static final String COLUMN = "pprof";

  /** Go writes its profiles gzipped under any name ({@code cpu.prof}, {@code cpu.pprof}). */
  @Override
  public boolean gzippedUnderAnyName() {
    return true;
  }

  @Override
  public PprofReader open(ByteSource file, DecodeOptions options) throws IOException {
    return PprofReader.open(file, options.option(SAMPLE_TYPE, null));
  }
}
