package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The ASCII header of a DCPI profile file (dcpiformat(4)): the values of its lines, already checked
 * against the page's grammar by {@link DcpiHeaderParser} (which documents the grammar, the
 * strictness and the epoch forms). Values with a type are given both as written and converted where
 * a caller needs either.
 *
 * @param file the file's name, as given by its {@link ByteSource}
 * @param binaryStart byte offset of the binary part: just after the {@code samples} line's newline
 * @param lines every header line but the terminator, in file order, as (key, value) pairs
 * @param unknown the lines whose key dcpiformat(4) does not name, in file order of first
 *     appearance; the values of a key that appears more than once are joined with {@code "\n"} (a
 *     header value never contains a newline, so this is lossless)
 * @param version the {@code version} value as written, e.g. {@code pdb-0.07}
 * @param versionMajor the major version: 0 for the documented binary format
 * @param versionMinor the minor version as a number ({@code pdb-0.07} gives 7)
 * @param image the image id (hex digits, as written)
 * @param epochText the {@code epoch} value as written (10, 12 or 14 digits)
 * @param epoch the epoch as an instant: the header's digits read as UTC wall-clock time
 * @param platform the {@code platform} value
 * @param event the {@code event} value (e.g. {@code cycles})
 * @param period the sampling period (events per sample), empty when there is no {@code period} line
 * @param tstart start address of the image's text, as an unsigned 64-bit bit pattern
 * @param tsize size in bytes of the image's text ({@code tstart + tsize} is checked not to exceed
 *     2^64)
 * @param cpuspeed the {@code cpuspeed} value (MHz on the DCPI tools)
 * @param cpuamask the optional {@code cpuamask} (hex, as written)
 * @param cpuimplv the optional {@code cpuimplv}
 * @param cpucount the optional {@code cpucount}
 * @param path the optional {@code path} of the image
 */
public record DcpiHeader(
    String file,
    long binaryStart,
    List<Map.Entry<String, String>> lines,
    Map<String, String> unknown,
    String version,
    int versionMajor,
    int versionMinor,
    String image,
    String epochText,
    Instant epoch,
    String platform,
    String event,
    OptionalLong period,
    long tstart,
    long tsize,
    long cpuspeed,
    Optional<String> cpuamask,
    OptionalLong cpuimplv,
    OptionalLong cpucount,
    Optional<String> path) {
  /** Upper bound on the header, terminator line included. */
  public static final int MAX_HEADER_BYTES = 64 * 1024;

  /** Copies the collections so that a header never changes after parsing. */
  public DcpiHeader {
    // the map keeps file order, which Map.copyOf would not
    lines = Collections.unmodifiableList(new ArrayList<>(lines));
    unknown = Collections.unmodifiableMap(new LinkedHashMap<>(unknown));
  }

  /** Reads and parses the header of {@code source} (at most {@link #MAX_HEADER_BYTES} bytes). */
  public static DcpiHeader read(ByteSource source) throws IOException {
    try (InputStream in = source.open(0)) {
      return DcpiHeaderParser.parse(new DcpiInput(in, 0, source.length(), 8192), source.name());
    }
  }

  /** Parses a header held in memory (tests, tools); {@code file} names it in error messages. */
  public static DcpiHeader parse(byte[] bytes, String file) throws IOException {
    return DcpiHeaderParser.parse(
        new DcpiInput(new ByteArrayInputStream(bytes), 0, bytes.length, 8192), file);
  }

  /** True when the binary part is in the documented major-version-0 format. */
  public boolean binarySupported() {
    return versionMajor == 0;
  }

  /** End (exclusive) of the image's text: {@code tstart + tsize} (checked not to exceed 2^64). */
  public long textLimit() {
    return tstart + tsize;
  }

  /** The image's path when the header has one, else its image id: a name for its mapping. */
  public String pathOrImage() {
    return path.orElse(image);
  }

  /** A short summary: the record's own form would print every line of the header. */
  @Override
  public String toString() {
    return "DcpiHeader{"
        + file
        + ", "
        + version
        + ", image "
        + image
        + ", epoch "
        + epoch
        + ", event "
        + event
        + ", tstart 0x"
        + Long.toHexString(tstart)
        + ", tsize "
        + tsize
        + ", binary at "
        + binaryStart
        + "}";
  }
}
