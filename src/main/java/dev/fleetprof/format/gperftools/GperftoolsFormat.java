package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.SplitLayout;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * gperftools CPU profiles ({@code CPUPROFILE=...}): recognised by their binary header, read whole
 * by {@link #open}, or in record-aligned splits: {@link #splitLayout} reads a large file's {@link
 * CpuProfileLayout} (header, trailer, executable mappings) once, {@link #openSplit} reads a slice
 * with {@link CpuProfileSplitReader#split}. Its records are CPU-time samples.
 */
public final class GperftoolsFormat implements ProfileFormat {
  public static final String NAME = "gperftools";

  /**
   * The most maps text a profile may have, in bytes (default 64 MiB): the text is read whole to
   * name modules, so a bound keeps a hostile file from filling a task's memory. A file with more is
   * a problem row naming the file and offset, never a silent loss of module names.
   */
  public static final String MAX_MAPS_TEXT = "gperftools.maxMapsTextBytes";

  /** The option's value, or the default. */
  public static long maxMapsText(DecodeOptions options) {
    String v = options.option(MAX_MAPS_TEXT, String.valueOf(CpuProfileLayout.MAX_MAPS_TEXT));
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n <= 0) {
      throw new IllegalArgumentException(
          MAX_MAPS_TEXT + "=" + v + ": expected a positive number of bytes");
    }
    return n;
  }

  /**
   * What a caller's frame holds: {@code return} (default) the pc as the profile stores it, the
   * return address (the instruction after the call); {@code call} that address minus one, inside
   * the call instruction, as pprof shows callers and as a symbolizer needs to name the line of the
   * call (the return address can be the first instruction of the next line, or of another
   * function). The leaf, {@code pcs} and {@code mapping} are the same either way.
   */
  public static final String CALLER_ADDRESS = "gperftools.callerAddress";

  /** Whether callers' frames are their return address minus one ({@link #CALLER_ADDRESS}). */
  public static boolean callersMinusOne(DecodeOptions options) {
    String v = options.option(CALLER_ADDRESS, "return").trim();
    if (v.equalsIgnoreCase("return")) {
      return false;
    } else if (v.equalsIgnoreCase("call")) {
      return true;
    }
    throw new IllegalArgumentException(
        CALLER_ADDRESS
            + "="
            + v
            + ": expected `return` (callers' frames at their return address, as stored) or"
            + " `call` (the return address minus one, inside the call, as pprof shows them)");
  }

  @Override
  public List<String> optionNames() {
    return List.of(MAX_MAPS_TEXT, CALLER_ADDRESS);
  }

  @Override
  public boolean splits() {
    return true;
  }

  /** Only a file with a trailer and executable mappings splits: see {@link CpuProfileLayout}. */
  @Override
  public CpuProfileLayout splitLayout(ByteSource file, DecodeOptions options) throws IOException {
    return CpuProfileLayout.read(file, maxMapsText(options));
  }

  @Override
  public CpuProfileSplitReader openSplit(
      ByteSource file, SplitLayout layout, long start, long end, DecodeOptions options)
      throws IOException {
    return CpuProfileSplitReader.split(file, (CpuProfileLayout) layout, start, end, options);
  }

  /** Every record is a sample of the profile's period of CPU time (in microseconds). */
  @Override
  public List<CountMeasure> measures() {
    return List.of(CountMeasure.cpuSamples(CpuProfileSplitReader.KIND));
  }

  @Override
  public boolean callerFramesMinusOne(DecodeOptions options) {
    return callersMinusOne(options);
  }

  @Override
  public Map<String, String> callSiteFrameOptions() {
    return Map.of(CALLER_ADDRESS, "call");
  }

  @Override
  public void validate(DecodeOptions options) {
    maxMapsText(options);
    callersMinusOne(options);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean hasSignature(byte[] head, int len) {
    return CpuProfileHeader.looksLike(head, len);
  }

  @Override
  public CpuProfileSplitReader open(
      ByteSource file, byte[] head, int headLength, DecodeOptions options) throws IOException {
    return CpuProfileSplitReader.wholeFile(
        file,
        CpuProfileHeader.parse(file.name(), head, headLength, file.length()),
        options,
        maxMapsText(options));
  }

  @Override
  public CpuProfileSplitReader open(ByteSource file, DecodeOptions options) throws IOException {
    return CpuProfileSplitReader.wholeFile(
        file, CpuProfileLayout.readHeader(file, file.length()), options, maxMapsText(options));
  }
}
