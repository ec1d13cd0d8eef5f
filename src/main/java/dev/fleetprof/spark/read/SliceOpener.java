package dev.fleetprof.spark.read;

import dev.fleetprof.format.ByteArraySource;
import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.DecodeOptions;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.format.ProfileRecordReader;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Opens one slice for reading: a slice of a file planning split with its format's split reader and
 * the layout planning read ({@link ProfileFormat#openSplit}), any other file whole, its format
 * named by the read or detected from its first bytes. Small files (a fleet's usual profile is tens
 * of KB) are read with one open and then decoded from memory.
 */
final class SliceOpener {
  /** Files up to this size are read whole with one open (see {@link ByteArraySource}). */
  static final long WHOLE_FILE_BYTES = 1 << 20;

  private final Configuration conf;
  private final Map<String, SplitFile> splitLayouts;
  private final ProfileFormat fixedFormat;
  private final DecodeOptions decodeOptions;
  private final HadoopByteSource.GzipLimits gzipLimits;
  private final RequiredColumns columns;
  private final ReadMetrics metrics;
  private final byte[] head = new byte[ProfileFormats.HEAD_BYTES];

  /** Holds the current file when it is small enough to read whole; grown as needed. */
  private byte[] wholeFile;

  private String format;

  /**
   * @param fixedFormat the format every file is read as, or null to detect each file's
   * @param partitionBytes the bytes of all the task's slices, to size the read buffer
   */
  SliceOpener(
      Configuration conf,
      Map<String, SplitFile> splitLayouts,
      ProfileFormat fixedFormat,
      Map<String, String> formatOptions,
      HadoopByteSource.GzipLimits gzipLimits,
      RequiredColumns columns,
      ReadMetrics metrics,
      long partitionBytes) {
    this.conf = conf;
    this.splitLayouts = splitLayouts;
    this.fixedFormat = fixedFormat;
    this.gzipLimits = gzipLimits;
    this.columns = columns;
    this.metrics = metrics;
    // One read buffer for every file of the task: 1 MiB, or less when the task reads less.
    byte[] buffer = new byte[(int) Math.max(4096, Math.min(1 << 20, partitionBytes))];
    this.decodeOptions =
        new DecodeOptions(formatOptions, columns.needsPcs(), columns.needsMappings(), buffer);
  }

  /** The format of the slice last opened (also when opening it failed), or null if not known. */
  String format() {
    return format;
  }

  /**
   * {@code file} (gzip data not named {@code .gz}) decompressed, when its content is of a format
   * whose files may be gzipped under any name (pprof: Go writes {@code cpu.prof}, {@code cpu.pprof}
   * gzipped; {@link ProfileFormat#gzippedUnderAnyName}); null otherwise, and the file is then
   * refused as gzip data. Other formats' files are written uncompressed and compressed by name.
   */
  private ByteSource gzippedUnderAnyName(HadoopByteSource file) throws IOException {
    if (fixedFormat != null && !fixedFormat.gzippedUnderAnyName()) {
      return null;
    }
    HadoopByteSource inflated = file.decompressed();
    byte[] inner = new byte[ProfileFormats.HEAD_BYTES];
    int m;
    try (InputStream in = inflated.open(0)) {
      m = in.readNBytes(inner, 0, inner.length);
    } catch (IOException e) {
      return null; // not even gzip: refused as what its bytes look like
    }
    if (fixedFormat != null) {
      return inflated;
    }
    ProfileFormat inside = ProfileFormats.detect(inner, m, -1);
    return inside != null && inside.gzippedUnderAnyName() ? inflated : null;
  }

  /**
   * Opens a slice; {@code notRegular} says what its file is when the listing found it is not a
   * regular file (then it is not opened: opening a FIFO blocks until a writer comes), else null.
   */
  RowSource open(Slice slice, String notRegular) throws IOException {
    format = null;
    if (notRegular != null) {
      throw new ProfileFormatException(
          slice.path(), 0, "not a regular file (" + notRegular + "); it was not opened");
    }
    HadoopByteSource file =
        new HadoopByteSource(slice.path(), slice.fileLength(), conf, gzipLimits);
    SplitFile split = splitLayouts.get(slice.path());
    if (split != null) { // a slice of a large profile: the driver already read its layout
      if (slice.start() == 0) {
        metrics.files++;
      }
      format = split.format();
      ProfileFormat f = ProfileFormats.byName(format);
      ProfileRecordReader reader =
          f.openSplit(file, split.layout(), slice.start(), slice.end(), decodeOptions);
      if (reader.resynced()) {
        metrics.resyncedSplits++;
      }
      if (slice.start() == 0) { // the file's own text (module paths), counted once per file
        metrics.replacedCharacters += reader.replacedCharacters();
      }
      return new ProfileRows(
          reader, f, file.name(), columns, metrics, f.callerFramesMinusOne(decodeOptions));
    }
    metrics.files++;
    ByteSource src = file;
    if (!file.gzip() && slice.fileLength() <= WHOLE_FILE_BYTES) {
      int length = (int) slice.fileLength();
      if (wholeFile == null || wholeFile.length < length) {
        wholeFile = new byte[Math.max(length, 64 << 10)];
      }
      file.readFully(wholeFile, length);
      src = new ByteArraySource(file.name(), wholeFile, length);
    }
    int n;
    try (InputStream in = src.open(0)) {
      n = in.readNBytes(head, 0, head.length);
    }
    if (n == 0) {
      return RowSource.EMPTY; // a profiler reset before its first flush leaves a 0-byte file
    }
    if (HadoopByteSource.isGzipData(head, n) && !file.gzip()) {
      ByteSource inflated = gzippedUnderAnyName(file);
      if (inflated != null) {
        src = inflated;
        try (InputStream in = src.open(0)) {
          n = in.readNBytes(head, 0, head.length);
        }
      }
    }
    ProfileFormat f =
        fixedFormat != null
            ? fixedFormat
            : ProfileFormats.require(src.name(), head, n, src.length());
    format = f.name();
    ProfileRecordReader reader = f.open(src, head, n, decodeOptions);
    metrics.replacedCharacters += reader.replacedCharacters();
    return new ProfileRows(
        reader, f, src.name(), columns, metrics, f.callerFramesMinusOne(decodeOptions));
  }
}
