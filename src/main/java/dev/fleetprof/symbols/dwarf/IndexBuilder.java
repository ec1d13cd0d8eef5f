package dev.fleetprof.symbols.dwarf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the symbolizer's tables in one pass over .debug_info: the units, every function DIE with
 * code (DW_TAG_subprogram, DW_TAG_entry_point, DW_TAG_inlined_subroutine) and the functions they
 * were inlined into, their names (through DW_AT_abstract_origin and DW_AT_specification), and their
 * address ranges. Single-threaded; the result is immutable.
 */
final class IndexBuilder {
  private static final String INFO = ".debug_info";

  final DwarfSections s;
  final Attr attr;
  final List<Unit> units = new ArrayList<>();

  /** Units in .debug_info order including skipped type units, for DW_FORM_ref_addr targets. */
  private final List<Unit> allUnits = new ArrayList<>();

  private final Map<Long, Abbrevs> abbrevCache = new HashMap<>();
  private final Map<Long, Effect> effects = new HashMap<>();
  private long rangeBudget;
  private long abbrevBudget;
  final LineTables lineTables;

  // Functions, global index = order of addition (DIE order within a unit).
  byte[] fTag = new byte[1024];
  int[] fCaller = new int[1024];
  long[] fCallFile = new long[1024];
  int[] fCallLine = new int[1024];
  String[] fName = new String[1024];
  boolean[] fLinkage = new boolean[1024];
  long[] fFirstLow = new long[1024];
  int[] fUnit = new int[1024];
  int functions;

  // Address ranges: function ranges (func >= 0) and unit coverage (func = -1).
  long[] rLow = new long[1024];
  long[] rHigh = new long[1024];
  int[] rUnit = new int[1024];
  int[] rFunc = new int[1024];
  int ranges;

  IndexBuilder(DwarfSections s) {
    this.s = s;
    this.attr = new Attr(s);
    long budget = 1_000_000L;
    for (ByteBuffer b : new ByteBuffer[] {s.info, s.ranges, s.rnglists}) {
      budget += b == null ? 0 : b.limit();
    }
    this.rangeBudget = 2 * budget;
    this.abbrevBudget = 4L * (s.abbrev == null ? 0 : s.abbrev.limit()) + (1 << 20);
    this.lineTables = new LineTables(s);
  }

  void build() throws DwarfFormatException {
    if (s.info == null) {
      return;
    }
    if (s.abbrev == null) {
      throw new DwarfFormatException(".debug_abbrev", 0, "the section is missing");
    }
    readUnits();
    for (Unit u : units) {
      scanUnit(u);
    }
  }

  // ------------------------------------------------------------------ units

  private void readUnits() throws DwarfFormatException {
    Cursor c = Cursor.of(s.info, INFO);
    while (c.remaining() >= 4) {
      int unitOff = c.pos;
      long length = c.u32();
      int offsetSize = 4;
      if (length == 0xffffffffL) {
        length = c.u64();
        offsetSize = 8;
      } else if (length == 0) {
        // Zero padding (or the IRIX 64-bit form, which binutils reads the same way): stop.
        break;
      } else if (length >= 0xfffffff0L) {
        throw c.error(unitOff, "reserved unit length 0x" + Long.toHexString(length));
      }
      if (length < 0 || length > c.remaining()) {
        throw c.error(
            unitOff,
            "unit length "
                + Long.toUnsignedString(length)
                + " runs past the section end ("
                + c.remaining()
                + " bytes left)");
      }
      int end = c.pos + (int) length;
      Cursor h = new Cursor(s.info, INFO, c.pos, end);
      c.pos = end;
      int version = h.u16();
      if (version == 0) {
        break; // padding (gold), as binutils
      }
      if (version < 2 || version > 5) {
        throw h.error(unitOff, "unsupported DWARF version " + version);
      }
      int unitType = Dw.UT_compile;
      int addrSize;
      long abbrevOff;
      if (version >= 5) {
        unitType = h.u8();
        addrSize = h.u8();
        abbrevOff = h.unsigned(offsetSize);
      } else {
        abbrevOff = h.unsigned(offsetSize);
        addrSize = h.u8();
      }
      boolean typeUnit = unitType == Dw.UT_type || unitType == Dw.UT_split_type;
      if (typeUnit) {
        h.skip(8L + offsetSize);
      } else if (unitType == Dw.UT_skeleton || unitType == Dw.UT_split_compile) {
        h.skip(8);
      }
      if (addrSize != 2 && addrSize != 4 && addrSize != 8) {
        throw h.error(unitOff, "unsupported address size " + addrSize);
      }
      Abbrevs abbrevs = abbrevCache.get(abbrevOff);
      if (abbrevs == null) {
        abbrevs = Abbrevs.parse(s.abbrev, abbrevOff);
        abbrevCache.put(abbrevOff, abbrevs);
        abbrevBudget -= abbrevs.parsedBytes;
        if (abbrevBudget < 0) {
          throw new DwarfFormatException(
              ".debug_abbrev",
              abbrevOff,
              "abbreviation tables"
                  + " overlap (more than four times the section's size read in all)");
        }
      }
      Unit u =
          new Unit(
              units.size(), unitOff, end, version, unitType, offsetSize, addrSize, abbrevs, h.pos);
      allUnits.add(u);
      if (typeUnit) {
        continue; // type units hold no code
      }
      if (readRoot(u, h)) {
        units.add(u);
      }
    }
  }

