package dev.fleetprof.format.pprof;

import com.google.protobuf.WireFormat;
import dev.fleetprof.format.Mapping;
import dev.fleetprof.format.MappingIndex;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Everything of a pprof profile but its samples: the string table, sample types, period, times,
 * mappings, locations (with their inline chains) and functions, read in a first pass that skips the
 * samples. Go writes the samples before these tables, so the samples are streamed in a second pass
 * ({@link PprofReader}); memory is bounded by the tables, never by the samples.
 *
 * <p>Checked as pprof's own parser checks a profile (string indices in range, the first string
 * empty, ids non-zero and unique, every referenced mapping and function present), each problem a
 * {@link dev.fleetprof.format.ProfileFormatException} at the offset of the field at fault.
 */
public final class PprofTables {
  private static final int VARINT = WireFormat.WIRETYPE_VARINT;
  private static final int LEN = WireFormat.WIRETYPE_LENGTH_DELIMITED;

  private final List<String> strings = new ArrayList<>();

  // Sample types: string indices, and the offset of each for errors.
  private int[] typeName = new int[4];
  private int[] typeUnit = new int[4];
  private long[] typeOffset = new long[4];
  private int sampleTypes;

  private int periodTypeName;
  private int periodTypeUnit;
  private long periodTypeOffset = -1;
  private long period;
  private long timeNanos;
  private long durationNanos;
  private long defaultSampleType;
  private long defaultSampleTypeOffset;

  private long firstSampleOffset = -1;
  private long samples;

  // Mappings.
  private long[] mappingId = new long[8];
  private long[] mappingStart = new long[8];
  private long[] mappingLimit = new long[8];
  private long[] mappingFileOffset = new long[8];
  private long[] mappingFile = new long[8];
  private long[] mappingBuildId = new long[8];
  private long[] mappingOffset = new long[8];
  private int mappings;

  // Locations; their lines are lineFrom[i] until lineFrom[i + 1] of the line arrays.
  private long[] locationId = new long[64];
  private long[] locationAddress = new long[64];
  private long[] locationMappingId = new long[64];
  private long[] locationOffset = new long[64];
  private int[] lineFrom = new int[65];
  private int locations;
  private long[] lineFunctionId = new long[64];
  private long[] lineNumber = new long[64];
  private int lines;

  // Functions: string indices.
  private long[] functionId = new long[64];
  private long[] functionName = new long[64];
  private long[] functionSystemName = new long[64];
  private long[] functionFile = new long[64];
  private long[] functionOffset = new long[64];
  private int functions;

  // Resolved after the pass.
  private String[] table;
  private IdIndex locationIndex;
  private int[] locationMapping;
  private int[] lineFunction;
  private MappingIndex mappingIndex;

  private PprofTables() {}

  /** Reads the tables of the file {@code in} reads, from its start, skipping the samples. */
  static PprofTables read(ProtoInput in) throws IOException {
    PprofTables t = new PprofTables();
    try {
      t.readFields(in);
      t.resolve(in);
    } catch (IOException e) {
      throw in.translate(e);
    }
    return t;
  }

