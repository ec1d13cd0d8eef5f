package dev.fleetprof.symbols.dwarf;

import dev.fleetprof.symbols.SourceLine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * From a virtual address to the inline chain {@code addr2line -f -i -e BIN ADDR} (binutils 2.40)
 * prints for it, innermost first, from the binary's DWARF (versions 2 to 5, 32- and 64-bit DWARF).
 *
 * <p>{@link #build} reads .debug_info once: units, every function with code and the functions it
 * was inlined into, their names and ranges, into sorted primitive arrays. Line tables are decoded
 * on the first lookup that needs them and kept. After {@code build}, {@link #lookup} is safe to
 * call from many threads.
 *
 * <p>What addr2line does, and so this does: the unit is the first (in .debug_info order) whose
 * address ranges or functions cover the address and whose line table or functions hold it (type
 * units and units without DW_AT_stmt_list are left out); the innermost function is the one of that
 * unit whose range holding the address is shortest (the later DIE on a tie); the first entry's file
 * and line come from the line table (every row counts, is_stmt or not; discriminators play no part;
 * line 0 stays 0); each next entry is the function the previous one was inlined into, with the
 * previous one's DW_AT_call_file and DW_AT_call_line. Names: DW_AT_linkage_name (or
 * DW_AT_MIPS_linkage_name), else DW_AT_name, following DW_AT_abstract_origin and
 * DW_AT_specification (also across units); a name DWARF does not give is {@code ??}.
 *
 * <p>Where addr2line prints an ELF symbol's name instead, the symbol comes from the {@link
 * FunctionSymbols} given to {@link #build(DwarfSections, FunctionSymbols)}: an address with line
 * information but no DWARF function, and a function DWARF names by DW_AT_name only in a language
 * that mangles (C++ {@code main}, {@code extern "C"}, some clones such as {@code .constprop.0}),
 * when an ELF symbol starts where the function starts. For the latter addr2line's very first answer
 * in a process can differ (it prints the nearest ELF symbol once, then settles); this gives the
 * settled answer.
 */
public final class DwarfSymbolizer {
  private static final String UNKNOWN_FUNCTION = "??";

  private final DwarfSections sections;
  private final LineTables lineTables;
  private final FunctionSymbols symbols;
  private final Unit[] units;
  private final AddressIndex index;
  private final byte[] fTag;
  private final int[] fCaller;
  private final long[] fCallFile;
  private final int[] fCallLine;
  private final String[] fName;
  private final int functionCount;

  private DwarfSymbolizer(
      DwarfSections sections, FunctionSymbols symbols, IndexBuilder b, AddressIndex index) {
    this.sections = sections;
    this.lineTables = b.lineTables;
    this.symbols = symbols;
    this.units = b.units.toArray(new Unit[0]);
    this.index = index;
    int n = b.functions;
    this.fTag = Arrays.copyOf(b.fTag, n);
    this.fCaller = Arrays.copyOf(b.fCaller, n);
    this.fCallFile = Arrays.copyOf(b.fCallFile, n);
    this.fCallLine = Arrays.copyOf(b.fCallLine, n);
    this.fName = Arrays.copyOf(b.fName, n);
    if (symbols != null) {
      // A function DWARF names without a linkage name, in a language that mangles, takes the name
      // of the ELF symbol that starts where it starts (addr2line renames it the first time it is
      // the innermost function of a lookup, and keeps that name from then on).
      for (int f = 0; f < n; f++) {
        if (!b.fLinkage[f]) {
          FunctionSymbols.Symbol sym = symbols.nearest(b.fFirstLow[f]);
          if (sym != null && sym.address() == b.fFirstLow[f]) {
            fName[f] = sym.name();
          }
        }
      }
    }
    this.functionCount = n;
  }

  /** Builds the index without ELF symbols (names addr2line takes from them are {@code ??}). */
  public static DwarfSymbolizer build(DwarfSections sections) throws DwarfFormatException {
    return build(sections, null);
  }

  /**
   * Builds the index; {@code symbols} (may be null) supplies the ELF function symbols addr2line
   * falls back to.
   *
   * @throws DwarfFormatException for malformed DWARF, naming the section and byte offset
   */
  public static DwarfSymbolizer build(DwarfSections sections, FunctionSymbols symbols)
      throws DwarfFormatException {
    IndexBuilder b = new IndexBuilder(sections);
    try {
      b.build();
      // Units without any range of their own are found through their line tables.
      for (Unit u : b.units) {
        if (u.stmtList >= 0 && !u.hasRootRanges) {
          LineTable t = u.lines(b.lineTables);
          if (t != null) {
            for (int i = 0; i < t.coverage.length; i += 2) {
              addCoverage(b, u, t.coverage[i], t.coverage[i + 1]);
            }
          }
        }
      }
    } catch (RuntimeException e) {
      // Defensive: a bug or an unforeseen corruption must still name where it happened.
      throw new DwarfFormatException(".debug_info", 0, "could not be read: " + e);
    }
    AddressIndex index =
        AddressIndex.build(
            b.rLow, b.rHigh, b.rUnit, b.rFunc, b.ranges, Math.max(1, b.units.size()));
    for (Unit u : b.units) {
      u.abbrevs = null; // names are resolved: lookups never read DIEs
    }
    return new DwarfSymbolizer(sections, symbols, b, index);
  }

  private static void addCoverage(IndexBuilder b, Unit u, long low, long high)
      throws DwarfFormatException {
    b.addCoverage(u.index, low, high);
  }

  /** Number of units read (type units and units without a root DIE excluded). */
  public int unitCount() {
    return units.length;
  }

  /** Number of functions indexed (with code, or inlined-into). */
  public int functionCount() {
    return functionCount;
  }

  /**
   * The malformed line tables met by lookups so far (their units are left out of lookups, as
   * addr2line leaves them out), for logging.
   */
  public List<DwarfFormatException> lineTableProblems() {
    List<DwarfFormatException> out = new ArrayList<>();
    for (Unit u : units) {
      DwarfFormatException e = u.lineProblem();
      if (e != null) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * The inline chain for {@code vaddr}, innermost first, as {@code addr2line -f -i} prints it
   * (names raw, in both {@code function} and {@code symbol}); empty when no unit covers the address
   * (then addr2line falls back to the ELF symbol table, and so should the caller).
   */
  public List<SourceLine> lookup(long vaddr) {
    if (sections.elfClass == 32) {
      vaddr &= 0xffffffffL;
    }
    int iv = index.interval(vaddr);
    if (iv < 0) {
      return List.of();
    }
    for (int k = index.candidateStart[iv]; k < index.candidateStart[iv + 1]; k++) {
      Unit u = units[index.candidateUnit[k]];
      int f = index.candidateFunction[k];
      LineTable lines = u.lines(lineTables);
      if (lines == null) {
        continue; // a unit whose line table is malformed is left out, as addr2line does
      }
      int row = lines.find(vaddr);
      if (row < 0 && f < 0) {
        continue;
      }
      return chain(lines, row, f, vaddr);
    }
    return List.of();
  }

  private List<SourceLine> chain(LineTable lines, int row, int f, long vaddr) {
    String file = row >= 0 ? lines.path(row) : null;
    long line = row >= 0 ? lines.line(row) : 0;
    String name;
    if (f >= 0) {
      name = fName[f];
    } else {
      // Line information but no DWARF function: addr2line names the ELF symbol.
      FunctionSymbols.Symbol sym = symbols == null ? null : symbols.nearest(vaddr);
      name = sym == null ? null : sym.name();
      if (file == null && sym != null) {
        file = sym.file();
      }
    }
    List<SourceLine> out = new ArrayList<>(4);
    out.add(entry(name, file, line));
    if (f >= 0 && fTag[f] == 1) {
      // Bounded: callers always come earlier in the function arrays than their callees.
      for (int g = f; fCaller[g] >= 0; g = fCaller[g]) {
        int caller = fCaller[g];
        String callFile = fCallFile[g] < 0 ? null : lines.fileName(fCallFile[g]);
        out.add(entry(fName[caller], callFile, fCallLine[g] & 0xffffffffL));
      }
    }
    return out;
  }

  private static SourceLine entry(String name, String file, long line) {
    String n = name == null ? UNKNOWN_FUNCTION : name;
    return new SourceLine(n, n, file, line);
  }
}
