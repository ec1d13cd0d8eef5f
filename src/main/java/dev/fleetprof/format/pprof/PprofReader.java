package dev.fleetprof.format.pprof;

import com.google.protobuf.WireFormat;
import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileRecordReader;
import java.io.IOException;
import java.util.Arrays;

/**
 * Streams the samples of one pprof profile, one {@code sample} record each: the tables are read
 * first ({@link PprofTables}, a pass that skips the samples), then the file is opened again and its
 * samples decoded one at a time into reused arrays. A sample's chain is its locations' addresses,
 * leaf first (a location with an inline chain of several lines is one address); its count is its
 * value of the chosen sample type.
 */
public final class PprofReader implements ProfileRecordReader {
  public static final String KIND_SAMPLE = "sample";

  private static final int VARINT = WireFormat.WIRETYPE_VARINT;
  private static final int LEN = WireFormat.WIRETYPE_LENGTH_DELIMITED;

  private final PprofTables tables;
  private final ProtoInput in;
  private final int countType;
  private long samplesLeft;

  private long recordOffset = -1;
  private int[] locations = new int[64];
  private int depth;
  private long[] values;
  private int valueCount;
  private int[] labelKey = new int[4];
  private int[] labelStr = new int[4];
  private long[] labelNum = new long[4];
  private int[] labelUnit = new int[4];
  private int labels;

  private PprofReader(PprofTables tables, ProtoInput in, int countType) {
    this.tables = tables;
    this.in = in;
    this.countType = countType;
    this.samplesLeft = tables.samples();
    this.values = new long[Math.max(1, tables.sampleTypes())];
  }

  /**
   * Opens a reader over {@code file}.
   *
   * @param sampleType the {@code pprof.sampleType} option (a type's name or index), or null for the
   *     profile's default
   */
  public static PprofReader open(ByteSource file, String sampleType) throws IOException {
    PprofTables tables;
    try (ProtoInput first = new ProtoInput(file)) {
      tables = PprofTables.read(first);
    }
    int countType = tables.chooseSampleType(sampleType);
    if (countType < 0) {
      throw new ProfileFormatException(
          file.name(),
          0,
          "option "
              + PprofFormat.SAMPLE_TYPE
              + "="
              + sampleType
              + " names no sample type of this profile, which has "
              + tables.describeSampleTypes());
    }
    return new PprofReader(tables, new ProtoInput(file), countType);
  }

  @Override
  public boolean next() throws IOException {
    if (samplesLeft == 0) {
      return false; // the tables after the last sample were read in the first pass
    }
    try {
      for (long at = in.position(); ; at = in.position()) {
        int tag = in.topLevelTag();
        if (tag == 0) {
          samplesLeft = 0;
          return false;
        }
        if (ProtoInput.field(tag) == 2 && ProtoInput.wireType(tag) == LEN) {
          readSample(at);
          samplesLeft--;
          return true;
        }
        in.skip(tag);
      }
    } catch (IOException e) {
      throw in.translate(e);
    }
  }

