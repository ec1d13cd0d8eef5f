package dev.fleetprof.symbols.dwarf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The binary's ELF function symbols, as addr2line consults them next to DWARF: for an address a
 * unit's line table covers but no DWARF function does, and for a function DWARF names without a
 * linkage name in a language that mangles (C++ {@code main}, {@code extern "C"} functions, some
 * template clones), addr2line prints the ELF symbol's name. Implementations must be safe for
 * concurrent calls. {@link #fromElf} builds the one addr2line uses from a symbol table.
 */
@FunctionalInterface
public interface FunctionSymbols {
  /**
   * The symbol binutils' {@code _bfd_elf_find_function} picks for {@code vaddr}: among the symbols
   * of the section that holds {@code vaddr} that may be functions (not FILE, SECTION, OBJECT or TLS
   * symbols, nor hidden local NOTYPE symbols of size 0), the one with the greatest address at or
   * below {@code vaddr} (its size is not checked; on equal addresses the larger size, size 0
   * counting as 1, then the first in the table), or null when there is none.
   */
  Symbol nearest(long vaddr);

  /**
   * One ELF symbol as {@link #nearest} returns it.
   *
   * @param name the raw symbol name
   * @param address its value (virtual address)
   * @param file the name of the STT_FILE symbol binutils attributes it to (the last FILE symbol
   *     before it when it is local, or before any non-FILE symbol when global), or null
   */
  record Symbol(String name, long address, String file) {}

  /** One entry of an ELF symbol table ({@code .symtab}, or {@code .dynsym} without one). */
  record RawSymbol(String name, long value, long size, int type, int bind, int visibility,
      int sectionIndex) {
    public static final int STT_NOTYPE = 0;
    public static final int STT_OBJECT = 1;
    public static final int STT_SECTION = 3;
    public static final int STT_FILE = 4;
    public static final int STT_TLS = 6;
    public static final int STB_LOCAL = 0;
    public static final int STV_HIDDEN = 2;
  }

  /** One ELF section header: its index, address, size and whether it has SHF_ALLOC. */
  record SectionHeader(int index, long address, long size, boolean allocated) {}

  /**
   * addr2line's choice of function symbol over {@code symbolTable} (in table order; the null
   * entry 0 may be included or not), the address's section being the first allocated section in
   * header order that holds it. Lookups are a binary search; the result is immutable.
   */
  static FunctionSymbols fromElf(List<RawSymbol> symbolTable, List<SectionHeader> sections) {
    Objects.requireNonNull(symbolTable, "symbolTable");
    List<SectionHeader> alloc = new ArrayList<>();
    for (SectionHeader s : sections) {
      if (s.allocated() && s.size() > 0) {
        alloc.add(s);
      }
    }
    int n = symbolTable.size();
    String[] file = new String[n];
    boolean[] candidate = new boolean[n];
    String lastFile = null;
    int state = 0; // 0 nothing seen, 1 a symbol seen, 2 a FILE symbol after a symbol
    for (int i = 0; i < n; i++) {
      RawSymbol s = symbolTable.get(i);
      if (s.type() == RawSymbol.STT_FILE) {
        lastFile = s.name();
        if (state == 1) {
          state = 2;
        }
        continue;
      }
      boolean local = s.bind() == RawSymbol.STB_LOCAL;
      candidate[i] = s.type() != RawSymbol.STT_SECTION && s.type() != RawSymbol.STT_OBJECT
          && s.type() != RawSymbol.STT_TLS
          && !(s.size() == 0 && local && s.type() == RawSymbol.STT_NOTYPE
              && s.visibility() == RawSymbol.STV_HIDDEN);
      file[i] = lastFile != null && (local || state != 2) ? lastFile : null;
      if (state == 0) {
        state = 1;
      }
    }
    // Per allocated section: its candidates sorted by value, one per value (the winner).
    long[][] values = new long[alloc.size()][];
    Symbol[][] chosen = new Symbol[alloc.size()][];
    for (int k = 0; k < alloc.size(); k++) {
      int index = alloc.get(k).index();
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (candidate[i] && symbolTable.get(i).sectionIndex() == index) {
          ids.add(i);
        }
      }
      ids.sort((x, y) -> {
        RawSymbol a = symbolTable.get(x);
        RawSymbol b = symbolTable.get(y);
        int c = Long.compareUnsigned(a.value(), b.value());
        if (c != 0) {
          return c;
        }
        c = Long.compareUnsigned(effectiveSize(b), effectiveSize(a));
        return c != 0 ? c : Integer.compare(x, y);
      });
      long[] v = new long[ids.size()];
      Symbol[] sym = new Symbol[ids.size()];
      int m = 0;
      for (int id : ids) {
        RawSymbol s = symbolTable.get(id);
        if (m > 0 && v[m - 1] == s.value()) {
          continue;
        }
        v[m] = s.value();
        sym[m] = new Symbol(s.name(), s.value(), file[id]);
        m++;
      }
      values[k] = Arrays.copyOf(v, m);
      chosen[k] = Arrays.copyOf(sym, m);
    }
    long[] secStart = new long[alloc.size()];
    long[] secSize = new long[alloc.size()];
    for (int k = 0; k < alloc.size(); k++) {
      secStart[k] = alloc.get(k).address();
      secSize[k] = alloc.get(k).size();
    }
    return vaddr -> {
      for (int k = 0; k < secStart.length; k++) {
        if (Long.compareUnsigned(vaddr - secStart[k], secSize[k]) < 0
            && Long.compareUnsigned(vaddr, secStart[k]) >= 0) {
          long[] v = values[k];
          int lo = 0;
          int hi = v.length - 1;
          int found = -1;
          while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(v[mid], vaddr) <= 0) {
              found = mid;
              lo = mid + 1;
            } else {
              hi = mid - 1;
            }
          }
          return found < 0 ? null : chosen[k][found];
        }
      }
      return null;
    };
  }

  private static long effectiveSize(RawSymbol s) {
    return s.size() == 0 ? 1 : s.size();
  }
}