  /** Reads the root DIE's attributes; false when the unit has no root DIE. */
  private boolean readRoot(Unit u, Cursor h) throws DwarfFormatException {
    int at = h.pos;
    long code = h.uleb();
    if (code == 0) {
      return false;
    }
    Abbrevs.Abbrev a = u.abbrevs.get(code);
    if (a == null) {
      throw h.error(at, "unknown abbreviation code " + code);
    }
    u.rootTag = a.tag;
    u.rootHasChildren = a.hasChildren;
    int n = a.names.length;
    int[] forms = new int[n];
    long[] vals = new long[n];
    for (int i = 0; i < n; i++) {
      attr.read(h, u, a.forms[i], a.implicitConsts == null ? 0 : a.implicitConsts[i]);
      forms[i] = attr.form;
      vals[i] = attr.val;
      switch (a.names[i]) {
        case Dw.AT_str_offsets_base -> u.strOffsetsBase = attr.val;
        case Dw.AT_addr_base, Dw.AT_GNU_addr_base -> u.addrBase = attr.val;
        case Dw.AT_rnglists_base -> u.rnglistsBase = attr.val;
        default -> {}
      }
    }
    u.firstChild = h.pos;
    long low = 0;
    long high = 0;
    boolean highRelative = false;
    int rangesForm = -1;
    long rangesVal = 0;
    for (int i = 0; i < n; i++) {
      attr.form = forms[i];
      attr.val = vals[i];
      boolean isInt = Dw.isIntForm(attr.form);
      switch (a.names[i]) {
        case Dw.AT_stmt_list -> {
          if (isInt) {
            u.stmtList = attr.val;
          }
        }
        case Dw.AT_name -> {
          if (Dw.isStrForm(attr.form)) {
            u.name = attr.string(u);
          }
        }
        case Dw.AT_low_pc -> {
          if (isInt) {
            low = attr.address(u);
            u.lowPc = low;
            u.lowPcSeen = true;
          }
        }
        case Dw.AT_high_pc -> {
          if (isInt) {
            high = attr.address(u);
            highRelative = attr.form != Dw.FORM_addr;
          }
        }
        case Dw.AT_ranges -> {
          if (isInt || attr.form == Dw.FORM_rnglistx) {
            rangesForm = attr.form;
            rangesVal = attr.val;
          }
        }
        case Dw.AT_comp_dir -> {
          String dir = Dw.isStrForm(attr.form) ? attr.string(u) : null;
          if (dir != null) {
            // binutils drops an IRIX "host.:" prefix.
            int colon = dir.indexOf(':');
            if (colon > 0
                && dir.charAt(colon - 1) == '.'
                && colon + 1 < dir.length()
                && dir.charAt(colon + 1) == '/') {
              dir = dir.substring(colon + 1);
            }
          }
          u.compDir = dir;
        }
        case Dw.AT_language -> {
          if (isInt) {
            u.lang = attr.val;
          }
        }
        default -> {}
      }
    }
    if (u.lowPcSeen && (u.rootTag == Dw.TAG_compile_unit || u.rootTag == Dw.TAG_skeleton_unit)) {
      u.baseAddress = u.lowPc;
    }
    if (u.stmtList < 0) {
      // binutils leaves a unit without a line table out of every lookup.
      return true;
    }
    if (highRelative) {
      high += low;
    }
    if (high != 0 && low != high) {
      addRange(u.index, -1, low, high);
      u.hasRootRanges = true;
    }
    if (rangesForm >= 0) {
      long[] list = readRangeList(u, rangesForm, rangesVal);
      for (int i = 0; i < list.length; i += 2) {
        if (list[i] != list[i + 1]) {
          addRange(u.index, -1, list[i], list[i + 1]);
          u.hasRootRanges = true;
        }
      }
    }
    return true;
  }