  private void readFields(ProtoInput in) throws IOException {
    for (long at = in.position(); ; at = in.position()) {
      int tag = in.topLevelTag();
      if (tag == 0) {
        return;
      }
      switch (ProtoInput.field(tag)) {
        case 1 -> {
          in.expect(tag, LEN, "sample_type", at);
          readSampleType(in, at);
        }
        case 2 -> {
          in.expect(tag, LEN, "sample", at);
          if (firstSampleOffset < 0) {
            firstSampleOffset = at;
          }
          samples++;
          in.skipBytes(in.length("a sample"));
        }
        case 3 -> {
          in.expect(tag, LEN, "mapping", at);
          readMapping(in, at);
        }
        case 4 -> {
          in.expect(tag, LEN, "location", at);
          readLocation(in, at);
        }
        case 5 -> {
          in.expect(tag, LEN, "function", at);
          readFunction(in, at);
        }
        case 6 -> {
          in.expect(tag, LEN, "string_table", at);
          String s = in.string("a string");
          if (strings.isEmpty() && !s.isEmpty()) {
            throw in.error(at, "string_table[0] must be the empty string, not \"" + s + "\"");
          }
          strings.add(s);
        }
        case 9 -> {
          in.expect(tag, VARINT, "time_nanos", at);
          timeNanos = in.varint();
        }
        case 10 -> {
          in.expect(tag, VARINT, "duration_nanos", at);
          durationNanos = in.varint();
        }
        case 11 -> {
          in.expect(tag, LEN, "period_type", at);
          int limit = in.enter("period_type");
          periodTypeOffset = at;
          long[] nameUnit = valueType(in);
          periodTypeName = checkIndex(in, nameUnit[0], at);
          periodTypeUnit = checkIndex(in, nameUnit[1], at);
          in.leave(limit);
        }
        case 12 -> {
          in.expect(tag, VARINT, "period", at);
          period = in.varint();
        }
        case 14 -> {
          in.expect(tag, VARINT, "default_sample_type", at);
          defaultSampleType = in.varint();
          defaultSampleTypeOffset = at;
        }
        default -> in.skip(tag); // drop_frames, keep_frames, comment, doc_url, unknown fields
      }
    }
  }

  /** A string index as read; checked against the table once it is complete. */
  private static int checkIndex(ProtoInput in, long index, long at) throws IOException {
    if (index < 0 || index > Integer.MAX_VALUE) {
      throw in.error(at, "string index " + index + " is out of range");
    }
    return (int) index;
  }

