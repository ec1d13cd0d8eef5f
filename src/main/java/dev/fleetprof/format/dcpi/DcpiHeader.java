package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The ASCII header of a DCPI profile file (dcpiformat(4)), parsed exactly per the page's grammar:
 *
 * <pre>
 * header     : line+ terminator          terminator : "samples" [ \t]* "\n"
 * line       : key [ \t]+ value "\n"     key        : [^ \t\n]+
 * </pre>
 *
 * <p>Required keys, exactly once each: {@code version} ({@code pdb-<digits>.<digits>}), {@code image}
 * (hex), {@code epoch}, {@code platform} and {@code event} (rest of line), {@code tstart} (hex; a {@code
 * 0x} prefix is accepted), {@code tsize} and {@code cpuspeed} (decimal). {@code period} (decimal) is
 * listed by the page both as required and as optional: it is accepted when absent (then {@link
 * #period()} is empty) and rejected when repeated. Optional keys {@code cpuamask} (hex), {@code cpuimplv},
 * {@code cpucount} (decimal) and {@code path} (rest of line) may appear at most once each (the page does
 * not say; a second value would be ambiguous, so it is an error). Every other key is an <i>unknown</i>
 * line, kept in file order ({@link #unknown()}, {@link #lines()}); unknown keys may repeat.
 *
 * <p>Strictness: keys are case-sensitive; a value with a type (hex, decimal, version, epoch) must match
 * its production exactly, so trailing spaces or a carriage return after it are errors (the page allows
 * padding only on the {@code samples} line); an empty line, a line starting with a space or tab, or a key
 * without a value is an error. A line {@code samples <text>} is, per the grammar, an unknown line and
 * not the terminator. The header is bounded: if no terminator is found within {@link #MAX_HEADER_BYTES}
 * bytes the file is rejected without reading further.
 *
 * <p>Epoch: 10 digits {@code YYMMDDHHMM} (the page's form; years 70-99 are 19xx, 00-69 are 20xx), 12
 * digits {@code YYYYMMDDHHMM} (later tools) or 14 digits {@code YYYYMMDDHHMMSS}. The page says the
 * digits are UCT (UTC) time, so {@link #epoch()} is the {@link Instant} of that wall-clock time in UTC.
 *
 * <p>Text is decoded as UTF-8 (the page says ASCII; UTF-8 is a superset and never contains the bytes
 * space, tab or newline inside a multi-byte character, so the grammar is applied unchanged).
 */
public final class DcpiHeader {
  /** Upper bound on the header, terminator line included. */
  public static final int MAX_HEADER_BYTES = 64 * 1024;

  private static final List<String> REQUIRED =
      List.of("version", "image", "epoch", "platform", "event", "tstart", "tsize", "cpuspeed");

  private final String file;
  private final long binaryStart;
  private final List<Map.Entry<String, String>> lines;
  private final Map<String, String> unknown;
  private final String version;
  private final int versionMajor;
  private final int versionMinor;
  private final String image;
  private final String epochText;
  private final Instant epoch;
  private final String platform;
  private final String event;
  private final Long period;
  private final long tstart;
  private final long tsize;
  private final long cpuspeed;
  private final String cpuamask;
  private final Long cpuimplv;
  private final Long cpucount;
  private final String path;

  private DcpiHeader(Builder b) {
    this.file = b.file;
    this.binaryStart = b.binaryStart;
    this.lines = Collections.unmodifiableList(new ArrayList<>(b.lines));
    this.unknown = Collections.unmodifiableMap(new LinkedHashMap<>(b.unknown));
    this.version = b.version;
    this.versionMajor = b.versionMajor;
    this.versionMinor = b.versionMinor;
    this.image = b.image;
    this.epochText = b.epochText;
    this.epoch = b.epoch;
    this.platform = b.platform;
    this.event = b.event;
    this.period = b.period;
    this.tstart = b.tstart;
    this.tsize = b.tsize;
    this.cpuspeed = b.cpuspeed;
    this.cpuamask = b.cpuamask;
    this.cpuimplv = b.cpuimplv;
    this.cpucount = b.cpucount;
    this.path = b.path;
  }

  /** Reads and parses the header of {@code source} (at most {@link #MAX_HEADER_BYTES} bytes). */
  public static DcpiHeader read(ByteSource source) throws IOException {
    try (InputStream in = source.open(0)) {
      return parse(new DcpiInput(in, 0, source.length(), 8192), source.name());
    }
  }

  /** Parses a header held in memory (tests, tools); {@code file} names it in error messages. */
  public static DcpiHeader parse(byte[] bytes, String file) throws IOException {
    return parse(
        new DcpiInput(new java.io.ByteArrayInputStream(bytes), 0, bytes.length, 8192), file);
  }

  /** Parses from the current position (the file's start) of {@code in}; leaves it at the binary part. */
  static DcpiHeader parse(DcpiInput in, String file) throws IOException {
    Builder b = new Builder(file);
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    long lineStart = in.position();
    int lineNo = 1;
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new ProfileFormatException(
            file,
            in.position(),
            "truncated header: the file ends before the 'samples' line that ends the DCPI header"
                + " (line "
                + lineNo
                + ")");
      }
      if (in.position() > MAX_HEADER_BYTES) {
        throw new ProfileFormatException(
            file,
            in.position() - 1,
            "header too long: no 'samples' line within the first "
                + MAX_HEADER_BYTES
                + " bytes (not a DCPI profile, or a corrupt one)");
      }
      if (c != '\n') {
        line.write(c);
        continue;
      }
      String text = line.toString(StandardCharsets.UTF_8);
      line.reset();
      if (isTerminator(text)) {
        b.binaryStart = in.position();
        return b.finish(lineStart);
      }
      b.line(text, lineStart, lineNo);
      lineStart = in.position();
      lineNo++;
    }
  }

  private static boolean isTerminator(String line) {
    if (!line.startsWith("samples")) {
      return false;
    }
    for (int i = "samples".length(); i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch != ' ' && ch != '\t') {
        return false;
      }
    }
    return true;
  }

  private static final class Builder {
    final String file;
    long binaryStart;
    final List<Map.Entry<String, String>> lines = new ArrayList<>();
    final Map<String, String> unknown = new LinkedHashMap<>();
    final Map<String, Long> seenAt = new LinkedHashMap<>();
    String version;
    int versionMajor;
    int versionMinor;
    String image;
    String epochText;
    Instant epoch;
    String platform;
    String event;
    Long period;
    long tstart;
    long tsize;
    long cpuspeed;
    String cpuamask;
    Long cpuimplv;
    Long cpucount;
    String path;

    Builder(String file) {
      this.file = file;
    }

    private ProfileFormatException error(long offset, String problem) {
      return new ProfileFormatException(file, offset, problem);
    }

    void line(String text, long lineStart, int lineNo) throws ProfileFormatException {
      int k = 0;
      while (k < text.length() && text.charAt(k) != ' ' && text.charAt(k) != '\t') {
        k++;
      }
      if (k == 0) {
        throw error(
            lineStart,
            text.isEmpty()
                ? "header line " + lineNo + " is empty (every header line is 'key value')"
                : "header line " + lineNo + " starts with a space or tab (expected 'key value')");
      }
      String key = text.substring(0, k);
      int v = k;
      while (v < text.length() && (text.charAt(v) == ' ' || text.charAt(v) == '\t')) {
        v++;
      }
      if (v == text.length()) {
        String hint = key.endsWith("\r") ? " (carriage return: DOS line endings are not allowed)" : "";
        throw error(
            lineStart, "header line " + lineNo + " '" + key + "' has no value" + hint);
      }
      String value = text.substring(v);
      long valueAt = lineStart + utf8Length(text.substring(0, v));
      if (seenAt.containsKey(key) && isKnown(key)) {
        throw error(
            lineStart,
            "duplicated header line '"
                + key
                + "' (line "
                + lineNo
                + "; first seen at byte offset "
                + seenAt.get(key)
                + "): "
                + (REQUIRED.contains(key) || key.equals("period")
                    ? "a required line must occur exactly once"
                    : "an optional line may occur at most once"));
      }
      seenAt.putIfAbsent(key, lineStart);
      lines.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
      switch (key) {
        case "version":
          version = value;
          parseVersion(value, valueAt);
          break;
        case "image":
          image = hex(key, value, valueAt);
          break;
        case "epoch":
          epochText = value;
          epoch = parseEpoch(value, valueAt);
          break;
        case "platform":
          platform = value;
          break;
        case "event":
          event = value;
          break;
        case "period":
          period = decimal(key, value, valueAt);
          break;
        case "tstart":
          tstart = parseTstart(value, valueAt);
          break;
        case "tsize":
          tsize = decimal(key, value, valueAt);
          break;
        case "cpuspeed":
          cpuspeed = decimal(key, value, valueAt);
          break;
        case "cpuamask":
          cpuamask = hex(key, value, valueAt);
          break;
        case "cpuimplv":
          cpuimplv = decimal(key, value, valueAt);
          break;
        case "cpucount":
          cpucount = decimal(key, value, valueAt);
          break;
        case "path":
          path = value;
          break;
        default:
          unknown.merge(key, value, (a, c) -> a + "\n" + c);
      }
    }

    private static boolean isKnown(String key) {
      switch (key) {
        case "version":
        case "image":
        case "epoch":
        case "platform":
        case "event":
        case "period":
        case "tstart":
        case "tsize":
        case "cpuspeed":
        case "cpuamask":
        case "cpuimplv":
        case "cpucount":
        case "path":
          return true;
        default:
          return false;
      }
    }

    DcpiHeader finish(long terminatorAt) throws ProfileFormatException {
      List<String> missing = new ArrayList<>();
      for (String key : REQUIRED) {
        if (!seenAt.containsKey(key)) {
          missing.add(key);
        }
      }
      if (!missing.isEmpty()) {
        throw error(
            terminatorAt,
            "missing required header line"
                + (missing.size() > 1 ? "s " : " ")
                + String.join(", ", missing)
                + " (found the 'samples' line first)");
      }
      if (Long.compareUnsigned(tstart + tsize, tstart) < 0) {
        throw error(
            terminatorAt,
            "tstart 0x" + Long.toHexString(tstart) + " + tsize " + tsize + " exceeds 2^64");
      }
      return new DcpiHeader(this);
    }

    private String typeError(String key, String value, String expected) {
      String hint = "";
      if (value.endsWith("\r")) {
        hint = " (carriage return: DOS line endings are not allowed)";
      } else if (value.endsWith(" ") || value.endsWith("\t")) {
        hint = " (trailing whitespace is not allowed by the grammar)";
      }
      return "bad '" + key + "' value '" + printable(value) + "': expected " + expected + hint;
    }

    private long decimal(String key, String value, long at) throws ProfileFormatException {
      for (int i = 0; i < value.length(); i++) {
        char ch = value.charAt(i);
        if (ch < '0' || ch > '9') {
          throw error(at, typeError(key, value, "decimal digits"));
        }
      }
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw error(at, "bad '" + key + "' value '" + value + "': larger than 2^63-1");
      }
    }

    private String hex(String key, String value, long at) throws ProfileFormatException {
      for (int i = 0; i < value.length(); i++) {
        char ch = value.charAt(i);
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'))) {
          throw error(at, typeError(key, value, "hexadecimal digits"));
        }
      }
      return value;
    }

    private long parseTstart(String value, long at) throws ProfileFormatException {
      String digits = value;
      if (digits.startsWith("0x") || digits.startsWith("0X")) {
        digits = digits.substring(2);
        at += 2;
      }
      if (digits.isEmpty()) {
        throw error(at, typeError("tstart", value, "hexadecimal digits (optionally after 0x)"));
      }
      hex("tstart", digits, at);
      BigInteger v = new BigInteger(digits, 16);
      if (v.bitLength() > 64) {
        throw error(at, "bad 'tstart' value '" + value + "': larger than 2^64-1");
      }
      return v.longValue();
    }

    private void parseVersion(String value, long at) throws ProfileFormatException {
      int dot = value.indexOf('.');
      boolean ok =
          value.startsWith("pdb-")
              && dot > 4
              && dot < value.length() - 1
              && allDigits(value, 4, dot)
              && allDigits(value, dot + 1, value.length());
      if (!ok) {
        throw error(at, typeError("version", value, "pdb-<major>.<minor> with decimal digits"));
      }
      try {
        versionMajor = Integer.parseInt(value.substring(4, dot));
        versionMinor = Integer.parseInt(value.substring(dot + 1));
      } catch (NumberFormatException e) {
        throw error(at, "bad 'version' value '" + value + "': number too large");
      }
    }

    private Instant parseEpoch(String value, long at) throws ProfileFormatException {
      int n = value.length();
      if (!allDigits(value, 0, n) || (n != 10 && n != 12 && n != 14)) {
        throw error(
            at,
            typeError(
                "epoch",
                value,
                "10 digits YYMMDDHHMM, 12 digits YYYYMMDDHHMM or 14 digits YYYYMMDDHHMMSS"));
      }
      int y;
      int i;
      if (n == 10) {
        int yy = Integer.parseInt(value.substring(0, 2));
        y = yy >= 70 ? 1900 + yy : 2000 + yy;
        i = 2;
      } else {
        y = Integer.parseInt(value.substring(0, 4));
        i = 4;
      }
      int mo = Integer.parseInt(value.substring(i, i + 2));
      int d = Integer.parseInt(value.substring(i + 2, i + 4));
      int h = Integer.parseInt(value.substring(i + 4, i + 6));
      int mi = Integer.parseInt(value.substring(i + 6, i + 8));
      int s = n == 14 ? Integer.parseInt(value.substring(i + 8, i + 10)) : 0;
      try {
        return LocalDateTime.of(y, mo, d, h, mi, s).toInstant(ZoneOffset.UTC);
      } catch (DateTimeException e) {
        throw error(at, "bad 'epoch' value '" + value + "': not a valid date and time (" + e.getMessage() + ")");
      }
    }

    private static boolean allDigits(String s, int from, int to) {
      if (from >= to) {
        return false;
      }
      for (int i = from; i < to; i++) {
        if (s.charAt(i) < '0' || s.charAt(i) > '9') {
          return false;
        }
      }
      return true;
    }
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  private static String printable(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && i < 80; i++) {
      char ch = s.charAt(i);
      if (ch == '\r') {
        out.append("\\r");
      } else if (ch == '\t') {
        out.append("\\t");
      } else if (ch < 0x20 || ch == 0x7f) {
        out.append(String.format("\\x%02x", (int) ch));
      } else {
        out.append(ch);
      }
    }
    if (s.length() > 80) {
      out.append("...");
    }
    return out.toString();
  }

  /** The file's name, as given by its {@link ByteSource}. */
  public String file() {
    return file;
  }

  /** Byte offset of the binary part: just after the {@code samples} line's newline. */
  public long binaryStart() {
    return binaryStart;
  }

  /** Every header line but the terminator, in file order, as (key, value) pairs. */
  public List<Map.Entry<String, String>> lines() {
    return lines;
  }

  /**
   * The unknown lines, in file order of first appearance. The values of a key that appears more than
   * once are joined with {@code "\n"} (a header value never contains a newline, so this is lossless).
   */
  public Map<String, String> unknown() {
    return unknown;
  }

  /** The {@code version} value as written, e.g. {@code pdb-0.07}. */
  public String version() {
    return version;
  }

  /** The major version: 0 for the documented binary format. */
  public int versionMajor() {
    return versionMajor;
  }

  /** The minor version as a number ({@code pdb-0.07} gives 7; {@link #version()} keeps the text). */
  public int versionMinor() {
    return versionMinor;
  }

  /** True when the binary part is in the documented major-version-0 format. */
  public boolean binarySupported() {
    return versionMajor == 0;
  }

  /** The image id (hex digits, as written). */
  public String image() {
    return image;
  }

  /** The {@code epoch} value as written (10, 12 or 14 digits). */
  public String epochText() {
    return epochText;
  }

  /** The epoch as an instant: the header's digits read as UTC wall-clock time. */
  public Instant epoch() {
    return epoch;
  }

  /** The {@code platform} value. */
  public String platform() {
    return platform;
  }

  /** The {@code event} value (e.g. {@code cycles}). */
  public String event() {
    return event;
  }

  /** The sampling period (events per sample), empty when the header has no {@code period} line. */
  public OptionalLong period() {
    return period == null ? OptionalLong.empty() : OptionalLong.of(period);
  }

  /** Start address of the image's text, as an unsigned 64-bit bit pattern. */
  public long tstart() {
    return tstart;
  }

  /** Size in bytes of the image's text. */
  public long tsize() {
    return tsize;
  }

  /** End (exclusive) of the image's text: {@code tstart + tsize} (checked not to exceed 2^64). */
  public long textLimit() {
    return tstart + tsize;
  }

  /** The {@code cpuspeed} value (MHz on the DCPI tools). */
  public long cpuspeed() {
    return cpuspeed;
  }

  /** The optional {@code cpuamask} (hex, as written). */
  public Optional<String> cpuamask() {
    return Optional.ofNullable(cpuamask);
  }

  /** The optional {@code cpuimplv}. */
  public OptionalLong cpuimplv() {
    return cpuimplv == null ? OptionalLong.empty() : OptionalLong.of(cpuimplv);
  }

  /** The optional {@code cpucount}. */
  public OptionalLong cpucount() {
    return cpucount == null ? OptionalLong.empty() : OptionalLong.of(cpucount);
  }

  /** The optional {@code path} of the image. */
  public Optional<String> path() {
    return Optional.ofNullable(path);
  }

  /** The image's path when the header has one, else its image id: a name for its mapping. */
  public String pathOrImage() {
    return path != null ? path : image;
  }

  @Override
  public String toString() {
    return "DcpiHeader{" + file + ", " + version + ", image " + image + ", epoch " + epoch
        + ", event " + event + ", tstart 0x" + Long.toHexString(tstart) + ", tsize " + tsize
        + ", binary at " + binaryStart + "}";
  }
}
