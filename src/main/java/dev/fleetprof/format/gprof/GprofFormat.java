package dev.fleetprof.format.gprof;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.CountMeasure;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.FrameAddresses;
import dev.fleetprof.format.ProfileFormat;
import java.io.IOException;
import java.util.List;

/**
 * GNU gprof {@code gmon.out} files (tagged records after a {@code gmon} magic) and the 4.4BSD and
 * old BSD layouts, which have no magic: the old one is recognised only by its header's sizes adding
 * up to the file's length.
 */
public final class GprofFormat implements ProfileFormat {
  public static final String NAME = "gprof";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean hasSignature(byte[] head, int len) {
    return len >= 4 && head[0] == 'g' && head[1] == 'm' && head[2] == 'o' && head[3] == 'n';
  }

  @Override
  public boolean matchesWithoutSignature(byte[] head, int len, long fileLength) {
    return GmonFile.sniff(head, len, fileLength) != null;
  }

  @Override
  public List<String> optionNames() {
    return List.of(GmonOptions.POINTER_SIZE, GmonOptions.BYTE_ORDER, GmonOptions.OLD_BSD_PROF_RATE);
  }

  @Override
  public void validate(DecodeOptions options) {
    GmonOptions.fromMap(options.formatOptions());
  }

  /** Histogram bins count samples of CPU time; arcs count calls; basic blocks, executions. */
  @Override
  public List<CountMeasure> measures() {
    return List.of(
        CountMeasure.cpuSamples(GmonReader.KIND_HISTOGRAM),
        CountMeasure.counts(GmonReader.KIND_ARC, "calls"),
        CountMeasure.counts(GmonReader.KIND_BASIC_BLOCK, "executions"));
  }

  /** gmon.out holds link-time addresses of a program it does not name. */
  @Override
  public FrameAddresses frameAddresses() {
    return FrameAddresses.PROGRAM_ADDRESSES;
  }

  /** {@code histogram}: a histogram bin's end, the histogram's rate and dimension. */
  @Override
  public List<String> columns() {
    return List.of(COLUMN);
  }

  /** The source's column only gprof fills. */
  public static final String COLUMN = "histogram";

  @Override
  public GmonReader open(ByteSource file, DecodeOptions options) throws IOException {
    return GmonFile.open(file, GmonOptions.fromMap(options.formatOptions()));
  }
}
