package dev.fleetprof.format.dcpi;

import dev.fleetprof.format.ProfileFormatException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Parses the ASCII header of a DCPI profile file (dcpiformat(4)) into a {@link DcpiHeader}, exactly
 * per the page's grammar:
 *
 * <pre>
 * header     : line+ terminator          terminator : "samples" [ \t]* "\n"
 * line       : key [ \t]+ value "\n"     key        : [^ \t\n]+
 * </pre>
 *
 * <p>Required keys, exactly once each: {@code version} ({@code pdb-<digits>.<digits>}), {@code
 * image} (hex), {@code epoch}, {@code platform} and {@code event} (rest of line), {@code tstart}
 * (hex; a {@code 0x} prefix is accepted), {@code tsize} and {@code cpuspeed} (decimal). {@code
 * period} (decimal) is listed by the page both as required and as optional: it is accepted when
 * absent (then {@link DcpiHeader#period()} is empty) and rejected when repeated. Optional keys
 * {@code cpuamask} (hex), {@code cpuimplv}, {@code cpucount} (decimal) and {@code path} (rest of
 * line) may appear at most once each (the page does not say; a second value would be ambiguous, so
 * it is an error). Every other key is an <i>unknown</i> line, kept in file order ({@link
 * DcpiHeader#unknown()}, {@link DcpiHeader#lines()}); unknown keys may repeat.
 *
 * <p>Strictness: keys are case-sensitive; a value with a type (hex, decimal, version, epoch) must
 * match its production exactly, so trailing spaces or a carriage return after it are errors (the
 * page allows padding only on the {@code samples} line); an empty line, a line starting with a
 * space or tab, or a key without a value is an error. A line {@code samples <text>} is, per the
 * grammar, an unknown line and not the terminator. The header is bounded: if no terminator is found
 * within {@link DcpiHeader#MAX_HEADER_BYTES} bytes the file is rejected without reading further.
 *
 * <p>Epoch: 10 digits {@code YYMMDDHHMM} (the page's form; years 70-99 are 19xx, 00-69 are 20xx),
 * 12 digits {@code YYYYMMDDHHMM} (later tools) or 14 digits {@code YYYYMMDDHHMMSS}. The page says
 * the digits are UCT (UTC) time, so {@link DcpiHeader#epoch()} is the {@link Instant} of that
 * wall-clock time in UTC.
 *
 * <p>Text is decoded as UTF-8 (the page says ASCII; UTF-8 is a superset and never contains the
 * bytes space, tab or newline inside a multi-byte character, so the grammar is applied unchanged).
 *
 * <p>Every error is a {@link ProfileFormatException} at the offset of the offending line (or of its
 * value, for a value of the wrong form), and each line is checked as it is read, so the first bad
 * line of a file is the one reported.
 */
final class DcpiHeaderParser {
  /** How often a known key may or must appear. */
  private enum Presence {
    /** Exactly once. */
    REQUIRED,
    /** At most once; dcpiformat(4) lists it as required and as optional ({@code period}). */
    REQUIRED_MAY_BE_ABSENT,
    /** At most once. */
    OPTIONAL
  }

  /** The production a known key's value must match, and what it is converted to. */
  private enum ValueType {
    /** The rest of the line, as written. */
    TEXT,
    /** Hex digits, kept as written. */
    HEX,
    /** Decimal digits, to a {@code Long}. */
    DECIMAL,
    /** Hex digits after an optional {@code 0x}, to an unsigned 64-bit {@code Long}. */
    TSTART,
    /** {@code pdb-<major>.<minor>}, to a {@link Version}. */
    VERSION,
    /** 10, 12 or 14 digits of UTC wall-clock time, to an {@link Instant}. */
    EPOCH
  }

  /** The keys dcpiformat(4) names; required ones in the order a "missing" error lists them. */
  private enum Key {
    VERSION("version", Presence.REQUIRED, ValueType.VERSION),
    IMAGE("image", Presence.REQUIRED, ValueType.HEX),
    EPOCH("epoch", Presence.REQUIRED, ValueType.EPOCH),
    PLATFORM("platform", Presence.REQUIRED, ValueType.TEXT),
    EVENT("event", Presence.REQUIRED, ValueType.TEXT),
    TSTART("tstart", Presence.REQUIRED, ValueType.TSTART),
    TSIZE("tsize", Presence.REQUIRED, ValueType.DECIMAL),
    CPUSPEED("cpuspeed", Presence.REQUIRED, ValueType.DECIMAL),
    PERIOD("period", Presence.REQUIRED_MAY_BE_ABSENT, ValueType.DECIMAL),
    CPUAMASK("cpuamask", Presence.OPTIONAL, ValueType.HEX),
    CPUIMPLV("cpuimplv", Presence.OPTIONAL, ValueType.DECIMAL),
    CPUCOUNT("cpucount", Presence.OPTIONAL, ValueType.DECIMAL),
    PATH("path", Presence.OPTIONAL, ValueType.TEXT);

    private static final Map<String, Key> BY_NAME = new HashMap<>();

    static {
      for (Key k : values()) {
        BY_NAME.put(k.name, k);
      }
    }

    final String name;
    final Presence presence;
    final ValueType type;

    Key(String name, Presence presence, ValueType type) {
      this.name = name;
      this.presence = presence;
      this.type = type;
    }

    /** The known key spelled {@code name} (case-sensitive), or null for an unknown line. */
    static Key named(String name) {
      return BY_NAME.get(name);
    }
  }

  /** A parsed {@code version} value. */
  private record Version(int major, int minor) {}

  private final String file;
  private final List<Map.Entry<String, String>> lines = new ArrayList<>();
  private final Map<String, String> unknown = new LinkedHashMap<>();

  /** Byte offset of the line where each known key was seen. */
  private final Map<Key, Long> seenAt = new EnumMap<>(Key.class);

  /** Each known key's value as written. */
  private final Map<Key, String> texts = new EnumMap<>(Key.class);

  /** Each known key's value converted per its {@link ValueType}. */
  private final Map<Key, Object> values = new EnumMap<>(Key.class);

  private DcpiHeaderParser(String file) {
    this.file = file;
  }

  /**
   * Parses from the current position (the file's start) of {@code in}; leaves it at the binary
   * part. {@code file} names the file in error messages.
   */
  static DcpiHeader parse(DcpiInput in, String file) throws IOException {
    return new DcpiHeaderParser(file).parse(in);
  }

  private DcpiHeader parse(DcpiInput in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    long lineStart = in.position();
    int lineNo = 1;
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw error(
            in.position(),
            "truncated header: the file ends before the 'samples' line that ends the DCPI header"
                + " (line "
                + lineNo
                + ")");
      }
      if (in.position() > DcpiHeader.MAX_HEADER_BYTES) {
        throw error(
            in.position() - 1,
            "header too long: no 'samples' line within the first "
                + DcpiHeader.MAX_HEADER_BYTES
                + " bytes (not a DCPI profile, or a corrupt one)");
      }
      if (c != '\n') {
        line.write(c);
        continue;
      }
      String text = line.toString(StandardCharsets.UTF_8);
      line.reset();
      if (isTerminator(text)) {
        return finish(lineStart, in.position());
      }
      line(text, lineStart, lineNo);
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

  /** Splits one header line into key and value, checks it and records it. */
  private void line(String text, long lineStart, int lineNo) throws ProfileFormatException {
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
    String name = text.substring(0, k);
    int v = k;
    while (v < text.length() && (text.charAt(v) == ' ' || text.charAt(v) == '\t')) {
      v++;
    }
    if (v == text.length()) {
      String hint =
          name.endsWith("\r") ? " (carriage return: DOS line endings are not allowed)" : "";
      throw error(lineStart, "header line " + lineNo + " '" + name + "' has no value" + hint);
    }
    String value = text.substring(v);
    long valueAt = lineStart + utf8Length(text.substring(0, v));
    Key key = Key.named(name);
    if (key != null && seenAt.containsKey(key)) {
      throw error(
          lineStart,
          "duplicated header line '"
              + name
              + "' (line "
              + lineNo
              + "; first seen at byte offset "
              + seenAt.get(key)
              + "): "
              + (key.presence == Presence.OPTIONAL
                  ? "an optional line may occur at most once"
                  : "a required line must occur exactly once"));
    }
    lines.add(new AbstractMap.SimpleImmutableEntry<>(name, value));
    if (key == null) {
      unknown.merge(name, value, (a, c) -> a + "\n" + c);
      return;
    }
    seenAt.put(key, lineStart);
    texts.put(key, value);
    values.put(key, convert(key, value, valueAt));
  }

  private Object convert(Key key, String value, long at) throws ProfileFormatException {
    switch (key.type) {
      case TEXT:
        return value;
      case HEX:
        return hex(key.name, value, at);
      case DECIMAL:
        return decimal(key.name, value, at);
      case TSTART:
        return tstart(value, at);
      case VERSION:
        return version(value, at);
      case EPOCH:
        return epoch(value, at);
      default:
        throw new AssertionError(key.type);
    }
  }

  /** Checks what only the whole header can tell, then builds it. */
  private DcpiHeader finish(long terminatorAt, long binaryStart) throws ProfileFormatException {
    List<String> missing = new ArrayList<>();
    for (Key key : Key.values()) {
      if (key.presence == Presence.REQUIRED && !seenAt.containsKey(key)) {
        missing.add(key.name);
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
    long tstart = (Long) values.get(Key.TSTART);
    long tsize = (Long) values.get(Key.TSIZE);
    if (Long.compareUnsigned(tstart + tsize, tstart) < 0) {
      throw error(
          terminatorAt,
          "tstart 0x" + Long.toHexString(tstart) + " + tsize " + tsize + " exceeds 2^64");
    }
    Version version = (Version) values.get(Key.VERSION);
    return new DcpiHeader(
        file,
        binaryStart,
        lines,
        unknown,
        texts.get(Key.VERSION),
        version.major(),
        version.minor(),
        texts.get(Key.IMAGE),
        texts.get(Key.EPOCH),
        (Instant) values.get(Key.EPOCH),
        texts.get(Key.PLATFORM),
        texts.get(Key.EVENT),
        optionalNumber(Key.PERIOD),
        tstart,
        tsize,
        (Long) values.get(Key.CPUSPEED),
        Optional.ofNullable(texts.get(Key.CPUAMASK)),
        optionalNumber(Key.CPUIMPLV),
        optionalNumber(Key.CPUCOUNT),
        Optional.ofNullable(texts.get(Key.PATH)));
  }

  private OptionalLong optionalNumber(Key key) {
    Long value = (Long) values.get(key);
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  // ---------------------------------------------------------------- value productions

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

  private long tstart(String value, long at) throws ProfileFormatException {
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

  private Version version(String value, long at) throws ProfileFormatException {
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
      return new Version(
          Integer.parseInt(value.substring(4, dot)), Integer.parseInt(value.substring(dot + 1)));
    } catch (NumberFormatException e) {
      throw error(at, "bad 'version' value '" + value + "': number too large");
    }
  }

  private Instant epoch(String value, long at) throws ProfileFormatException {
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
      throw error(
          at,
          "bad 'epoch' value '" + value + "': not a valid date and time (" + e.getMessage() + ")");
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

  private ProfileFormatException error(long offset, String problem) {
    return new ProfileFormatException(file, offset, problem);
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
}
