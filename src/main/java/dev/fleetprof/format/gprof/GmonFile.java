package dev.fleetprof.format.gprof;

import dev.fleetprof.format.ByteSource;
import dev.fleetprof.format.ProfileFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry points of the gprof {@code gmon.out} decoder: layout detection ({@link #detect}), opening a
 * row reader ({@link #open}) and cheap recognition from the first bytes ({@link #sniff}).
 *
 * <h2>Detection</h2>
 *
 * Neither the pointer size nor the byte order is stored in a gmon file (gprof takes both from the
 * executable). Detection works from the bytes alone:
 *
 * <ul>
 *   <li><b>GNU</b> (file starts with {@code gmon}): the byte order is the one in which the version
 *       word reads 1 ({@code 01 00 00 00} little-endian, {@code 00 00 00 01} big-endian). Version 0
 *       reads the same both ways, so both orders are tried. The pointer size is found by walking
 *       the whole file under pointer size 4 and under 8 (bins skipped, nothing kept) and keeping
 *       the size under which every record parses and the last one ends exactly at the end of the
 *       file. Basic-block records of 64-bit files are tried with an 8-byte {@code ncounts} (glibc)
 *       and, if that fails, a 4-byte one (gprof). If both sizes fit, that is an error (force {@code
 *       gmon.pointerSize}), except for a file with no records at all, where the size does not
 *       matter (8 is reported). If none fits, the error of the attempt that got furthest into the
 *       file is reported, with the others summarised.
 *   <li><b>BSD</b> (no magic): a 4.4BSD file has {@code 0x00051879} at offset 12 (pointer size 4)
 *       or 20 (pointer size 8), which also gives the byte order. Otherwise old-BSD headers are
 *       tried with both pointer sizes and both byte orders; one fits when {@code lpc <= hpc},
 *       {@code ncnt} covers the header and an even number of bin bytes within the file, and the
 *       rest of the file is a whole number of arcs. Exactly one reading must fit.
 * </ul>
 *
 * Forcing an option ({@link GmonOptions}) removes the other candidates, but the file is still
 * walked once to validate it (and, for 64-bit GNU files with basic-block records, to pick the
 * {@code ncounts} width). Sources of unknown length (compressed) are walked as streams, once per
 * candidate. Memory stays a fixed buffer whatever the file size.
 *
 * <h2>Errors</h2>
 *
 * {@link ProfileFormatException} with the file's name and the byte offset: too short for a header;
 * glibc {@code LD_PROFILE} files ({@code gmon} + version 0x1ffff, offset 4); any other version
 * (offset 4); plus every structural error listed in {@link GmonReader}.
 */
public final class GmonFile {
  /** Version word of 4.4BSD headers. */
  public static final long BSD44_VERSION = 0x00051879L;

  /** Version word of glibc {@code LD_PROFILE} (sprof) files, which also start with {@code gmon}. */
  public static final long LD_PROFILE_VERSION = 0x1ffffL;

  private static final int HEAD = 64;

  private GmonFile() {}

  /** Detects the layout, then returns a reader positioned before the first row. */
  public static GmonReader open(ByteSource source, GmonOptions options) throws IOException {
    return new GmonReader(source, detect(source, options), false);
  }

  /** Returns a reader for a layout already known (for example from an earlier {@link #detect}). */
  public static GmonReader open(ByteSource source, GmonLayout layout) throws IOException {
    return new GmonReader(source, layout, false);
  }

  /**
   * Recognises a gmon file from its first bytes (at least 40 for the BSD checks) and, for old-BSD
   * files only, its length: returns the flavor, or null when the bytes are not a gmon file. Any
   * file starting with {@code gmon} is claimed, whatever its version word, so that {@link #detect}
   * can report unsupported versions and {@code LD_PROFILE} files precisely. Old-BSD files have no
   * magic at all: they are recognised only when {@code fileLength >= 0} and the header fits the
   * file exactly.
   */
  public static GmonFlavor sniff(byte[] head, int len, long fileLength) {
    if (len >= 4 && head[0] == 'g' && head[1] == 'm' && head[2] == 'o' && head[3] == 'n') {
      if (len >= 8 && u32(head, 4, ByteOrder.LITTLE_ENDIAN) == 0) {
        return GmonFlavor.GNU_V0;
      }
      return GmonFlavor.GNU_V1;
    }
    for (int p = 4; p <= 8; p += 4) {
      for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
        if (len >= 2 * p + 8 && u32(head, 2 * p + 4, order) == BSD44_VERSION) {
          return GmonFlavor.BSD_44;
        }
      }
    }
    if (fileLength >= 0) {
      for (int p = 4; p <= 8; p += 4) {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
          int hdr = 2 * p + 4;
          if (len < hdr) {
            continue;
          }
          long ncnt = u32(head, 2 * p, order);
          if (plausibleOldBsdHeader(head, p, order)
              && ncnt <= fileLength
              && (fileLength - ncnt) % (3L * p) == 0) {
            return GmonFlavor.BSD_OLD;
          }
        }
      }
    }
    return null;
  }

  /**
   * Decides the flavor, pointer size and byte order of {@code source} (see the class comment),
   * walking the file to validate the decision.
   *
   * @throws ProfileFormatException when the file is not a readable gmon file, or is ambiguous
   */
  public static GmonLayout detect(ByteSource source, GmonOptions options) throws IOException {
    byte[] head = new byte[HEAD];
    int n = readHead(source, head);
    if (n >= 4 && head[0] == 'g' && head[1] == 'm' && head[2] == 'o' && head[3] == 'n') {
      return detectGnu(source, options, head, n);
    }
    return detectBsd(source, options, head, n);
  }

  // ------------------------------------------------------------------ GNU

  /**
   * The version of a GNU file and the byte orders left to try: one when the version word decides it
   * (or it is forced), both for version 0, which reads the same either way.
   *
   * @param flavor version 0 or 1
   * @param orders the byte orders to walk the file in
   * @param orderBasis why the byte order is what it is; null while both orders are candidates
   */
  private record GnuVersion(GmonFlavor flavor, List<ByteOrder> orders, String orderBasis) {}

  /** The reading detection settled on, and why its pointer size and byte order. */
  private record Decision(Attempt chosen, String sizeBasis, String orderBasis) {}

  /**
   * A file starting with {@code gmon}: the header and version word decide the flavor and the byte
   * orders to try, the file is walked under each candidate reading, and of the readings that parse
   * the whole file one is chosen (or the file is refused as ambiguous).
   */
  private static GmonLayout detectGnu(ByteSource source, GmonOptions options, byte[] head, int n)
      throws IOException {
    String name = source.name();
    requireGnuHeader(name, n);
    rejectLdProfile(name, head);
    GnuVersion version = gnuVersion(name, options, head);
    List<Attempt> attempts = walkGnuReadings(source, options, version);
    List<Attempt> fits = distinctFits(attempts);
    if (fits.isEmpty()) {
      throw noFit(
          name,
          attempts,
          "no pointer size"
              + (version.orders().size() > 1 ? " and byte order" : "")
              + " parses the whole file");
    }
    Decision d =
        noRecords(fits)
            ? decideEmptyGnu(options, version, fits)
            : decideGnu(name, options, version, attempts, fits);
    return d.chosen()
        .layout
        .withBasis(d.chosen().end, d.chosen().records, d.sizeBasis(), d.orderBasis());
  }

  /** The 20-byte GNU header must be there before anything else is looked at. */
  private static void requireGnuHeader(String name, int n) throws ProfileFormatException {
    if (n < 20) {
      throw new ProfileFormatException(
          name, n, "file too short for the 20-byte gmon header (it has " + n + " bytes)");
    }
  }

  /** glibc's sprof files share the magic but not the layout: refused by name, in either order. */
  private static void rejectLdProfile(String name, byte[] head) throws ProfileFormatException {
    if (u32(head, 4, ByteOrder.LITTLE_ENDIAN) == LD_PROFILE_VERSION
        || u32(head, 4, ByteOrder.BIG_ENDIAN) == LD_PROFILE_VERSION) {
      throw new ProfileFormatException(
          name,
          4,
          "glibc LD_PROFILE (sprof) profile: 'gmon' magic with version 0x1ffff; it describes one"
              + " shared object in a different layout and is not a gprof gmon.out file (not"
              + " supported)");
    }
  }

  /**
   * Reads the version word: a forced byte order reads it that way only; otherwise the order in
   * which it reads 1 is the file's, and a 0 leaves both orders to try. Any other version is
   * refused.
   */
  private static GnuVersion gnuVersion(String name, GmonOptions options, byte[] head)
      throws ProfileFormatException {
    long vLe = u32(head, 4, ByteOrder.LITTLE_ENDIAN);
    long vBe = u32(head, 4, ByteOrder.BIG_ENDIAN);
    ByteOrder forced = options.byteOrder();
    if (forced != null) {
      long v = forced == ByteOrder.LITTLE_ENDIAN ? vLe : vBe;
      long other = forced == ByteOrder.LITTLE_ENDIAN ? vBe : vLe;
      if (v != 0 && v != 1) {
        throw new ProfileFormatException(
            name,
            4,
            String.format(
                "unsupported gmon version 0x%x (version word read %s, as forced by %s)%s",
                v,
                orderName(forced),
                GmonOptions.BYTE_ORDER,
                other == 1 ? "; it reads as version 1 in the other byte order" : ""));
      }
      return new GnuVersion(
          v == 1 ? GmonFlavor.GNU_V1 : GmonFlavor.GNU_V0,
          List.of(forced),
          "forced by " + GmonOptions.BYTE_ORDER);
    }
    if (vLe == 1) {
      return new GnuVersion(
          GmonFlavor.GNU_V1,
          List.of(ByteOrder.LITTLE_ENDIAN),
          "version word 01 00 00 00 reads 1 little-endian");
    }
    if (vBe == 1) {
      return new GnuVersion(
          GmonFlavor.GNU_V1,
          List.of(ByteOrder.BIG_ENDIAN),
          "version word 00 00 00 01 reads 1 big-endian");
    }
    if (vLe == 0) {
      return new GnuVersion(
          GmonFlavor.GNU_V0, List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN), null);
    }
    throw new ProfileFormatException(
        name,
        4,
        String.format(
            "unsupported gmon version: the version word %02x %02x %02x %02x reads %d little-endian and"
                + " %d big-endian; gprof knows versions 0 and 1",
            head[4] & 0xff, head[5] & 0xff, head[6] & 0xff, head[7] & 0xff, vLe, vBe));
  }

  /**
   * Walks the file once per candidate byte order and pointer size (the forced ones only, if any). A
   * 64-bit reading that fails after meeting a basic-block record is walked again with a 4-byte
   * {@code ncounts} (gprof writes 4 bytes, 64-bit glibc 8).
   */
  private static List<Attempt> walkGnuReadings(
      ByteSource source, GmonOptions options, GnuVersion version) throws IOException {
    int[] sizes = options.pointerSize() != 0 ? new int[] {options.pointerSize()} : new int[] {4, 8};
    GmonFlavor flavor = version.flavor();
    List<Attempt> attempts = new ArrayList<>();
    for (ByteOrder order : version.orders()) {
      for (int p : sizes) {
        int ncountsWidth = p == 8 ? 8 : 4;
        Attempt a =
            walk(source, new GmonLayout(flavor, p, order, ncountsWidth, 100, -1, -1, "", ""));
        attempts.add(a);
        if (p == 8 && !a.ok && a.sawBasicBlocks) {
          attempts.add(walk(source, new GmonLayout(flavor, p, order, 4, 100, -1, -1, "", "")));
        }
      }
    }
    return attempts;
  }

  /** The readings that parse the whole file, one per (pointer size, byte order), first one kept. */
  private static List<Attempt> distinctFits(List<Attempt> attempts) {
    List<Attempt> fits = new ArrayList<>();
    for (Attempt a : attempts) {
      boolean dup = false;
      for (Attempt f : fits) {
        dup |=
            f.layout.pointerSize() == a.layout.pointerSize()
                && f.layout.byteOrder() == a.layout.byteOrder();
      }
      if (a.ok && !dup) {
        fits.add(a);
      }
    }
    return fits;
  }

  private static boolean noRecords(List<Attempt> fits) {
    boolean none = true;
    for (Attempt f : fits) {
      none &= f.records == 0;
    }
    return none;
  }

  /**
   * A file with no records after its header fits every reading and the choice does not matter: the
   * 64-bit one is reported, in the first order that fits.
   */
  private static Decision decideEmptyGnu(
      GmonOptions options, GnuVersion version, List<Attempt> fits) {
    Attempt chosen = fits.get(0);
    for (Attempt f : fits) {
      if (f.layout.pointerSize() == 8 && chosen.layout.pointerSize() != 8) {
        chosen = f;
      }
    }
    String sizeBasis =
        options.pointerSize() != 0
            ? "forced by " + GmonOptions.POINTER_SIZE
            : "the file has no records after its header, so the pointer size does not matter;"
                + " reported as 8";
    String orderBasis =
        version.orderBasis() != null
            ? version.orderBasis()
            : "version word 0 reads the same in both orders and the file has no records; reported as "
                + orderName(chosen.layout.byteOrder());
    return new Decision(chosen, sizeBasis, orderBasis);
  }

  /**
   * A file with records: exactly one pointer size must fit; when both byte orders fit (version 0),
   * the one giving the smaller addresses is chosen.
   */
  private static Decision decideGnu(
      String name,
      GmonOptions options,
      GnuVersion version,
      List<Attempt> attempts,
      List<Attempt> fits)
      throws ProfileFormatException {
    requireOnePointerSize(name, fits);
    Attempt chosen = fits.get(0);
    String orderBasis = version.orderBasis();
    if (fits.size() > 1) { // version 0, both byte orders fit
      Attempt le = fits.get(0);
      Attempt be = fits.get(1);
      int c = Long.compareUnsigned(le.maxAddress, be.maxAddress);
      if (c == 0) {
        throw new ProfileFormatException(
            name,
            4,
            "ambiguous byte order: this version-0 file parses"
                + " completely in both byte orders; set "
                + GmonOptions.BYTE_ORDER);
      }
      chosen = c < 0 ? le : be;
      Attempt other = c < 0 ? be : le;
      orderBasis =
          String.format(
              "version word 0 reads the same in both orders and both parse; %s"
                  + " gives the smaller addresses (max 0x%x against 0x%x)",
              orderName(chosen.layout.byteOrder()), chosen.maxAddress, other.maxAddress);
    }
    if (orderBasis == null) {
      orderBasis =
          "version word 0 reads the same in both orders; only "
              + orderName(chosen.layout.byteOrder())
              + " parses the whole file";
    }
    return new Decision(chosen, gnuSizeBasis(options, attempts, chosen), orderBasis);
  }

  private static void requireOnePointerSize(String name, List<Attempt> fits)
      throws ProfileFormatException {
    for (Attempt f : fits) {
      if (f.layout.pointerSize() != fits.get(0).layout.pointerSize()) {
        throw new ProfileFormatException(
            name,
            20,
            "ambiguous pointer size: the file parses"
                + " completely and ends exactly at end of file with pointer size 4 and with 8; set "
                + GmonOptions.POINTER_SIZE);
      }
    }
  }

  /**
   * Why the chosen pointer size: forced, or the only one that parses (with the other size's error,
   * from its last reading in the chosen order), plus how a 64-bit file's basic-block counts were
   * read.
   */
  private static String gnuSizeBasis(GmonOptions options, List<Attempt> attempts, Attempt chosen) {
    String sizeBasis;
    if (options.pointerSize() != 0) {
      sizeBasis = "forced by " + GmonOptions.POINTER_SIZE;
    } else {
      Attempt otherSize = null;
      for (Attempt a : attempts) {
        if (a.layout.pointerSize() != chosen.layout.pointerSize()
            && a.layout.byteOrder() == chosen.layout.byteOrder()) {
          otherSize = a;
        }
      }
      sizeBasis =
          "the only size under which all "
              + chosen.records
              + " records parse and end"
              + " exactly at end of file"
              + (otherSize != null && otherSize.error != null
                  ? " (with "
                      + otherSize.layout.pointerSize()
                      + ": "
                      + shortError(otherSize.error)
                      + ")"
                  : "");
    }
    if (chosen.sawBasicBlocks && chosen.layout.pointerSize() == 8) {
      sizeBasis +=
          chosen.layout.bbCountWidth() == 8
              ? "; basic-block ncounts read as 8 bytes, as 64-bit glibc writes them"
              : "; basic-block ncounts read as 4 bytes, as gprof writes them (8 bytes does not parse)";
    }
    return sizeBasis;
  }

  // ------------------------------------------------------------------ BSD

  private static GmonLayout detectBsd(ByteSource source, GmonOptions options, byte[] head, int n)
      throws IOException {
    String name = source.name();
    if (n < 12) {
      throw new ProfileFormatException(
          name,
          n,
          n == 0
              ? "empty file: not a gmon file"
              : "file too short to be a gmon file: "
                  + n
                  + " bytes, no 'gmon' magic, and shorter than the"
                  + " smallest BSD header (12 bytes)");
    }
    ByteOrder[] orders =
        options.byteOrder() != null
            ? new ByteOrder[] {options.byteOrder()}
            : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN};
    int[] sizes = options.pointerSize() != 0 ? new int[] {options.pointerSize()} : new int[] {4, 8};

    List<GmonLayout> candidates = new ArrayList<>();
    for (int p : sizes) {
      for (ByteOrder order : orders) {
        if (n >= 2 * p + 8 && u32(head, 2 * p + 4, order) == BSD44_VERSION) {
          candidates.add(
              new GmonLayout(
                  GmonFlavor.BSD_44, p, order, 4, options.oldBsdProfRate(), -1, -1, "", ""));
        }
      }
    }
    boolean bsd44 = !candidates.isEmpty();
    if (!bsd44) {
      for (int p : sizes) {
        for (ByteOrder order : orders) {
          if (n >= 2 * p + 4) {
            candidates.add(
                new GmonLayout(
                    GmonFlavor.BSD_OLD, p, order, 4, options.oldBsdProfRate(), -1, -1, "", ""));
          }
        }
      }
    }
    List<Attempt> attempts = new ArrayList<>();
    List<Attempt> fits = new ArrayList<>();
    for (GmonLayout c : candidates) {
      Attempt a = walk(source, c);
      attempts.add(a);
      if (a.ok) {
        fits.add(a);
      }
    }
    if (fits.isEmpty()) {
      if (bsd44) {
        throw noFit(name, attempts, "4.4BSD version word found, but the file does not parse");
      }
      // Report like a GNU file when some reading has a plausible old-BSD header (the file is
      // probably
      // a damaged BSD file); otherwise the bytes are simply not a gmon file.
      List<Attempt> plausible = new ArrayList<>();
      for (Attempt a : attempts) {
        if (plausibleOldBsdHeader(head, a.layout.pointerSize(), a.layout.byteOrder())) {
          plausible.add(a);
        }
      }
      if (!plausible.isEmpty()) {
        throw noFit(
            name,
            plausible,
            "no old-BSD reading (pointer size 4 or 8, either byte order) fits the" + " file");
      }
      StringBuilder why = new StringBuilder();
      for (Attempt a : attempts) {
        why.append(why.length() == 0 ? "" : "; ")
            .append(a.layout.pointerSize())
            .append("-byte ")
            .append(orderName(a.layout.byteOrder()))
            .append(": ")
            .append(shortError(a.error));
      }
      throw new ProfileFormatException(
          name,
          0,
          "not a gmon file: no 'gmon' magic, no 4.4BSD version"
              + " word, and no old-BSD header reading fits the file ("
              + why
              + ")");
    }
    if (fits.size() > 1) {
      boolean sizesDiffer = false;
      for (Attempt f : fits) {
        sizesDiffer |= f.layout.pointerSize() != fits.get(0).layout.pointerSize();
      }
      throw new ProfileFormatException(
          name,
          0,
          "ambiguous "
              + (bsd44 ? "4.4BSD" : "old-BSD")
              + " file: it parses exactly with "
              + fits.size()
              + " readings; set "
              + (sizesDiffer ? GmonOptions.POINTER_SIZE : GmonOptions.BYTE_ORDER));
    }
    Attempt chosen = fits.get(0);
    int p = chosen.layout.pointerSize();
    String sizeBasis;
    String orderBasis;
    String exact =
        "header, "
            + "bins and "
            + chosen.records
            + " whole "
            + (3 * p)
            + "-byte arcs end exactly at end of file";
    if (options.pointerSize() != 0) {
      sizeBasis = "forced by " + GmonOptions.POINTER_SIZE;
    } else if (bsd44) {
      sizeBasis = "4.4BSD version word 0x00051879 at offset " + (2 * p + 4) + "; " + exact;
    } else {
      sizeBasis = "the only old-BSD reading whose " + exact;
    }
    if (options.byteOrder() != null) {
      orderBasis = "forced by " + GmonOptions.BYTE_ORDER;
    } else if (bsd44) {
      orderBasis = "4.4BSD version word reads 0x00051879 " + orderName(chosen.layout.byteOrder());
    } else {
      orderBasis = "the only old-BSD reading whose " + exact;
    }
    return chosen.layout.withBasis(chosen.end, chosen.records, sizeBasis, orderBasis);
  }

  /** lpc < hpc, and ncnt covers the header plus an even number of bin bytes. */
  private static boolean plausibleOldBsdHeader(byte[] head, int p, ByteOrder order) {
    int hdr = 2 * p + 4;
    long low = word(head, 0, p, order);
    long high = word(head, p, p, order);
    long ncnt = u32(head, 2 * p, order);
    return Long.compareUnsigned(low, high) < 0 && ncnt >= hdr && ((ncnt - hdr) & 1) == 0;
  }

  // ------------------------------------------------------------------ walking

  private static final class Attempt {
    GmonLayout layout;
    boolean ok;
    ProfileFormatException error;
    long records;
    long end;
    boolean sawBasicBlocks;
    long maxAddress;
  }

  private static Attempt walk(ByteSource source, GmonLayout layout) throws IOException {
    Attempt a = new Attempt();
    a.layout = layout;
    GmonReader r = new GmonReader(source, layout, true);
    try {
      while (r.next()) {
        // walkOnly readers return no rows
      }
      a.ok = true;
      a.end = r.position();
    } catch (ProfileFormatException e) {
      a.error = e;
    } finally {
      a.records = r.recordsSeen();
      a.sawBasicBlocks = r.sawBasicBlocks();
      a.maxAddress = r.maxAddress();
      r.close();
    }
    return a;
  }

  private static ProfileFormatException noFit(String name, List<Attempt> attempts, String summary) {
    Attempt best = null;
    for (Attempt a : attempts) {
      if (best == null
          || a.error.offset() > best.error.offset()
          || (a.error.offset() == best.error.offset()
              && a.layout.pointerSize() > best.layout.pointerSize())) {
        best = a;
      }
    }
    if (attempts.size() == 1) {
      return best.error;
    }
    StringBuilder others = new StringBuilder();
    for (Attempt a : attempts) {
      if (a != best) {
        others
            .append(others.length() == 0 ? "" : "; ")
            .append(a.layout.pointerSize())
            .append("-byte ")
            .append(orderName(a.layout.byteOrder()))
            .append(
                a.layout.pointerSize() == 8 && a.sawBasicBlocks
                    ? " (" + a.layout.bbCountWidth() + "-byte ncounts)"
                    : "")
            .append(": ")
            .append(shortError(a.error));
      }
    }
    return new ProfileFormatException(
        name,
        best.error.offset(),
        best.error.problem()
            + " ["
            + summary
            + "; this is the reading that got furthest; others: "
            + others
            + "]",
        best.error);
  }

  private static String shortError(ProfileFormatException e) {
    String p = e.problem();
    int cut = p.indexOf(" (");
    if (cut > 0) {
      p = p.substring(0, cut);
    }
    if (p.length() > 120) {
      p = p.substring(0, 117) + "...";
    }
    return "offset " + e.offset() + ": " + p;
  }

  // ------------------------------------------------------------------ bytes

  private static int readHead(ByteSource source, byte[] head) throws IOException {
    try (InputStream in = source.open(0)) {
      int n = 0;
      while (n < head.length) {
        int r = in.read(head, n, head.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
      return n;
    }
  }

  static long u32(byte[] b, int off, ByteOrder order) {
    long v = 0;
    for (int i = 0; i < 4; i++) {
      int idx = order == ByteOrder.LITTLE_ENDIAN ? off + 3 - i : off + i;
      v = v << 8 | (b[idx] & 0xff);
    }
    return v;
  }

  static long word(byte[] b, int off, int size, ByteOrder order) {
    long v = 0;
    for (int i = 0; i < size; i++) {
      int idx = order == ByteOrder.LITTLE_ENDIAN ? off + size - 1 - i : off + i;
      v = v << 8 | (b[idx] & 0xff);
    }
    return v;
  }

  static String orderName(ByteOrder order) {
    return order == ByteOrder.LITTLE_ENDIAN ? "little-endian" : "big-endian";
  }
}