  /** Unit coverage found in its line table (for units without ranges of their own). */
  void addCoverage(int unit, long low, long high) throws DwarfFormatException {
    addRange(unit, -1, low, high);
  }

  private void addRange(int unit, int func, long low, long high) throws DwarfFormatException {
    if (Long.compareUnsigned(low, high) >= 0) {
      return; // never matches an address
    }
    if (--rangeBudget < 0) {
      throw new DwarfFormatException(
          ".debug_ranges",
          0,
          "more address ranges than the sections can describe (range lists reused)");
    }
    if (ranges == rLow.length) {
      int cap = ranges * 2;
      rLow = Arrays.copyOf(rLow, cap);
      rHigh = Arrays.copyOf(rHigh, cap);
      rUnit = Arrays.copyOf(rUnit, cap);
      rFunc = Arrays.copyOf(rFunc, cap);
    }
    rLow[ranges] = low;
    rHigh[ranges] = high;
    rUnit[ranges] = unit;
    rFunc[ranges] = func;
    ranges++;
  }

  // ------------------------------------------------------------ range lists

  /** A DW_AT_ranges list as [low, high) pairs, in list order. */
  long[] readRangeList(Unit u, int form, long value) throws DwarfFormatException {
    LongList out =
        new LongList() {
          @Override
          void add(long x, long y) {
            if (--rangeBudget < 0) {
              throw new BudgetExceeded();
            }
            super.add(x, y);
          }
        };
    try {
      return readRangeList(u, form, value, out);
    } catch (BudgetExceeded e) {
      throw new DwarfFormatException(
          u.version <= 4 ? ".debug_ranges" : ".debug_rnglists",
          value,
          "more address ranges than the sections can describe (range lists reused)");
    }
  }

  /** Thrown inside a range list read when the range budget is spent. */
  private static final class BudgetExceeded extends RuntimeException {
    BudgetExceeded() {
      super(null, null, false, false);
    }
  }

  private long[] readRangeList(Unit u, int form, long value, LongList out)
      throws DwarfFormatException {
    long base = u.baseAddress;
    long max = u.maxAddress();
    if (u.version <= 4) {
      String sec = ".debug_ranges";
      if (s.ranges == null) {
        throw new DwarfFormatException(sec, value, "the section is missing");
      }
      if (value < 0 || value > s.ranges.limit()) {
        throw new DwarfFormatException(sec, value, "range list offset is outside the section");
      }
      Cursor c = Cursor.of(s.ranges, sec);
      c.seek(value);
      while (true) {
        long low = c.unsigned(u.addrSize);
        long high = c.unsigned(u.addrSize);
        if (low == 0 && high == 0) {
          break;
        }
        if (low == max && high != max) {
          base = high; // base address selection entry
        } else {
          out.add(base + low, base + high);
        }
      }
      return out.toArray();
    }
    String sec = ".debug_rnglists";
    if (s.rnglists == null) {
      throw new DwarfFormatException(sec, value, "the section is missing");
    }
    long offset = value;
    if (form == Dw.FORM_rnglistx) {
      long rbase = u.rnglistsBase;
      if (rbase < 0) {
        throw new DwarfFormatException(
            INFO, u.offset, "DW_FORM_rnglistx without DW_AT_rnglists_base");
      }
      long rel = Attr.indexed(s.rnglists, rbase, value, u.offsetSize, s.order);
      if (rel < 0) {
        throw new DwarfFormatException(
            sec, rbase, "range list index " + value + " is outside the offsets table");
      }
      offset = rbase + rel;
    }
    if (offset < 0 || offset >= s.rnglists.limit()) {
      throw new DwarfFormatException(sec, offset, "range list offset is outside the section");
    }
    Cursor c = Cursor.of(s.rnglists, sec);
    c.seek(offset);
    while (true) {
      int at = c.pos;
      int kind = c.u8();
      switch (kind) {
        case Dw.RLE_end_of_list:
          return out.toArray();
        case Dw.RLE_base_addressx:
          base = Attr.indexedAddress(s, u, c.uleb());
          break;
        case Dw.RLE_startx_endx:
          {
            long a = Attr.indexedAddress(s, u, c.uleb());
            long b = Attr.indexedAddress(s, u, c.uleb());
            out.add(a, b);
            break;
          }
        case Dw.RLE_startx_length:
          {
            long a = Attr.indexedAddress(s, u, c.uleb());
            out.add(a, a + c.uleb());
            break;
          }
        case Dw.RLE_offset_pair:
          {
            long a = c.uleb();
            long b = c.uleb();
            out.add(base + a, base + b);
            break;
          }
        case Dw.RLE_base_address:
          base = c.unsigned(u.addrSize);
          break;
        case Dw.RLE_start_end:
          {
            long a = c.unsigned(u.addrSize);
            long b = c.unsigned(u.addrSize);
            out.add(a, b);
            break;
          }
        case Dw.RLE_start_length:
          {
            long a = c.unsigned(u.addrSize);
            out.add(a, a + c.uleb());
            break;
          }
        default:
          throw c.error(at, "unknown range list entry kind " + kind);
      }
    }
  }

