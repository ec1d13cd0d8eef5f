package dev.fleetprof.format.gperftools;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import java.io.IOException;

/**
 * gperftools CPU profiles ({@code CPUPROFILE=...}): recognised by their binary header, read whole
 * by {@link #open}, or in record-aligned splits through {@link CpuProfileLayout} and {@link
 * CpuProfileSplitReader#split}, the one format whose large files are split.
 */
public final class GperftoolsFormat implements ProfileFormat {
  public static final String NAME = "gperftools";

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
        file, CpuProfileHeader.parse(file.name(), head, headLength, file.length()), options);
  }

  @Override
  public CpuProfileSplitReader open(ByteSource file, DecodeOptions options) throws IOException {
    return CpuProfileSplitReader.wholeFile(
        file, CpuProfileLayout.readHeader(file, file.length()), options);
  }
}