  private static long[] valueType(ProtoInput in) throws IOException {
    long[] out = new long[2];
    for (long at = in.position(); ; at = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        return out;
      }
      int f = ProtoInput.field(tag);
      if (f == 1 || f == 2) {
        in.expect(tag, VARINT, f == 1 ? "type" : "unit", at);
        out[f - 1] = in.varint();
      } else {
        in.skip(tag);
      }
    }
  }

  private void readSampleType(ProtoInput in, long at) throws IOException {
    int limit = in.enter("a sample_type");
    long[] nameUnit = valueType(in);
    in.leave(limit);
    if (sampleTypes == typeName.length) {
      typeName = Arrays.copyOf(typeName, 2 * sampleTypes);
      typeUnit = Arrays.copyOf(typeUnit, 2 * sampleTypes);
      typeOffset = Arrays.copyOf(typeOffset, 2 * sampleTypes);
    }
    typeName[sampleTypes] = checkIndex(in, nameUnit[0], at);
    typeUnit[sampleTypes] = checkIndex(in, nameUnit[1], at);
    typeOffset[sampleTypes++] = at;
  }

  private void readMapping(ProtoInput in, long at) throws IOException {
    int limit = in.enter("a mapping");
    if (mappings == mappingId.length) {
      int n = 2 * mappings;
      mappingId = Arrays.copyOf(mappingId, n);
      mappingStart = Arrays.copyOf(mappingStart, n);
      mappingLimit = Arrays.copyOf(mappingLimit, n);
      mappingFileOffset = Arrays.copyOf(mappingFileOffset, n);
      mappingFile = Arrays.copyOf(mappingFile, n);
      mappingBuildId = Arrays.copyOf(mappingBuildId, n);
      mappingOffset = Arrays.copyOf(mappingOffset, n);
    }
    int m = mappings;
    mappingId[m] = 0;
    mappingStart[m] = 0;
    mappingLimit[m] = 0;
    mappingFileOffset[m] = 0;
    mappingFile[m] = 0;
    mappingBuildId[m] = 0;
    mappingOffset[m] = at;
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      int f = ProtoInput.field(tag);
      if (f >= 1 && f <= 6) {
        in.expect(tag, VARINT, "mapping field " + f, fieldAt);
        long v = in.varint();
        switch (f) {
          case 1 -> mappingId[m] = v;
          case 2 -> mappingStart[m] = v;
          case 3 -> mappingLimit[m] = v;
          case 4 -> mappingFileOffset[m] = v;
          case 5 -> mappingFile[m] = v;
          default -> mappingBuildId[m] = v; // build_id: a string index, as filename
        }
      } else {
        in.skip(tag); // the has_* flags
      }
    }
    in.leave(limit);
    mappings++;
  }

  private void readLocation(ProtoInput in, long at) throws IOException {
    int limit = in.enter("a location");
    if (locations == locationId.length) {
      int n = 2 * locations;
      locationId = Arrays.copyOf(locationId, n);
      locationAddress = Arrays.copyOf(locationAddress, n);
      locationMappingId = Arrays.copyOf(locationMappingId, n);
      locationOffset = Arrays.copyOf(locationOffset, n);
      lineFrom = Arrays.copyOf(lineFrom, n + 1);
    }
    int l = locations;
    locationId[l] = 0;
    locationAddress[l] = 0;
    locationMappingId[l] = 0;
    locationOffset[l] = at;
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      switch (ProtoInput.field(tag)) {
        case 1 -> {
          in.expect(tag, VARINT, "location id", fieldAt);
          locationId[l] = in.varint();
        }
        case 2 -> {
          in.expect(tag, VARINT, "location mapping_id", fieldAt);
          locationMappingId[l] = in.varint();
        }
        case 3 -> {
          in.expect(tag, VARINT, "location address", fieldAt);
          locationAddress[l] = in.varint();
        }
        case 4 -> {
          in.expect(tag, LEN, "location line", fieldAt);
          readLine(in);
        }
        default -> in.skip(tag); // is_folded
      }
    }
    in.leave(limit);
    lineFrom[++locations] = lines;
  }

  private void readLine(ProtoInput in) throws IOException {
    int limit = in.enter("a line");
    if (lines == lineFunctionId.length) {
      lineFunctionId = Arrays.copyOf(lineFunctionId, 2 * lines);
      lineNumber = Arrays.copyOf(lineNumber, 2 * lines);
    }
    lineFunctionId[lines] = 0;
    lineNumber[lines] = 0;
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      int f = ProtoInput.field(tag);
      if (f == 1 || f == 2) {
        in.expect(tag, VARINT, f == 1 ? "line function_id" : "line line", fieldAt);
        long v = in.varint();
        if (f == 1) {
          lineFunctionId[lines] = v;
        } else {
          lineNumber[lines] = v;
        }
      } else {
        in.skip(tag); // column
      }
    }
    in.leave(limit);
    lines++;
  }

  private void readFunction(ProtoInput in, long at) throws IOException {
    int limit = in.enter("a function");
    if (functions == functionId.length) {
      int n = 2 * functions;
      functionId = Arrays.copyOf(functionId, n);
      functionName = Arrays.copyOf(functionName, n);
      functionSystemName = Arrays.copyOf(functionSystemName, n);
      functionFile = Arrays.copyOf(functionFile, n);
      functionOffset = Arrays.copyOf(functionOffset, n);
    }
    int fn = functions;
    functionId[fn] = 0;
    functionName[fn] = 0;
    functionSystemName[fn] = 0;
    functionFile[fn] = 0;
    functionOffset[fn] = at;
    for (long fieldAt = in.position(); ; fieldAt = in.position()) {
      int tag = in.tag();
      if (tag == 0) {
        break;
      }
      int f = ProtoInput.field(tag);
      if (f >= 1 && f <= 4) {
        in.expect(tag, VARINT, "function field " + f, fieldAt);
        long v = in.varint();
        switch (f) {
          case 1 -> functionId[fn] = v;
          case 2 -> functionName[fn] = v;
          case 3 -> functionSystemName[fn] = v;
          default -> functionFile[fn] = v;
        }
      } else {
        in.skip(tag); // start_line
      }
    }
    in.leave(limit);
    functions++;
  }

  /** Checks the tables against each other, as pprof does once a profile is decoded. */
  private void resolve(ProtoInput in) throws IOException {
    table = strings.toArray(new String[0]);
    if (sampleTypes == 0) {
      throw in.error(0, "the profile has no sample_type (missing sample type information)");
    }
    for (int i = 0; i < sampleTypes; i++) {
      string(in, typeName[i], typeOffset[i]);
      string(in, typeUnit[i], typeOffset[i]);
    }
    if (periodTypeOffset >= 0) {
      string(in, periodTypeName, periodTypeOffset);
      string(in, periodTypeUnit, periodTypeOffset);
    }
    if (defaultSampleType != 0) {
      string(in, defaultSampleType, defaultSampleTypeOffset);
    }

    IdIndex mappingIndexById = IdIndex.of(mappingId, mappings);
    String problem = mappingIndexById.problem("mapping");
    if (problem != null) {
      throw in.error(0, problem);
    }
    List<Mapping> all = new ArrayList<>(mappings);
    for (int m = 0; m < mappings; m++) {
      if (mappingId[m] == 0) {
        throw in.error(mappingOffset[m], "a mapping has the reserved id 0");
      }
      all.add(
          new Mapping(
              mappingStart[m],
              mappingLimit[m],
              mappingFileOffset[m],
              string(in, mappingFile[m], mappingOffset[m]),
              true,
              buildId(string(in, mappingBuildId[m], mappingOffset[m]))));
    }
    mappingIndex = new MappingIndex(all);

    IdIndex functionIndex = IdIndex.of(functionId, functions);
    problem = functionIndex.problem("function");
    if (problem != null) {
      throw in.error(0, problem);
    }
    for (int f = 0; f < functions; f++) {
      if (functionId[f] == 0) {
        throw in.error(functionOffset[f], "a function has the reserved id 0");
      }
      string(in, functionName[f], functionOffset[f]);
      string(in, functionSystemName[f], functionOffset[f]);
      string(in, functionFile[f], functionOffset[f]);
    }

    locationIndex = IdIndex.of(locationId, locations);
    problem = locationIndex.problem("location");
    if (problem != null) {
      throw in.error(0, problem);
    }
    locationMapping = new int[locations];
    lineFunction = new int[lines];
    for (int l = 0; l < locations; l++) {
      if (locationId[l] == 0) {
        throw in.error(locationOffset[l], "a location has the reserved id 0");
      }
      locationMapping[l] = -1;
      if (locationMappingId[l] != 0) {
        locationMapping[l] = mappingIndexById.find(locationMappingId[l]);
        if (locationMapping[l] < 0) {
          throw in.error(
              locationOffset[l],
              "location "
                  + Long.toUnsignedString(locationId[l])
                  + " names mapping "
                  + Long.toUnsignedString(locationMappingId[l])
                  + ", which the profile does not have");
        }
      }
      for (int j = lineFrom[l]; j < lineFrom[l + 1]; j++) {
        lineFunction[j] = functionIndex.find(lineFunctionId[j]);
        if (lineFunction[j] < 0) {
          throw in.error(
              locationOffset[l],
              "location "
                  + Long.toUnsignedString(locationId[l])
                  + " has a line of function "
                  + Long.toUnsignedString(lineFunctionId[j])
                  + ", which the profile does not have");
        }
      }
    }
  }

  /**
   * A mapping's build_id as the rows carry it: null when empty; lowercase, as pprof and the ELF
   * readers print a GNU build ID (a profile writer may have written it in capitals). Kept as
   * written when it is not hex (another platform's identifier).
   */
  static String buildId(String id) {
    if (id.isEmpty()) {
      return null;
    }
    for (int i = 0; i < id.length(); i++) {
      if (Character.digit(id.charAt(i), 16) < 0) {
        return id;
      }
    }
    return id.toLowerCase(java.util.Locale.ROOT);
  }

  private String string(ProtoInput in, long index, long at) throws IOException {
    if (index < 0 || index >= table.length) {
      throw in.error(
          at,
          "string index "
              + index
              + " is out of range: the string table has "
              + table.length
              + " strings");
    }
    return table[(int) index];
  }

  // ---- What the reader and the Spark columns read. ----

  /** String {@code index} of the table; callers pass indices this class or the reader checked. */
  public String string(int index) {
    return table[index];
  }

  /** The number of strings in the table. */
  public int strings() {
    return table.length;
  }

  /** How many values each sample has. */
  public int sampleTypes() {
    return sampleTypes;
  }

  public String sampleType(int i) {
    return table[typeName[i]];
  }

  public String sampleUnit(int i) {
    return table[typeUnit[i]];
  }

  /**
   * The sample type whose values are the rows' counts: {@code option} (a type's name, or its index
   * as digits) when set, else the profile's default_sample_type, else the last type, as {@code go
   * tool pprof} chooses.
   *
   * @return the index, or -1 when {@code option} names no type of this profile
   */
  public int chooseSampleType(String option) {
    if (option != null) {
      if (!option.isEmpty() && option.chars().allMatch(c -> c >= '0' && c <= '9')) {
        try {
          int i = Integer.parseInt(option);
          return i < sampleTypes ? i : -1;
        } catch (NumberFormatException e) {
          return -1;
        }
      }
      for (int i = 0; i < sampleTypes; i++) {
        if (sampleType(i).equals(option)) {
          return i;
        }
      }
      return -1;
    }
    if (defaultSampleType != 0) {
      for (int i = 0; i < sampleTypes; i++) {
        if (typeName[i] == defaultSampleType) {
          return i;
        }
      }
    }
    return sampleTypes - 1;
  }

  /** The profile's sample types as {@code type/unit}, for messages. */
  public String describeSampleTypes() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < sampleTypes; i++) {
      b.append(i == 0 ? "" : ", ").append(sampleType(i)).append('/').append(sampleUnit(i));
    }
    return b.toString();
  }

  /** The period, or 0 when the profile has none. */
  public long period() {
    return period;
  }

  /** period_type's unit, or null when the profile has no period_type. */
  public String periodUnit() {
    return periodTypeOffset >= 0 ? table[periodTypeUnit] : null;
  }

  /** period_type's type, or null when the profile has no period_type. */
  public String periodType() {
    return periodTypeOffset >= 0 ? table[periodTypeName] : null;
  }

  public long timeNanos() {
    return timeNanos;
  }

  public long durationNanos() {
    return durationNanos;
  }

  /** How many samples the first pass skipped. */
  public long samples() {
    return samples;
  }

  /** The offset of the first sample, or -1 when there is none. */
  long firstSampleOffset() {
    return firstSampleOffset;
  }

  /** The profile's mappings, for placing addresses in files. */
  public MappingIndex mappings() {
    return mappingIndex;
  }

  /** The location with {@code id}, or -1. */
  int locationIndex(long id) {
    return locationIndex.find(id);
  }

  public int locations() {
    return locations;
  }

  public long address(int location) {
    return locationAddress[location];
  }

  /** The number of lines of a location (its inline chain, innermost first); 0 when unknown. */
  public int lineCount(int location) {
    return lineFrom[location + 1] - lineFrom[location];
  }

  /** Function name of line {@code j} of {@code location}. */
  public String lineFunction(int location, int j) {
    return table[(int) functionName[lineFunction[lineFrom[location] + j]]];
  }

  /** System (mangled) name of the function of line {@code j} of {@code location}. */
  public String lineSymbol(int location, int j) {
    return table[(int) functionSystemName[lineFunction[lineFrom[location] + j]]];
  }

  public String lineFile(int location, int j) {
    return table[(int) functionFile[lineFunction[lineFrom[location] + j]]];
  }

  public long lineNumber(int location, int j) {
    return lineNumber[lineFrom[location] + j];
  }
}