  /** A growable list of longs. */
  static class LongList {
    long[] a = new long[8];
    int n;

    void add(long x, long y) {
      if (n + 2 > a.length) {
        a = Arrays.copyOf(a, a.length * 2);
      }
      a[n++] = x;
      a[n++] = y;
    }

    long[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }

  // -------------------------------------------------------- function scan

  /** Per-unit scratch for function DIEs while the unit is scanned. */
  private static final class Scratch {
    int[] die = new int[256];
    byte[] tag = new byte[256];
    int[] caller = new int[256];
    long[] callFile = new long[256];
    int[] callLine = new int[256];
    int[] rangeStart = new int[256];
    int[] rangeCount = new int[256];
    long[] firstLow = new long[256];
    boolean[] keep = new boolean[256];
    int n;
    LongList ranges = new LongList();

    int add(int dieOff, int tag0, int caller0) {
      if (n == die.length) {
        int cap = n * 2;
        die = Arrays.copyOf(die, cap);
        tag = Arrays.copyOf(tag, cap);
        caller = Arrays.copyOf(caller, cap);
        callFile = Arrays.copyOf(callFile, cap);
        callLine = Arrays.copyOf(callLine, cap);
        rangeStart = Arrays.copyOf(rangeStart, cap);
        rangeCount = Arrays.copyOf(rangeCount, cap);
        firstLow = Arrays.copyOf(firstLow, cap);
        keep = Arrays.copyOf(keep, cap);
      }
      die[n] = dieOff;
      tag[n] = (byte) (tag0 == Dw.TAG_inlined_subroutine ? 1 : 0);
      caller[n] = caller0;
      callFile[n] = -1;
      callLine[n] = 0;
      rangeStart[n] = 0;
      rangeCount[n] = 0;
      firstLow[n] = 0;
      keep[n] = false;
      return n++;
    }

    void reset() {
      n = 0;
      ranges.n = 0;
    }
  }

  private final Scratch scratch = new Scratch();

  private static boolean isFunctionTag(int tag) {
    return tag == Dw.TAG_subprogram
        || tag == Dw.TAG_inlined_subroutine
        || tag == Dw.TAG_entry_point;
  }

