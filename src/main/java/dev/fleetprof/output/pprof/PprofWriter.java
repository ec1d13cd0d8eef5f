package dev.fleetprof.output.pprof;

import com.google.perftools.profiles.ProfileProto.Function;
import com.google.perftools.profiles.ProfileProto.Label;
import com.google.perftools.profiles.ProfileProto.Line;
import com.google.perftools.profiles.ProfileProto.Location;
import com.google.perftools.profiles.ProfileProto.Mapping;
import com.google.perftools.profiles.ProfileProto.Profile;
import com.google.perftools.profiles.ProfileProto.Sample;
import com.google.perftools.profiles.ProfileProto.ValueType;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.StackWriter;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

/**
 * Writes an aggregate as a gzipped pprof {@code profile.proto} ({@code go tool pprof}, speedscope,
 * Perfetto and most profiling UIs open it), built with the classes protoc generates from
 * google/pprof's {@code proto/profile.proto}.
 *
 * <p>Values, mirroring what pprof itself does when it reads a legacy gperftools CPU profile ({@code
 * cpuProfile} in pprof's {@code legacy_profile.go}):
 *
 * <ul>
 *   <li>a time period ({@code microseconds}: gperftools, gprof histograms; also {@code
 *       nanoseconds}, {@code milliseconds}, {@code seconds}): sample types {@code [type/unit,
 *       cpu/nanoseconds]}, period type {@code cpu/nanoseconds}, period in nanoseconds, and each
 *       sample's second value {@code value x period} in nanoseconds, so pprof reports CPU time as
 *       it does for the original file;
 *   <li>any other period unit is an event (DCPI {@code cycles}, ...): sample types {@code
 *       [type/unit, event/count]}, period type {@code event/count}, second value {@code value x
 *       period} events;
 *   <li>no period (gprof arcs, basic blocks): the single sample type {@code type/unit}.
 * </ul>
 *
 * A value or product outside the signed 64-bit range fails with an {@link ArithmeticException}.
 *
 * <p>Addresses: frames are already file offsets, so each location's address IS the offset and each
 * module's mapping starts at 0 with file offset 0 (one mapping per module, file name = module, the
 * anonymous module named {@value Frame#ANONYMOUS}; a frame without a module gets a location with no
 * mapping and its pc as address). {@code pprof -addresses} then prints {@code 0000000000001105
 * [libwork.so]}, i.e. module + offset. Offsets are written as given: the frames already follow
 * pprof's convention (a CPU sample's caller frames hold the return address minus one, inside the
 * call instruction, as pprof shows gperftools profiles and as Go's runtime writes them; see {@link
 * Frame}), so this writer does not adjust them. pprof takes {@code mapping[0]} as the main binary:
 * it is the heaviest module (in the most weight) that is not a shared library by pprof's own test
 * ({@code .so} names, {@code [vdso]}-like names), then the others follow by weight. pprof's legacy
 * clean-ups (dropping a duplicated leaf or a signal-handler frame) are not applied: the stacks are
 * written as aggregated.
 *
 * <p>Symbols: a symbolized frame's location gets one {@code Location.line} per entry of its inline
 * chain, in the chain's order (innermost first, as pprof expects), each with its line number (0
 * when unknown) and a {@code Function}: name = the demangled {@link SourceLine#function()},
 * system_name = the raw {@link SourceLine#symbol()} (the name when that is null), filename = the
 * file or {@code ""}, start_line unknown (0); one {@code Function} per distinct (name, system_name,
 * filename). An unsymbolized frame's location has its address only, as before, and so has a frame
 * whose one name is a boundary-only guess ({@link Frame#boundaryOnly()}, {@code MODULE+0xSTART}
 * from the call-frame information): pprof has no way to mark a function name as a guess, and an
 * address within its mapping is what it is.
 *
 * <p>Mapping flags: {@code has_filenames}, {@code has_line_numbers} and {@code has_inline_frames}
 * are set as pprof's own symbolizer sets them ({@code symbolizeOneMapping}): when some location of
 * the mapping has a line with a file, a line with a line number, a chain at all (a chain is the
 * full inline expansion, even when it has one entry). {@code has_functions} is set on EVERY
 * mapping. For a mapping with symbolized locations that is the truth; for one whose binary was not
 * found (address only) it is deliberate: pprof reads the flag as "already symbolized, do not look
 * for the binary", and its local symbolizer and symbolz then skip the mapping. The mapping's file
 * name is a path on the profiled hosts, so without the flag pprof would symbolize against whatever
 * file (maybe another build, maybe nothing, with warnings about missing binaries) has that path on
 * the viewer's machine; {@code -symbolize=force} still can. Its locations show as addresses ({@code
 * [libfoo.so]} in function views).
 *
 * <p>Streaming: the encoding of two {@code Profile} messages one after the other parses as one
 * {@code Profile} with their repeated fields concatenated (protobuf's merge rule), so samples are
 * written in batches as they come and the tables (locations, mappings, strings) once at the end;
 * memory holds the distinct locations (with their chains), not the samples.
 */
