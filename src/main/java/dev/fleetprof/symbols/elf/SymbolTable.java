package dev.fleetprof.symbols.elf;

import dev.fleetprof.symbols.dwarf.FunctionSymbols;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The function symbols of one binary, for finding the function an address belongs to when there is
 * no DWARF: {@link #containing(long)} returns the symbol that contains the address, as {@code
 * llvm-symbolizer} (LLVM 14) finds it, and {@link #lookup(long)} the symbol GNU {@code addr2line
 * -f} (binutils 2.40) names, which may be one that ends long before the address. Built once per
 * binary ({@link #read(ElfFile)}); immutable and thread-safe afterwards; holds no reference to the
 * file.
 *
 * <h2>Which table</h2>
 *
 * {@code .symtab}, or {@code .dynsym} when there is no {@code .symtab} (or it holds no symbol), as
 * {@code addr2line} does. The two are not merged: a binary with {@code .symtab} has every {@code
 * .dynsym} function in it too (under the same names), and a merge would change which of two aliases
 * wins and so disagree with {@code addr2line}.
 *
 * <h2>Which symbol contains an address ({@link #containing}; LLVM's {@code SymbolizableObjectFile})
 * </h2>
 *
 * A name is only trusted for the bytes its symbol covers. Stripped libraries keep only their
 * exported symbols ({@code .dynsym}), and most of their code is in local functions that have none:
 * the nearest exported symbol below such code names a function that ends before it (in Debian's
 * liblzma, the 26-byte {@code lzma_mf_is_supported} for code thousands of bytes past its end). So:
 *
 * <ul>
 *   <li>Candidates: symbols of type {@code STT_FUNC}, {@code STT_GNU_IFUNC}, {@code STT_OBJECT} and
 *       {@code STT_NOTYPE} that are defined in a section (not undefined, absolute or common),
 *       except ARM, AArch64 and RISC-V mapping symbols; from any section, not only the one that
 *       holds the address.
 *   <li>Among candidates at one address, the largest size wins, then the last in symbol table
 *       order.
 *   <li>The address belongs to the candidate with the highest address at or below it, and only if
 *       that candidate covers it: a symbol with a size covers {@code [st_value, st_value +
 *       st_size)}; otherwise the address has no name (llvm-symbolizer prints {@code ??}).
 *   <li>A symbol of size 0 (hand-written assembly such as glibc's {@code __restore_rt}, which
 *       llvm-symbolizer names up to the next symbol) covers {@code [st_value, next)}, where {@code
 *       next} is the next candidate's address, but never past the end of its own section. The
 *       section bound is the one departure from llvm-symbolizer, which lets the last symbol of
 *       {@code .init} (the size-0 {@code _init}) name the PLT stubs after it; code that is not the
 *       symbol's is better left unnamed. Coverage is counted in 32 bits: a symbol claiming 4 GiB or
 *       more covers 4 GiB - 1 bytes.
 * </ul>
 *
 * <h2>Which symbol (bfd's {@code _bfd_elf_find_function} and {@code _bfd_elf_maybe_function_sym},
 * binutils 2.40)</h2>
 *
 * <ul>
 *   <li>The address is looked up in the first allocated section (in section header order) whose
 *       {@code [sh_addr, sh_addr + sh_size)} holds it and that has a candidate symbol at or below
 *       it; only symbols defined in that section count. So addresses in {@code .plt} (which has no
 *       symbols) find nothing, rather than the last function of {@code .init}.
 *   <li>Candidates: {@code STT_FUNC} and {@code STT_GNU_IFUNC}; also {@code STT_NOTYPE} (and other
 *       unknown types) in executable sections, as bfd counts them (labels of hand-written assembly
 *       such as {@code _start} in some libcs), except the hidden local zero-size ones the annobin
 *       plugin emits, which bfd skips. Not objects, TLS, sections, files, common or undefined and
 *       absolute symbols. bfd also counts {@code STT_NOTYPE} symbols in data sections; this table
 *       leaves them out (it is for code addresses), the one place it departs from addr2line.
 *   <li>The candidate with the highest address at or below the address wins, whatever its size: an
 *       address past a symbol's end (padding between functions, code of a function whose symbol was
 *       stripped) still gets the closest symbol below it, as addr2line prints it. {@link
 *       ElfSymbol#size()} lets a caller that wants stricter bounds check them; {@link #containing}
 *       does.
 *   <li>Among candidates at the same address (aliases such as {@code __libc_malloc} and {@code
 *       malloc}), the largest size wins (a size of 0 counts as 1), and among equal sizes the first
 *       in symbol table order.
 *   <li>A winning symbol with an empty name gives no name, as addr2line prints {@code ??}.
 *   <li>Its file ({@link ElfSymbol#file()}) is bfd's {@code STT_FILE} attribution, what addr2line
 *       prints as the file of an address no DWARF knows.
 * </ul>
 *
 * One bfd quirk is not reproduced: bfd caches the last function found and answers any later address
 * inside its {@code [value, value + size)} from the cache, even when a symbol defined inside that
 * range (a local label) would be closer. Results here do not depend on the order of lookups; they
 * equal addr2line's when it is given addresses in descending order, where the cache cannot err.
 *
 * <h2>Memory</h2>
 *
 * Parallel primitive arrays (8 + 8 + 4 + 4 bytes per symbol for {@link #lookup}, 8 + 4 + 4 + 4 for
 * {@link #containing}) and one byte array holding each distinct name (and file name) once: about 44
 * bytes plus the name per function, and no object per symbol.
 */
public final class SymbolTable {
  private static final int STT_NOTYPE = 0;
  private static final int STT_OBJECT = 1;
  private static final int STT_FUNC = 2;
  private static final int STT_SECTION = 3;
  private static final int STT_FILE = 4;
  private static final int STT_COMMON = 5;
  private static final int STT_TLS = 6;
  private static final int STT_RELC = 8;
  private static final int STT_SRELC = 9;
  private static final int STT_GNU_IFUNC = 10;
  private static final int STB_LOCAL = 0;
  private static final int EM_ARM = 40;
  private static final int EM_RISCV = 243;
  private static final int STV_HIDDEN = 2;

  private final String source;
  private final boolean relocatable;

  /** Allocated sections with a size, sorted by (address, header index): "ranks". */
  private final long[] rankAddr;

  private final long[] rankSize;
  private final int[] rankIndex;

  /**
   * The highest section end among ranks 0..r (unsigned); lets lookups find overlapping sections.
   */
  private final long[] rankMaxEnd;

  /** Symbols of rank r are [rankFrom[r], rankFrom[r + 1]). */
  private final int[] rankFrom;

  /** Per symbol, sorted by (rank, offset): st_value - sh_addr (st_value in relocatable files). */
  private final long[] offsets;

  private final long[] sizes;
  private final int[] nameStarts;

  /** Per symbol, where its STT_FILE attribution's name starts in {@link #names}, or -1. */
  private final int[] fileStarts;

  /** NUL-terminated names. */
  private final byte[] names;

  /**
   * The table {@link #containing(long)} searches, sorted by address, one symbol per address: each
   * symbol's first address, the number of bytes it covers (unsigned), its name and file (starts in
   * {@link #names}, file -1 for none), and a bit per symbol set when its {@code st_size} is 0.
   */
  private final Spans spans;

  /** The table behind {@link #containing(long)}; see the class comment, "Which symbol contains". */
  private record Spans(long[] start, int[] length, int[] name, int[] file, long[] sizeless) {
    static final Spans EMPTY = new Spans(new long[0], new int[0], new int[0], new int[0], null);

    long retainedBytes() {
      return 20L * start.length + (sizeless == null ? 0 : 8L * sizeless.length);
    }
  }

  private SymbolTable(
      String source,
      boolean relocatable,
      long[] rankAddr,
      long[] rankSize,
      int[] rankIndex,
      int[] rankFrom,
      long[] offsets,
      long[] sizes,
      int[] nameStarts,
      int[] fileStarts,
      byte[] names,
      Spans spans) {
    this.source = source;
    this.spans = spans;
    this.relocatable = relocatable;
    this.rankAddr = rankAddr;
    this.rankSize = rankSize;
    this.rankIndex = rankIndex;
    this.rankFrom = rankFrom;
    this.offsets = offsets;
    this.sizes = sizes;
    this.nameStarts = nameStarts;
    this.fileStarts = fileStarts;
    this.names = names;
    this.rankMaxEnd = new long[rankAddr.length];
    long max = 0;
    for (int r = 0; r < rankAddr.length; r++) {
      long end = rankAddr[r] + rankSize[r];
      if (Long.compareUnsigned(end, rankAddr[r]) < 0) {
        end = -1L; // wrapped past 2^64: the section reaches the top of the address space
      }
      if (Long.compareUnsigned(end, max) > 0) {
        max = end;
      }
      rankMaxEnd[r] = max;
    }
  }

  /**
   * Reads the function symbols of {@code elf}.
   *
   * @throws ElfFormatException if the symbol table or its string table is malformed
   */
  public static SymbolTable read(ElfFile elf) throws IOException {
    List<ElfSection> sections = elf.sections();
    ElfSection symtab = first(sections, ElfSection.SHT_SYMTAB);
    ElfSection dynsym = first(sections, ElfSection.SHT_DYNSYM);
    int entsize = elf.is64() ? 24 : 16;
    ElfSection chosen = null;
    if (symtab != null && !symtab.isNobits() && symtab.size() / entsize > 1) {
      chosen = symtab;
    } else if (dynsym != null && !dynsym.isNobits() && dynsym.size() / entsize > 1) {
      chosen = dynsym;
    }
    boolean relocatable = elf.type() == ElfFile.ET_REL;

    // Ranks: allocated sections that can hold an address, by (address, index).
    List<ElfSection> alloc = new ArrayList<>();
    for (ElfSection s : sections) {
      if (s.index() != 0 && s.isAlloc() && s.size() != 0) {
        alloc.add(s);
      }
    }
    alloc.sort(
        (a, b) -> {
          int c = Long.compareUnsigned(a.addr(), b.addr());
          return c != 0 ? c : Integer.compare(a.index(), b.index());
        });
    int ranks = alloc.size();
    long[] rankAddr = new long[ranks];
    long[] rankSize = new long[ranks];
    int[] rankIndex = new int[ranks];
    int[] rankOfSection = new int[sections.size()];
    Arrays.fill(rankOfSection, -1);
    for (int r = 0; r < ranks; r++) {
      ElfSection s = alloc.get(r);
      rankAddr[r] = s.addr();
      rankSize[r] = s.size();
      rankIndex[r] = s.index();
      rankOfSection[s.index()] = r;
    }
    if (chosen == null) {
      return new SymbolTable(
          "none",
          relocatable,
          rankAddr,
          rankSize,
          rankIndex,
          new int[ranks + 1],
          new long[0],
          new long[0],
          new int[0],
          new int[0],
          new byte[0],
          Spans.EMPTY);
    }
    return new Reader(elf, chosen, relocatable, rankOfSection, rankAddr)
        .read(rankAddr, rankSize, rankIndex);
  }

  /**
   * The function symbol {@code addr2line -f} names for a link-time virtual address (see the class
   * comment for the rules), or empty where it prints {@code ??}.
   */
  public Optional<ElfSymbol> lookup(long vaddr) {
    // The last section that starts at or below the address.
    int last = lastAtOrBelow(rankAddr, 0, rankAddr.length, vaddr);
    if (last < 0) {
      return Optional.empty();
    }
    // Usually one section holds the address; overlapping ones (.tbss) are tried in header order.
    int best = -1;
    int holders = 0;
    for (int r = last; r >= 0 && Long.compareUnsigned(rankMaxEnd[r], vaddr) > 0; r--) {
      if (holds(r, vaddr)) {
        holders++;
        if (best < 0 || rankIndex[r] < rankIndex[best]) {
          best = r;
        }
      }
    }
    if (holders <= 1) {
      return best < 0 ? Optional.empty() : lookupIn(best, vaddr, true);
    }
    int[] order = new int[holders];
    int k = 0;
    for (int r = last; r >= 0 && Long.compareUnsigned(rankMaxEnd[r], vaddr) > 0; r--) {
      if (holds(r, vaddr)) {
        order[k++] = r;
      }
    }
    sortByIndex(order);
    for (int r : order) {
      Optional<ElfSymbol> found = lookupIn(r, vaddr, false);
      if (found != null) {
        return found;
      }
    }
    return Optional.empty();
  }

  /**
   * This table as the DWARF layer's {@link FunctionSymbols}: the symbol {@link #lookup} names, with
   * its file, is the one addr2line falls back to next to DWARF. The result is as thread-safe as
   * this table.
   */
  public FunctionSymbols functionSymbols() {
    return vaddr ->
        lookup(vaddr)
            .map(s -> new FunctionSymbols.Symbol(s.name(), s.value(), s.file()))
            .orElse(null);
  }

  /**
   * The symbol that contains a link-time virtual address, as {@code llvm-symbolizer} finds it in a
   * symbol table (see the class comment, "Which symbol contains"), or empty when no symbol covers
   * the address: then a name from this table would be a guess. The symbol's {@link
   * ElfSymbol#size()} is its {@code st_size} (0 for a symbol that gives none). In relocatable
   * objects values are offsets in their sections, which all start at 0, so there only {@link
   * #lookup} (which keeps sections apart) is meaningful.
   */
  public Optional<ElfSymbol> containing(long vaddr) {
    int i = lastAtOrBelow(spans.start(), 0, spans.start().length, vaddr);
    if (i < 0
        || Long.compareUnsigned(vaddr - spans.start()[i], Integer.toUnsignedLong(spans.length()[i]))
            >= 0) {
      return Optional.empty();
    }
    String name = storedName(spans.name()[i]);
    if (name.isEmpty()) {
      return Optional.empty();
    }
    boolean sizeless = (spans.sizeless()[i >>> 6] & (1L << i)) != 0;
    long size = sizeless ? 0 : Integer.toUnsignedLong(spans.length()[i]);
    String file = spans.file()[i] < 0 ? null : storedName(spans.file()[i]);
    return Optional.of(new ElfSymbol(name, spans.start()[i], size, file));
  }

  /** The number of symbols kept (after aliases at one address are reduced to the one that wins). */
  public int size() {
    return offsets.length;
  }

  /** Where the symbols came from: {@code ".symtab"}, {@code ".dynsym"} or {@code "none"}. */
  public String source() {
    return source;
  }

  /** Approximate heap bytes held by this table's arrays. */
  public long retainedBytes() {
    return 8L * offsets.length
        + 8L * sizes.length
        + 4L * nameStarts.length
        + 4L * fileStarts.length
        + names.length
        + 32L * rankAddr.length
        + spans.retainedBytes();
  }

  // ---- lookup internals ----

  private boolean holds(int r, long vaddr) {
    return Long.compareUnsigned(vaddr - rankAddr[r], rankSize[r]) < 0
        && Long.compareUnsigned(vaddr, rankAddr[r]) >= 0;
  }

  /**
   * The last index in {@code [from, to)} of {@code sorted} (ascending, unsigned) whose value is at
   * or below {@code key} (unsigned), or -1 when there is none.
   */
  static int lastAtOrBelow(long[] sorted, int from, int to, long key) {
    int lo = from;
    int hi = to - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(sorted[mid], key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private void sortByIndex(int[] order) {
    for (int i = 1; i < order.length; i++) {
      int v = order[i];
      int j = i - 1;
      while (j >= 0 && rankIndex[order[j]] > rankIndex[v]) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = v;
    }
  }

  /**
   * The symbol for vaddr among rank r's symbols; when there is none, empty if {@code last} (no
   * other section to try) and null otherwise.
   */
  private Optional<ElfSymbol> lookupIn(int r, long vaddr, boolean last) {
    long offset = vaddr - rankAddr[r]; // bfd's offset in the section
    int found = lastAtOrBelow(offsets, rankFrom[r], rankFrom[r + 1], offset);
    if (found < 0) {
      return last ? Optional.empty() : null;
    }
    String name = storedName(nameStarts[found]);
    if (name.isEmpty()) {
      return Optional.empty();
    }
    long value = relocatable ? offsets[found] : offsets[found] + rankAddr[r];
    String file = fileStarts[found] < 0 ? null : storedName(fileStarts[found]);
    return Optional.of(new ElfSymbol(name, value, sizes[found], file));
  }

  private String storedName(int start) {
    int end = start;
    while (names[end] != 0) {
      end++;
    }
    return new String(names, start, end - start, StandardCharsets.UTF_8);
  }

  private static ElfSection first(List<ElfSection> sections, int type) {
    for (ElfSection s : sections) {
      if (s.type() == type) {
        return s;
      }
    }
    return null;
  }

  // ---- building ----

  /** One pass to count candidates, one to collect them, then sort, reduce aliases, store names. */
  private static final class Reader {
    private final ElfFile elf;
    private final ElfSection table;
    private final boolean relocatable;
    private final int[] rankOfSection;
    private final long[] rankAddr;
    private final int entsize;
    private ByteBuffer symbols;
    private ByteBuffer shndxTable;

    Reader(
        ElfFile elf, ElfSection table, boolean relocatable, int[] rankOfSection, long[] rankAddr) {
      this.elf = elf;
      this.table = table;
      this.relocatable = relocatable;
      this.rankOfSection = rankOfSection;
      this.rankAddr = rankAddr;
      this.entsize = elf.is64() ? 24 : 16;
    }

    SymbolTable read(long[] ranksAddr, long[] rankSize, int[] rankIndex) throws IOException {
      List<ElfSection> sections = elf.sections();
      if (table.link() <= 0 || table.link() >= sections.size()) {
        throw elf.error(
            elf.sectionHeaderOffset(table.index(), elf.is64() ? 40 : 24),
            table.name()
                + "'s string table index "
                + Integer.toUnsignedString(table.link())
                + " is out of range ("
                + sections.size()
                + " sections)");
      }
      ElfSection strSection = sections.get(table.link());
      ByteBuffer strtab = strSection.isNobits() ? null : elf.rawSectionData(strSection);
      if (strtab == null) {
        throw elf.error(
            elf.sectionHeaderOffset(strSection.index(), 0),
            "string table " + strSection.name() + " of " + table.name() + " has no contents");
      }
      symbols = elf.rawSectionData(table);
      for (ElfSection s : sections) {
        if (s.type() == ElfSection.SHT_SYMTAB_SHNDX && s.link() == table.index()) {
          shndxTable = elf.rawSectionData(s);
          break;
        }
      }
      int count = (int) (table.size() / entsize);

      int kept = 0;
      int spanCount = 0;
      for (int i = 1; i < count; i++) {
        if (rankOf(i) >= 0) {
          kept++;
        }
        if (spanSection(i, strtab) >= 0) {
          spanCount++;
        }
      }
      long[] spanValue = new long[spanCount];
      long[] spanSize = new long[spanCount];
      int[] spanSectionIndex = new int[spanCount];
      int[] spanName = new int[spanCount];
      int[] spanFile = new int[spanCount];
      int sk = 0;
      int[] rank = new int[kept];
      long[] offs = new long[kept];
      long[] size = new long[kept];
      int[] nameOff = new int[kept];
      int[] fileOff = new int[kept];
      // bfd's file attribution (elf_find_function): the last FILE symbol before a symbol, except
      // that a global symbol gets none once a FILE symbol has followed some other symbol.
      int lastFile = 0; // the last FILE symbol's index, 0 for none
      boolean symbolSeen = false;
      boolean fileAfterSymbol = false;
      int k = 0;
      for (int i = 1; i < count; i++) {
        if (type(i) == STT_FILE) {
          lastFile = i;
          fileAfterSymbol |= symbolSeen;
          continue;
        }
        symbolSeen = true;
        int r = rankOf(i);
        int sec = spanSection(i, strtab);
        if (r < 0 && sec < 0) {
          continue;
        }
        int at = i * entsize;
        long value = elf.is64() ? symbols.getLong(at + 8) : ElfFile.u32(symbols, at + 4);
        long stSize = elf.is64() ? symbols.getLong(at + 16) : ElfFile.u32(symbols, at + 8);
        int name = nameOffset(i, strtab);
        boolean local = bind(i) == STB_LOCAL;
        int file = lastFile > 0 && (local || !fileAfterSymbol) ? nameOffset(lastFile, strtab) : -1;
        if (r >= 0) {
          rank[k] = r;
          offs[k] = relocatable ? value : value - rankAddr[r];
          size[k] = stSize;
          nameOff[k] = name;
          fileOff[k] = file;
          k++;
        }
        if (sec >= 0) {
          spanValue[sk] = value;
          spanSize[sk] = stSize;
          spanSectionIndex[sk] = sec;
          spanName[sk] = name;
          spanFile[sk] = file;
          sk++;
        }
      }

      // Sort by (rank, offset, effective size descending); stable, so table order breaks ties.
      int[] perm =
          sortedOrder(
              kept,
              (a, b) -> {
                if (rank[a] != rank[b]) {
                  return Integer.compare(rank[a], rank[b]);
                }
                int c = Long.compareUnsigned(offs[a], offs[b]);
                if (c != 0) {
                  return c;
                }
                return Long.compareUnsigned(effective(size[b]), effective(size[a]));
              });
      // Keep the first (the winner) of each (rank, offset).
      int n = 0;
      for (int i = 0; i < kept; i++) {
        int p = perm[i];
        if (n > 0) {
          int q = perm[n - 1];
          if (rank[q] == rank[p] && offs[q] == offs[p]) {
            continue;
          }
        }
        perm[n++] = p;
      }
      int ranks = ranksAddr.length;
      int[] rankFrom = new int[ranks + 1];
      long[] outOffsets = new long[n];
      long[] outSizes = new long[n];
      int[] outNames = new int[n];
      int[] outFiles = new int[n];
      for (int i = 0; i < n; i++) {
        int p = perm[i];
        rankFrom[rank[p] + 1]++;
        outOffsets[i] = offs[p];
        outSizes[i] = size[p];
        outNames[i] = nameOff[p];
        outFiles[i] = fileOff[p];
      }
      for (int r = 0; r < ranks; r++) {
        rankFrom[r + 1] += rankFrom[r];
      }
      SpanBuilder spanBuilder = new SpanBuilder(spanValue, spanSize, spanSectionIndex);
      int[] spanOrder = spanBuilder.onePerAddress();
      int m = spanOrder.length;
      // One name store for both tables: names (and files) of the spans follow those of the ranks.
      int[] allNames = Arrays.copyOf(outNames, n + m);
      int[] allFiles = Arrays.copyOf(outFiles, n + m);
      for (int i = 0; i < m; i++) {
        allNames[n + i] = spanName[spanOrder[i]];
        allFiles[n + i] = spanFile[spanOrder[i]];
      }
      byte[] nameStore = storeNames(strtab, strSection, allNames, allFiles);
      System.arraycopy(allNames, 0, outNames, 0, n);
      System.arraycopy(allFiles, 0, outFiles, 0, n);
      Spans spans =
          spanBuilder.spans(
              spanOrder,
              Arrays.copyOfRange(allNames, n, n + m),
              Arrays.copyOfRange(allFiles, n, n + m));
      return new SymbolTable(
          table.type() == ElfSection.SHT_SYMTAB ? ".symtab" : ".dynsym",
          relocatable,
          ranksAddr,
          rankSize,
          rankIndex,
          rankFrom,
          outOffsets,
          outSizes,
          outNames,
          outFiles,
          nameStore,
          spans);
    }

    /** Symbol i's name offset, checked to lie inside the string table. */
    private int nameOffset(int i, ByteBuffer strtab) throws ElfFormatException {
      int at = i * entsize;
      long nameAt = ElfFile.u32(symbols, at);
      if (nameAt >= strtab.limit()) {
        throw elf.error(
            table.offset() + at,
            table.name()
                + " symbol "
                + i
                + "'s name offset "
                + nameAt
                + " is outside its "
                + strtab.limit()
                + "-byte string table");
      }
      return (int) nameAt;
    }

    private int type(int i) {
      return info(i) & 0xf;
    }

    private int bind(int i) {
      return info(i) >>> 4;
    }

    private int info(int i) {
      return Byte.toUnsignedInt(symbols.get(i * entsize + (elf.is64() ? 4 : 12)));
    }

    private static long effective(long size) {
      return size == 0 ? 1 : size;
    }

    /**
     * The index of the section symbol i is defined in (through {@code SHT_SYMTAB_SHNDX} for {@code
     * SHN_XINDEX}), or -1 when it is undefined, absolute, common or processor-specific.
     */
    private long sectionIndex(int i) throws ElfFormatException {
      int at = i * entsize;
      int shndx = Short.toUnsignedInt(symbols.getShort(at + (elf.is64() ? 6 : 14)));
      if (shndx == ElfFile.SHN_XINDEX) {
        if (shndxTable == null || (long) i * 4 + 4 > shndxTable.limit()) {
          throw elf.error(
              table.offset() + at,
              table.name()
                  + " symbol "
                  + i
                  + " uses SHN_XINDEX but there is no SHT_SYMTAB_SHNDX entry for it");
        }
        return ElfFile.u32(shndxTable, i * 4);
      }
      return shndx == ElfFile.SHN_UNDEF || shndx >= ElfFile.SHN_LORESERVE ? -1 : shndx;
    }

    /** The rank of symbol i's section if it is a candidate (see the class comment), else -1. */
    private int rankOf(int i) throws ElfFormatException {
      int at = i * entsize;
      int other = Byte.toUnsignedInt(symbols.get(at + (elf.is64() ? 5 : 13)));
      int type = type(i);
      int bind = bind(i);
      switch (type) {
        case STT_OBJECT, STT_SECTION, STT_FILE, STT_COMMON, STT_TLS, STT_RELC, STT_SRELC:
          return -1;
        default:
          break;
      }
      long index = sectionIndex(i);
      if (index < 0) {
        return -1;
      }
      if (index >= rankOfSection.length) {
        return -1; // bfd treats a symbol in a section it does not know as absolute
      }
      int r = rankOfSection[(int) index];
      if (r < 0) {
        return -1;
      }
      if (type != STT_FUNC && type != STT_GNU_IFUNC) {
        if (!elf.sections().get((int) index).isExecutable()) {
          return -1;
        }
        long size = elf.is64() ? symbols.getLong(at + 16) : ElfFile.u32(symbols, at + 8);
        if (type == STT_NOTYPE && size == 0 && bind == STB_LOCAL && (other & 3) == STV_HIDDEN) {
          return -1; // annobin markers, which bfd does not take for functions
        }
      }
      return r;
    }

    /**
     * The section index of symbol i if {@code llvm-symbolizer} keeps it in its symbol table (see
     * the class comment, "Which symbol contains"), else -1.
     */
    private int spanSection(int i, ByteBuffer strtab) throws ElfFormatException {
      int type = type(i);
      if (type != STT_NOTYPE && type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) {
        return -1;
      }
      long index = sectionIndex(i);
      if (index <= 0 || index >= elf.sections().size()) {
        return -1;
      }
      if (isMappingSymbol(i, strtab)) {
        return -1;
      }
      return (int) index;
    }

    /**
     * ARM, AArch64 and RISC-V mapping symbols ({@code $a}, {@code $d}, {@code $t}, {@code $x},
     * optionally followed by {@code .} and more) mark code and data inside functions; LLVM's object
     * reader flags them format-specific and the symbolizer skips them.
     */
    private boolean isMappingSymbol(int i, ByteBuffer strtab) throws ElfFormatException {
      int machine = elf.machine();
      if (machine != EM_ARM && machine != ElfFile.EM_AARCH64 && machine != EM_RISCV) {
        return false;
      }
      int at = nameOffset(i, strtab);
      if (at + 1 >= strtab.limit() || strtab.get(at) != '$') {
        return false;
      }
      byte c = strtab.get(at + 1);
      if (c != 'a' && c != 'd' && c != 't' && c != 'x') {
        return false;
      }
      if (at + 2 >= strtab.limit()) {
        return true;
      }
      byte after = strtab.get(at + 2);
      return after == 0 || after == '.';
    }

    /** Sorts llvm-symbolizer's candidates, keeps one per address and works out what each covers. */
    private final class SpanBuilder {
      private final long[] value;
      private final long[] size;
      private final int[] section;

      SpanBuilder(long[] value, long[] size, int[] section) {
        this.value = value;
        this.size = size;
        this.section = section;
      }

      /**
       * The candidates sorted stably by (address, size), as llvm-symbolizer sorts them, with only
       * the last of each address kept: the largest size, then the last in symbol table order.
       */
      int[] onePerAddress() {
        int count = value.length;
        int[] perm =
            sortedOrder(
                count,
                (a, b) -> {
                  int c = Long.compareUnsigned(value[a], value[b]);
                  if (c != 0) {
                    return c;
                  }
                  return Long.compareUnsigned(size[a], size[b]);
                });
        int n = 0;
        for (int i = 0; i < count; i++) {
          if (i + 1 < count && value[perm[i + 1]] == value[perm[i]]) {
            continue;
          }
          perm[n++] = perm[i];
        }
        return Arrays.copyOf(perm, n);
      }

      /** The table for the kept candidates {@code order}, names and files already stored. */
      Spans spans(int[] order, int[] storedNames, int[] storedFiles) {
        int n = order.length;
        long[] start = new long[n];
        int[] length = new int[n];
        long[] sizeless = new long[(n + 63) >>> 6];
        List<ElfSection> sections = elf.sections();
        for (int i = 0; i < n; i++) {
          int p = order[i];
          start[i] = value[p];
          long covered;
          if (size[p] != 0) {
            covered = size[p];
          } else {
            sizeless[i >>> 6] |= 1L << i;
            // Up to the next symbol, as llvm-symbolizer; and not past the end of its section.
            ElfSection s = sections.get(section[p]);
            long sectionStart = relocatable ? 0 : s.addr();
            long end = sectionStart + s.size();
            if (Long.compareUnsigned(end, sectionStart) < 0) {
              end = -1L;
            }
            if (i + 1 < n && Long.compareUnsigned(value[order[i + 1]], end) < 0) {
              end = value[order[i + 1]];
            }
            covered = Long.compareUnsigned(end, value[p]) > 0 ? end - value[p] : 0;
          }
          // A symbol claiming 4 GiB or more is clamped to 4 GiB - 1 bytes.
          length[i] = Long.compareUnsigned(covered, 0xffffffffL) > 0 ? -1 : (int) covered;
        }
        return new Spans(start, length, storedNames, storedFiles, sizeless);
      }
    }

    /**
     * Copies each distinct name once, NUL-terminated, and rewrites {@code nameOffsets} and the
     * non-negative {@code fileOffsets} to point into the copy. Names that share bytes in the string
     * table (the linker merges suffixes) could need more room than the table; then the table itself
     * is copied, so the store never exceeds the string table's size.
     */
    private byte[] storeNames(
        ByteBuffer strtab, ElfSection strSection, int[] nameOffsets, int[] fileOffsets)
        throws ElfFormatException {
      int[] offsets = Arrays.copyOf(nameOffsets, nameOffsets.length + fileOffsets.length);
      System.arraycopy(fileOffsets, 0, offsets, nameOffsets.length, fileOffsets.length);
      int[] distinct = StringTables.sortedDistinct(offsets);
      if (distinct.length > 0 && distinct[0] < 0) {
        distinct = Arrays.copyOfRange(distinct, 1, distinct.length); // -1: no file
      }
      int[] ends = StringTables.terminators(strtab, distinct);
      long total = 0;
      for (int i = 0; i < distinct.length; i++) {
        if (ends[i] < 0) {
          throw elf.error(
              strSection.offset() + distinct[i],
              "symbol name at string table offset "
                  + distinct[i]
                  + " is not NUL-terminated in "
                  + strSection.name());
        }
        total += ends[i] - distinct[i] + 1;
      }
      if (total > strtab.limit()) {
        byte[] all = new byte[strtab.limit()];
        strtab.get(0, all);
        return all;
      }
      byte[] store = new byte[(int) total];
      int[] newStart = new int[distinct.length];
      int pos = 0;
      for (int i = 0; i < distinct.length; i++) {
        int len = ends[i] - distinct[i] + 1;
        strtab.get(distinct[i], store, pos, len);
        newStart[i] = pos;
        pos += len;
      }
      for (int i = 0; i < nameOffsets.length; i++) {
        nameOffsets[i] = newStart[Arrays.binarySearch(distinct, nameOffsets[i])];
      }
      for (int i = 0; i < fileOffsets.length; i++) {
        if (fileOffsets[i] >= 0) {
          fileOffsets[i] = newStart[Arrays.binarySearch(distinct, fileOffsets[i])];
        }
      }
      return store;
    }
  }

  /** The indices 0..n-1 in the order {@code cmp} sorts them, stably (ties keep index order). */
  static int[] sortedOrder(int n, IntComparator cmp) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    mergeSort(perm, new int[n], 0, n, cmp);
    return perm;
  }

  /** A stable merge sort of int keys with a primitive comparator (no boxing per element). */
  private static void mergeSort(int[] a, int[] tmp, int from, int to, IntComparator cmp) {
    if (to - from < 2) {
      return;
    }
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int v = a[i];
        int j = i - 1;
        while (j >= from && cmp.compare(a[j], v) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = v;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    mergeSort(a, tmp, from, mid, cmp);
    mergeSort(a, tmp, mid, to, cmp);
    if (cmp.compare(a[mid - 1], a[mid]) <= 0) {
      return;
    }
    System.arraycopy(a, from, tmp, from, to - from);
    int i = from;
    int j = mid;
    int k = from;
    while (i < mid && j < to) {
      a[k++] = cmp.compare(tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
    }
    while (i < mid) {
      a[k++] = tmp[i++];
    }
    while (j < to) {
      a[k++] = tmp[j++];
    }
  }

  @FunctionalInterface
  interface IntComparator {
    int compare(int a, int b);
  }
}