  private void scanUnit(Unit u) throws DwarfFormatException {
    u.firstFunction = functions;
    if (u.stmtList < 0 || !u.rootHasChildren || u.firstChild >= u.end) {
      return;
    }
    Scratch sc = scratch;
    sc.reset();
    Cursor c = new Cursor(s.info, INFO, u.firstChild, u.end);
    int[] funcAt = new int[64];
    int[] parentFunc = new int[64];
    funcAt[0] = -1;
    parentFunc[0] = -1;
    int depth = 0;
    long[] raw = new long[8];
    Abbrevs abbrevs = u.abbrevs;
    while (depth >= 0) {
      if (!c.hasMore()) {
        throw c.error("the DIE tree of the unit at " + u.offset + " runs past its end");
      }
      int dieOff = c.pos;
      long code = c.uleb();
      if (code == 0) {
        depth--;
        continue;
      }
      Abbrevs.Abbrev a = abbrevs.get(code);
      if (a == null) {
        throw c.error(dieOff, "unknown abbreviation code " + Long.toUnsignedString(code));
      }
      int[] names = a.names;
      int[] forms = a.forms;
      long[] consts = a.implicitConsts;
      if (!isFunctionTag(a.tag)) {
        funcAt[depth] = -1;
        for (int i = 0; i < names.length; i++) {
          attr.read(c, u, forms[i], consts == null ? 0 : consts[i]);
        }
      } else {
        int caller = a.tag == Dw.TAG_inlined_subroutine ? parentFunc[depth] : -1;
        int f = sc.add(dieOff, a.tag, caller);
        funcAt[depth] = f;
        long low = 0;
        long high = 0;
        boolean highRelative = false;
        int rawN = 0;
        for (int i = 0; i < names.length; i++) {
          attr.read(c, u, forms[i], consts == null ? 0 : consts[i]);
          boolean isInt = Dw.isIntForm(attr.form);
          switch (names[i]) {
            case Dw.AT_call_file:
              if (isInt) {
                sc.callFile[f] = attr.val & 0xffffffffL;
              }
              break;
            case Dw.AT_call_line:
              if (isInt) {
                sc.callLine[f] = (int) attr.val;
              }
              break;
            case Dw.AT_low_pc:
              if (isInt) {
                low = attr.address(u);
              }
              break;
            case Dw.AT_high_pc:
              if (isInt) {
                high = attr.address(u);
                highRelative = attr.form != Dw.FORM_addr;
              }
              break;
            case Dw.AT_ranges:
              if (isInt || attr.form == Dw.FORM_rnglistx) {
                long[] list = readRangeList(u, attr.form, attr.val);
                if (rawN + list.length > raw.length) {
                  raw = Arrays.copyOf(raw, Math.max(raw.length * 2, rawN + list.length));
                }
                System.arraycopy(list, 0, raw, rawN, list.length);
                rawN += list.length;
              }
              break;
            default:
              break;
          }
        }
        if (highRelative) {
          high += low;
        }
        if (high != 0) {
          if (rawN + 2 > raw.length) {
            raw = Arrays.copyOf(raw, raw.length * 2);
          }
          raw[rawN++] = low;
          raw[rawN++] = high;
        }
        if (rawN > 0) {
          mergeRanges(sc, f, raw, rawN);
        }
      }
      if (a.hasChildren) {
        depth++;
        if (depth == funcAt.length) {
          funcAt = Arrays.copyOf(funcAt, depth * 2);
          parentFunc = Arrays.copyOf(parentFunc, depth * 2);
        }
        funcAt[depth] = -1;
        int above = funcAt[depth - 1];
        parentFunc[depth] = above >= 0 ? above : parentFunc[depth - 1];
      }
    }
    finishUnit(u, sc);
  }

  /**
   * binutils' arange_add for one function: empty ranges dropped, a range that touches an earlier
   * one extends it, others go second in the list. The merged lengths decide which function is the
   * innermost, so they must be the same as addr2line's.
   */
  private void mergeRanges(Scratch sc, int f, long[] raw, int rawN) {
    long[] lows = new long[rawN / 2];
    long[] highs = new long[rawN / 2];
    int n = 0;
    for (int i = 0; i < rawN; i += 2) {
      long low = raw[i];
      long high = raw[i + 1];
      if (low == high) {
        continue;
      }
      if (n == 0 || highs[0] == 0) {
        lows[0] = low;
        highs[0] = high;
        n = Math.max(n, 1);
        continue;
      }
      boolean extended = false;
      for (int k = 0; k < n; k++) {
        if (low == highs[k]) {
          highs[k] = high;
          extended = true;
          break;
        }
        if (high == lows[k]) {
          lows[k] = low;
          extended = true;
          break;
        }
      }
      if (extended) {
        continue;
      }
      System.arraycopy(lows, 1, lows, 2, n - 1);
      System.arraycopy(highs, 1, highs, 2, n - 1);
      lows[1] = low;
      highs[1] = high;
      n++;
    }
    if (n == 0) {
      return;
    }
    sc.firstLow[f] = lows[0];
    sc.rangeStart[f] = sc.ranges.n;
    sc.rangeCount[f] = n;
    for (int k = 0; k < n; k++) {
      sc.ranges.add(lows[k], highs[k]);
      if (Long.compareUnsigned(lows[k], highs[k]) < 0) {
        sc.keep[f] = true;
      }
    }
  }