public final class PprofWriter implements StackWriter {
  private static final int BATCH = 4096;
  private static final Pattern LIBRARY = Pattern.compile("([.]so$|[.]so[._][0-9]+)");

  private final OutputStream out;
  private final ValueMeaning meaning;
  private final long valueMultiplier;
  private final List<String> comments = new ArrayList<>();

  /**
   * The string table: the samples' labels are indexed as they are written, the tables' strings
   * after them at the end.
   */
  private final Strings strings = new Strings();

  private String fileLabel;
  private final Map<Frame, Long> locationIds = new HashMap<>();
  private final List<Frame> locations = new ArrayList<>();
  private final List<ModuleStats> locationModules = new ArrayList<>();
  private final Map<String, ModuleStats> modules = new LinkedHashMap<>();
  private Profile.Builder batch = Profile.newBuilder();
  private long samples;
  private boolean closed;

  /** What the profile learns about each module while samples stream by. */
  private static final class ModuleStats {
    final String name;
    long maxAddress;
    double weight;
    long lastSample = -1;
    boolean hasFilenames;
    boolean hasLineNumbers;
    boolean hasInlineFrames;

    ModuleStats(String name) {
      this.name = name;
    }
  }

  /**
   * @param out receives the gzipped profile; closed by {@link #close()}
   */
  public PprofWriter(OutputStream out, ValueMeaning meaning) throws IOException {
    long nanos = meaning.nanosPerPeriodUnit();
    this.valueMultiplier =
        !meaning.hasPeriod()
            ? 0
            : nanos > 0 ? multiply(meaning.period(), nanos, "period") : meaning.period();
    this.meaning = meaning;
    this.out = new GZIPOutputStream(new BufferedOutputStream(out, 1 << 16), 1 << 16);
  }

  /** Writes {@code stacks} to {@code file}. */
  public static void write(Path file, ValueMeaning meaning, Iterable<WeightedStack> stacks)
      throws IOException {
    new PprofWriter(Files.newOutputStream(file), meaning).writeAll(stacks);
  }

  /**
   * What pprof shows as "File:" (the base name of the profile's first mapping), e.g. the fleet and
   * date of an aggregate of many programs; null (the default): the heaviest program. Written as an
   * empty first mapping, which no location uses.
   */
  public PprofWriter fileLabel(String label) {
    this.fileLabel = label == null ? null : label.replace('/', '_');
    return this;
  }

  /** Adds a line of free text to the profile ({@code pprof -comments} prints them). */
  public PprofWriter comment(String text) {
    comments.add(text);
    return this;
  }

  @Override
  public void add(List<Frame> leafFirst, long value) throws IOException {
    add(leafFirst, value, Map.of());
  }

  /**
   * Adds one stack whose sample carries {@code labels} as pprof string labels ({@code go tool pprof
   * -tagfocus=key=value}).
   */
  @Override
  public void add(List<Frame> leafFirst, long value, Map<String, String> labels)
      throws IOException {
    if (closed) {
      throw new IllegalStateException("writer is closed");
    }
    Sample.Builder s = Sample.newBuilder().addValue(value);
    if (valueMultiplier != 0) {
      s.addValue(multiply(value, valueMultiplier, "value"));
    }
    for (int i = 0; i < leafFirst.size(); i++) {
      long id = locationId(leafFirst.get(i));
      ModuleStats m = locationModules.get((int) id - 1);
      if (m != null && m.lastSample != samples) {
        m.lastSample = samples;
        m.weight += Math.abs((double) value); // only orders the mappings: a double cannot overflow
      }
      s.addLocationId(id);
    }
    for (Map.Entry<String, String> l : labels.entrySet()) {
      s.addLabel(
          Label.newBuilder().setKey(strings.index(l.getKey())).setStr(strings.index(l.getValue())));
    }
    batch.addSample(s);
    samples++;
    if (batch.getSampleCount() == BATCH) {
      flushBatch();
    }
  }

  private long locationId(Frame key) {
    Long id = locationIds.get(key);
    if (id != null) {
      return id;
    }
    long next = locations.size() + 1L;
    locationIds.put(key, next);
    locations.add(key);
    ModuleStats m = null;
    if (key.module() != null) {
      m = modules.computeIfAbsent(key.displayModule(), ModuleStats::new);
      if (Long.compareUnsigned(key.offset(), m.maxAddress) > 0) {
        m.maxAddress = key.offset();
      }
      m.hasInlineFrames |= !lines(key).isEmpty();
      for (SourceLine line : lines(key)) {
        m.hasFilenames |= line.file() != null;
        m.hasLineNumbers |= line.line() != 0;
      }
    }
    locationModules.add(m);
    return next;
  }