  private void readSample(long at) throws IOException {
    recordOffset = at;
    depth = 0;
    valueCount = 0;
    labels = 0;
    int limit = in.enter("a sample");
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      switch (ProtoInput.field(tag)) {
        case 1 -> {
          if (ProtoInput.wireType(tag) == LEN) {
            int packed = in.enter("a sample's packed location_id");
            while (in.bytesLeftInMessage() > 0) {
              addLocation(in.varint(), fieldAt);
            }
            in.leave(packed);
          } else {
            in.expect(tag, VARINT, "sample location_id", fieldAt);
            addLocation(in.varint(), fieldAt);
          }
        }
        case 2 -> {
          if (ProtoInput.wireType(tag) == LEN) {
            int packed = in.enter("a sample's packed value");
            while (in.bytesLeftInMessage() > 0) {
              addValue(in.varint(), fieldAt);
            }
            in.leave(packed);
          } else {
            in.expect(tag, VARINT, "sample value", fieldAt);
            addValue(in.varint(), fieldAt);
          }
        }
        case 3 -> {
          in.expect(tag, LEN, "sample label", fieldAt);
          readLabel(fieldAt);
        }
        default -> in.skip(tag);
      }
    }
    in.leave(limit);
    if (valueCount != tables.sampleTypes()) {
      throw in.error(
          at,
          "the sample has "
              + valueCount
              + " values but the profile has "
              + tables.sampleTypes()
              + " sample types");
    }
  }

  private void addLocation(long id, long at) throws ProfileFormatException {
    int l = tables.locationIndex(id);
    if (l < 0) {
      throw in.error(
          at,
          "the sample names location "
              + Long.toUnsignedString(id)
              + ", which the profile does not have");
    }
    if (depth == locations.length) {
      locations = Arrays.copyOf(locations, 2 * depth);
    }
    locations[depth++] = l;
  }

  private void addValue(long value, long at) throws ProfileFormatException {
    if (valueCount == tables.sampleTypes()) {
      throw in.error(
          at,
          "the sample has more values than the profile's "
              + tables.sampleTypes()
              + " sample types");
    }
    values[valueCount++] = value;
  }

  private void readLabel(long at) throws IOException {
    int limit = in.enter("a label");
    long key = 0;
    long str = 0;
    long num = 0;
    long unit = 0;
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      int f = ProtoInput.field(tag);
      if (f >= 1 && f <= 4) {
        in.expect(tag, VARINT, "label field " + f, fieldAt);
        long v = in.varint();
        switch (f) {
          case 1 -> key = v;
          case 2 -> str = v;
          case 3 -> num = v;
          default -> unit = v;
        }
      } else {
        in.skip(tag);
      }
    }
    in.leave(limit);
    if (labels == labelKey.length) {
      int n = 2 * labels;
      labelKey = Arrays.copyOf(labelKey, n);
      labelStr = Arrays.copyOf(labelStr, n);
      labelNum = Arrays.copyOf(labelNum, n);
      labelUnit = Arrays.copyOf(labelUnit, n);
    }
    labelKey[labels] = stringIndex(key, at);
    labelStr[labels] = stringIndex(str, at);
    labelNum[labels] = num;
    labelUnit[labels] = stringIndex(unit, at);
    labels++;
  }

  private int stringIndex(long index, long at) throws ProfileFormatException {
    if (index < 0 || index >= tables.strings()) {
      throw in.error(
          at,
          "string index "
              + index
              + " is out of range: the string table has "
              + tables.strings()
              + " strings");
    }
    return (int) index;
  }

  @Override
  public String kind() {
    return KIND_SAMPLE;
  }

  @Override
  public long count() {
    return values[countType];
  }

  @Override
  public int depth() {
    return depth;
  }

  @Override
  public long pc(int i) {
    if (i < 0 || i >= depth) {
      throw new IndexOutOfBoundsException("pc(" + i + ") of a chain of " + depth);
    }
    return tables.address(locations[i]);
  }

  @Override
  public long recordOffset() {
    return recordOffset;
  }

  /** The period, or -1 when the profile has neither a period nor a period_type. */
  @Override
  public long period() {
    return tables.periodUnit() != null || tables.period() != 0 ? tables.period() : -1;
  }

  @Override
  public String periodUnit() {
    return tables.periodUnit();
  }

  @Override
  public MappingIndex mappings() {
    return tables.mappings();
  }

  @Override
  public boolean uniformRecords() {
    return true;
  }

  @Override
  public long bytesRead() {
    return in.position();
  }

  /** The profile's tables: sample types, string table, locations with their lines. */
  public PprofTables tables() {
    return tables;
  }

  /** Which sample type's values are the counts. */
  public int countType() {
    return countType;
  }

  /** Value {@code i} of the current sample (in the order of the sample types). */
  public long value(int i) {
    return values[i];
  }

  /** The table index of location {@code i} (0 = leaf) of the current sample. */
  public int location(int i) {
    return locations[i];
  }

  /** The number of labels of the current sample. */
  public int labels() {
    return labels;
  }

  public String labelKey(int i) {
    return tables.string(labelKey[i]);
  }

  /** A string label's value, or null for a numeric label. */
  public String labelString(int i) {
    return labelStr[i] != 0 ? tables.string(labelStr[i]) : null;
  }

  /** Whether label {@code i} is numeric ({@link #labelNumber}, {@link #labelUnit}). */
  public boolean labelIsNumeric(int i) {
    return labelStr[i] == 0;
  }

  public long labelNumber(int i) {
    return labelNum[i];
  }

  /** A numeric label's unit, or null when it has none. */
  public String labelUnit(int i) {
    return labelUnit[i] != 0 ? tables.string(labelUnit[i]) : null;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