  private void finishUnit(Unit u, Scratch sc) throws DwarfFormatException {
    // Functions with code, and every function one of them was inlined into.
    for (int f = sc.n - 1; f >= 0; f--) {
      if (sc.keep[f]) {
        for (int g = sc.caller[f]; g >= 0 && !sc.keep[g]; g = sc.caller[g]) {
          sc.keep[g] = true;
        }
      }
    }
    int[] global = new int[sc.n];
    for (int f = 0; f < sc.n; f++) {
      if (!sc.keep[f]) {
        global[f] = -1;
        continue;
      }
      int g = newFunction();
      global[f] = g;
      fTag[g] = sc.tag[f];
      fCaller[g] = sc.caller[f] >= 0 ? global[sc.caller[f]] : -1;
      fCallFile[g] = sc.callFile[f];
      fCallLine[g] = sc.callLine[f];
      fFirstLow[g] = sc.firstLow[f];
      fUnit[g] = u.index;
      resolveName(u, sc.die[f], g);
      for (int k = 0; k < sc.rangeCount[f]; k++) {
        int r = sc.rangeStart[f] + 2 * k;
        addRange(u.index, g, sc.ranges.a[r], sc.ranges.a[r + 1]);
      }
    }
    u.functionCount = functions - u.firstFunction;
  }

  private int newFunction() {
    if (functions == fTag.length) {
      int cap = functions * 2;
      fTag = Arrays.copyOf(fTag, cap);
      fCaller = Arrays.copyOf(fCaller, cap);
      fCallFile = Arrays.copyOf(fCallFile, cap);
      fCallLine = Arrays.copyOf(fCallLine, cap);
      fName = Arrays.copyOf(fName, cap);
      fLinkage = Arrays.copyOf(fLinkage, cap);
      fFirstLow = Arrays.copyOf(fFirstLow, cap);
      fUnit = Arrays.copyOf(fUnit, cap);
    }
    return functions++;
  }

  // ------------------------------------------------------------------ names

  /**
   * What following one DW_AT_abstract_origin or DW_AT_specification does to a function's name, as
   * binutils' find_abstract_instance: the first DW_AT_name sets the name only if none is set yet
   * (and counts as the linkage name in C-like languages), a linkage name always wins.
   */
  static final class Effect {
    static final Effect NONE = new Effect(null, false, false, null);
    final String firstName;

    /** Whether a name on the way to (and including) the first name counts as a linkage name. */
    final boolean nameIsLinkage;

    final boolean hasLinkage;
    final String lastLinkage;

    Effect(String firstName, boolean nameIsLinkage, boolean hasLinkage, String lastLinkage) {
      this.firstName = firstName;
      this.nameIsLinkage = nameIsLinkage;
      this.hasLinkage = hasLinkage;
      this.lastLinkage = lastLinkage;
    }

    Effect then(Effect next) {
      if (next == NONE) {
        return this;
      }
      if (this == NONE) {
        return next;
      }
      String first = firstName != null ? firstName : next.firstName;
      boolean linkageName = firstName != null ? nameIsLinkage : nameIsLinkage || next.nameIsLinkage;
      return new Effect(
          first,
          linkageName,
          hasLinkage || next.hasLinkage,
          next.hasLinkage ? next.lastLinkage : lastLinkage);
    }
  }

