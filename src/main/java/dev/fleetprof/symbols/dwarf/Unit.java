package dev.fleetprof.symbols.dwarf;

/**
 * One unit of {@code .debug_info}: its header, the compile-unit DIE's attributes that matter for
 * symbolization, and (decoded on first use, then kept) its line table.
 */
final class Unit {
  final int index;

  /** Offset of the unit's length field in .debug_info. */
  final long offset;

  /** Offset one past the unit's last byte. */
  final int end;

  final int version;
  final int unitType;
  final int offsetSize;
  final int addrSize;

  /** The abbreviation table; dropped (null) once the index is built. */
  Abbrevs abbrevs;

  /** Offset of the unit's first (root) DIE. */
  final int rootDie;

  int rootTag;

  /** Offset of the first DIE after the root DIE (the root's first child). */
  int firstChild;

  boolean rootHasChildren;
  long lang;
  String name;
  String compDir;

  /** .debug_line offset, or -1 without DW_AT_stmt_list. */
  long stmtList = -1;

  long lowPc;
  boolean lowPcSeen;
  long baseAddress;
  long strOffsetsBase = -1;
  long addrBase = -1;
  long rnglistsBase = -1;

  /** Whether the root DIE gave the unit any address range (low/high or DW_AT_ranges). */
  boolean hasRootRanges;

  /** Index of this unit's first function in the symbolizer's function arrays. */
  int firstFunction;

  int functionCount;

  private volatile LineTable lines;
  private volatile boolean linesFailed;
  private DwarfFormatException lineProblem;

  Unit(
      int index,
      long offset,
      int end,
      int version,
      int unitType,
      int offsetSize,
      int addrSize,
      Abbrevs abbrevs,
      int rootDie) {
    this.index = index;
    this.offset = offset;
    this.end = end;
    this.version = version;
    this.unitType = unitType;
    this.offsetSize = offsetSize;
    this.addrSize = addrSize;
    this.abbrevs = abbrevs;
    this.rootDie = rootDie;
  }

  /** The highest address a unit address can hold (all ones of the address size). */
  long maxAddress() {
    return addrSize >= 8 ? -1L : (1L << (8 * addrSize)) - 1;
  }

  /**
   * The decoded line table, or null when it is malformed (then, as binutils does, the whole unit is
   * left out of lookups). Thread-safe: decoded once, under this unit's lock.
   */
  LineTable lines(LineTables tables) {
    LineTable t = lines;
    if (t != null || linesFailed) {
      return t;
    }
    synchronized (this) {
      if (lines == null && !linesFailed) {
        try {
          lines = tables.get(this);
        } catch (DwarfFormatException e) {
          lineProblem = e;
          linesFailed = true;
        }
      }
      return lines;
    }
  }

  synchronized DwarfFormatException lineProblem() {
    return lineProblem;
  }
}