  private void flushBatch() throws IOException {
    if (batch.getSampleCount() > 0) {
      batch.build().writeTo(out);
      batch = Profile.newBuilder();
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (OutputStream o = out) {
      flushBatch();
      tables().writeTo(o);
    }
  }

  /** Everything but the samples, which are already written. */
  private Profile tables() {
    Profile.Builder p = Profile.newBuilder();
    p.addSampleType(valueType(strings, meaning.type(), meaning.unit()));
    if (meaning.hasPeriod()) {
      ValueType periodType =
          meaning.nanosPerPeriodUnit() > 0
              ? valueType(strings, "cpu", "nanoseconds")
              : valueType(strings, meaning.periodUnit(), "count");
      p.addSampleType(periodType).setPeriodType(periodType).setPeriod(valueMultiplier);
    }
    List<ModuleStats> order = new ArrayList<>(modules.values());
    order.sort(
        Comparator.comparing((ModuleStats m) -> isLibrary(m.name))
            .thenComparing(Comparator.comparingDouble((ModuleStats m) -> m.weight).reversed())
            .thenComparing(m -> m.name));
    Map<ModuleStats, Long> mappingIds = new HashMap<>();
    long labelMappings = 0;
    if (fileLabel != null) {
      labelMappings = 1;
      p.addMapping(Mapping.newBuilder().setId(1).setFilename(strings.index(fileLabel)));
    }
    for (ModuleStats m : order) {
      long id = labelMappings + mappingIds.size() + 1L;
      mappingIds.put(m, id);
      long limit = m.maxAddress == -1L ? -1L : m.maxAddress + 1;
      p.addMapping(
          Mapping.newBuilder()
              .setId(id)
              .setMemoryStart(0)
              .setMemoryLimit(limit)
              .setFileOffset(0)
              .setFilename(strings.index(m.name))
              .setHasFunctions(true)
              .setHasFilenames(m.hasFilenames)
              .setHasLineNumbers(m.hasLineNumbers)
              .setHasInlineFrames(m.hasInlineFrames));
    }
    Map<FunctionKey, Long> functionIds = new HashMap<>();
    for (int i = 0; i < locations.size(); i++) {
      Frame frame = locations.get(i);
      Location.Builder l = Location.newBuilder().setId(i + 1L).setAddress(frame.offset());
      ModuleStats m = locationModules.get(i);
      if (m != null) {
        l.setMappingId(mappingIds.get(m));
      }
      for (SourceLine line : lines(frame)) { // innermost first, as Location.line wants
        FunctionKey key =
            new FunctionKey(
                line.function(),
                line.symbol() == null ? line.function() : line.symbol(),
                line.file() == null ? "" : line.file());
        Long id = functionIds.get(key);
        if (id == null) {
          id = functionIds.size() + 1L;
          functionIds.put(key, id);
          p.addFunction(
              Function.newBuilder()
                  .setId(id)
                  .setName(strings.index(key.name()))
                  .setSystemName(strings.index(key.systemName()))
                  .setFilename(strings.index(key.filename())));
        }
        l.addLine(Line.newBuilder().setFunctionId(id).setLine(line.line()));
      }
      p.addLocation(l);
    }
    for (String c : comments) {
      p.addComment(strings.index(c));
    }
    return p.addAllStringTable(strings.table).build();
  }

  /**
   * The lines a frame's location gets: its chain, or none for a boundary-only name, which is no
   * function's name (pprof shows the location as an address in its mapping).
   */
  private static List<SourceLine> lines(Frame frame) {
    return frame.boundaryOnly() ? List.of() : frame.lines();
  }

  /** What makes a pprof {@code Function} distinct. */
  private record FunctionKey(String name, String systemName, String filename) {}

  /** pprof's guess that a mapped file is not the main binary ({@code massageMappings}). */
  private static boolean isLibrary(String file) {
    return file.startsWith("[") || LIBRARY.matcher(file).find();
  }

  private static ValueType valueType(Strings strings, String type, String unit) {
    return ValueType.newBuilder().setType(strings.index(type)).setUnit(strings.index(unit)).build();
  }

  private static long multiply(long a, long b, String what) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          what + " " + a + " x " + b + " does not fit in pprof's signed 64-bit values");
    }
  }

  /** pprof's string table: every string once, {@code ""} at index 0 as the format requires. */
  private static final class Strings {
    final List<String> table = new ArrayList<>(List.of(""));
    final Map<String, Long> index = new HashMap<>(Map.of("", 0L));

    long index(String s) {
      return index.computeIfAbsent(
          s,
          k -> {
            table.add(k);
            return table.size() - 1L;
          });
    }
  }
}