  /** Sets fName/fLinkage of function {@code g} from its DIE, as binutils' scan does. */
  private void resolveName(Unit u, int dieOff, int g) throws DwarfFormatException {
    Cursor c = new Cursor(s.info, INFO, dieOff, u.end);
    Abbrevs.Abbrev a = u.abbrevs.get(c.uleb());
    String name = null;
    boolean linkage = false;
    boolean cLike = Dw.nameIsLinkage(u.lang);
    for (int i = 0; i < a.names.length; i++) {
      attr.read(c, u, a.forms[i], a.implicitConsts == null ? 0 : a.implicitConsts[i]);
      int at = a.names[i];
      if (at == Dw.AT_name) {
        if (name == null && Dw.isStrForm(attr.form)) {
          name = attr.string(u);
          if (cLike) {
            linkage = true;
          }
        }
      } else if (at == Dw.AT_linkage_name || at == Dw.AT_MIPS_linkage_name) {
        if (Dw.isStrForm(attr.form)) {
          name = attr.string(u);
          linkage = true;
        }
      } else if (at == Dw.AT_abstract_origin || at == Dw.AT_specification) {
        if (Dw.isIntForm(attr.form)) {
          int form = attr.form;
          long val = attr.val;
          Effect e = abstractInstance(u, form, val, 0);
          if (e.hasLinkage) {
            name = e.lastLinkage;
            linkage = true;
          } else if (name == null) {
            name = e.firstName;
            linkage |= e.nameIsLinkage;
          }
        }
      }
    }
    fName[g] = name;
    fLinkage[g] = linkage;
  }

  private Effect abstractInstance(Unit u, int form, long ref, int depth)
      throws DwarfFormatException {
    if (depth >= 100) {
      throw new DwarfFormatException(
          INFO, u.offset, "DW_AT_specification chain deeper than 100 (a reference cycle?)");
    }
    long target;
    Unit tu;
    if (form == Dw.FORM_ref_addr) {
      if (ref == 0) {
        return Effect.NONE;
      }
      if (ref < 0 || ref >= s.info.limit()) {
        throw new DwarfFormatException(
            INFO,
            u.offset,
            "DW_FORM_ref_addr 0x" + Long.toHexString(ref) + " is outside .debug_info");
      }
      target = ref;
      tu = unitContaining(target);
      if (tu == null) {
        throw new DwarfFormatException(INFO, ref, "no unit holds the DIE a reference names");
      }
    } else if (form == Dw.FORM_GNU_ref_alt
        || form == Dw.FORM_ref_sig8
        || form == Dw.FORM_ref_sup4
        || form == Dw.FORM_ref_sup8) {
      // A DIE in a dwz supplementary file or a type unit: its name is not available here.
      return Effect.NONE;
    } else {
      long size = u.end - u.offset;
      if (ref <= 0 || ref >= size) {
        throw new DwarfFormatException(
            INFO, u.offset, "DIE reference 0x" + Long.toHexString(ref) + " is outside its unit");
      }
      target = u.offset + ref;
      tu = u;
    }
    Effect cached = effects.get(target);
    if (cached != null) {
      return cached;
    }
    Cursor c = new Cursor(s.info, INFO, (int) target, tu.end);
    long code = c.uleb();
    Effect result = Effect.NONE;
    if (code != 0) {
      Abbrevs.Abbrev a = tu.abbrevs.get(code);
      if (a == null) {
        throw c.error(target, "unknown abbreviation code " + Long.toUnsignedString(code));
      }
      boolean cLike = Dw.nameIsLinkage(tu.lang);
      for (int i = 0; i < a.names.length; i++) {
        attr.read(c, tu, a.forms[i], a.implicitConsts == null ? 0 : a.implicitConsts[i]);
        int at = a.names[i];
        if (at == Dw.AT_name) {
          if (Dw.isStrForm(attr.form)) {
            String n = attr.string(tu);
            result =
                result.then(n != null || cLike ? new Effect(n, cLike, false, null) : Effect.NONE);
          }
        } else if (at == Dw.AT_linkage_name || at == Dw.AT_MIPS_linkage_name) {
          if (Dw.isStrForm(attr.form)) {
            result = result.then(new Effect(null, false, true, attr.string(tu)));
          }
        } else if (at == Dw.AT_specification) {
          if (Dw.isIntForm(attr.form)) {
            int f2 = attr.form;
            long v2 = attr.val;
            int pos = c.pos;
            result = result.then(abstractInstance(tu, f2, v2, depth + 1));
            c.pos = pos;
          }
        }
      }
    }
    effects.put(target, result);
    return result;
  }

  private Unit unitContaining(long off) {
    int lo = 0;
    int hi = allUnits.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Unit m = allUnits.get(mid);
      if (off < m.offset) {
        hi = mid - 1;
      } else if (off >= m.end) {
        lo = mid + 1;
      } else {
        return m;
      }
    }
    return null;
  }
}
