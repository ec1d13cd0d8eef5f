package dev.fleetprof.symbols.dwarf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One unit's decoded line program, kept as primitive arrays: rows grouped in sequences sorted by
 * address, each row's file as an index into {@link #paths}. Built the way binutils' addr2line
 * builds its table (rows at one address keep the last, overlapping sequences trimmed, nested ones
 * dropped), so that lookups give the same file and line it prints.
 */
final class LineTable {
  private static final String UNKNOWN = "<unknown>";

  final boolean fileZeroBased;
  final String compDir;
  final String[] dirs;
  final String[] fileNames;
  final long[] fileDirs;
  final String[] paths;

  final long[] rowAddr;
  final int[] rowLine;
  final int[] rowPath;
  final boolean[] rowEnd;

  final long[] seqLow;
  final int[] seqFirst;
  final int[] seqCount;

  /** [low, high) of every sequence as decoded (before trimming), for unit coverage. */
  final long[] coverage;

  private LineTable(
      boolean fileZeroBased,
      String compDir,
      List<String> dirs,
      List<String> fileNames,
      long[] fileDirs,
      List<String> paths,
      Rows rows,
      long[] seqLow,
      int[] seqFirst,
      int[] seqCount,
      long[] coverage) {
    this.fileZeroBased = fileZeroBased;
    this.compDir = compDir;
    this.dirs = dirs.toArray(new String[0]);
    this.fileNames = fileNames.toArray(new String[0]);
    this.fileDirs = fileDirs;
    this.paths = paths.toArray(new String[0]);
    this.rowAddr = rows.addr;
    this.rowLine = rows.line;
    this.rowPath = rows.path;
    this.rowEnd = rows.end;
    this.seqLow = seqLow;
    this.seqFirst = seqFirst;
    this.seqCount = seqCount;
    this.coverage = coverage;
  }

  /**
   * The row covering {@code addr}, or -1: the row with the greatest address at or below it in the
   * sequence that holds it, unless that row ends the sequence.
   */
  int find(long addr) {
    int low = 0;
    int high = seqLow.length;
    int seq = -1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (Long.compareUnsigned(addr, seqLow[mid]) < 0) {
        high = mid;
      } else if (Long.compareUnsigned(addr, lastAddr(mid)) >= 0) {
        low = mid + 1;
      } else {
        seq = mid;
        break;
      }
    }
    if (seq < 0) {
      return -1;
    }
    int first = seqFirst[seq];
    int count = seqCount[seq];
    low = 0;
    high = count;
    int mid = -1;
    while (low < high) {
      mid = (low + high) >>> 1;
      if (Long.compareUnsigned(addr, rowAddr[first + mid]) < 0) {
        high = mid;
      } else if (mid + 1 < count && Long.compareUnsigned(addr, rowAddr[first + mid + 1]) >= 0) {
        low = mid + 1;
      } else {
        break;
      }
    }
    if (mid < 0 || mid + 1 >= count) {
      return -1;
    }
    int row = first + mid;
    if (Long.compareUnsigned(addr, rowAddr[row]) < 0
        || Long.compareUnsigned(addr, rowAddr[row + 1]) >= 0
        || rowEnd[row]) {
      return -1;
    }
    return row;
  }

  private long lastAddr(int seq) {
    return rowAddr[seqFirst[seq] + seqCount[seq] - 1];
  }

  /** The row's file as addr2line prints it, or null. */
  String path(int row) {
    int p = rowPath[row];
    return p < 0 ? null : paths[p];
  }

  /** The row's line (unsigned 32-bit, 0 = unknown). */
  long line(int row) {
    return rowLine[row] & 0xffffffffL;
  }

  /** A file number (DW_AT_call_file, DW_LNS_set_file) as addr2line names it. */
  String fileName(long file) {
    return concat(fileZeroBased, compDir, dirs, fileNames, fileDirs, fileNames.length, file);
  }

  /**
   * binutils' {@code concat_filename}: an absolute name as is; else joined to its directory, itself
   * joined to the compilation directory unless absolute; unknown numbers give {@code <unknown>}.
   */
  private static String concat(
      boolean zeroBased,
      String compDir,
      String[] dirs,
      String[] names,
      long[] nameDirs,
      int numFiles,
      long file0) {
    long file = file0 & 0xffffffffL;
    if (!zeroBased) {
      if (file == 0) {
        return UNKNOWN;
      }
      file--;
    }
    if (file >= numFiles) {
      return UNKNOWN;
    }
    String name = names[(int) file];
    if (name == null) {
      return UNKNOWN;
    }
    if (isAbsolute(name)) {
      return name;
    }
    long dir = nameDirs[(int) file] & 0xffffffffL;
    if (!zeroBased) {
      dir = (dir - 1) & 0xffffffffL;
    }
    String subdir = dir < dirs.length ? dirs[(int) dir] : null;
    String dirName = null;
    if (subdir == null || !isAbsolute(subdir)) {
      dirName = compDir;
    }
    if (dirName == null) {
      dirName = subdir;
      subdir = null;
    }
    if (dirName == null) {
      return name;
    }
    return subdir != null ? dirName + "/" + subdir + "/" + name : dirName + "/" + name;
  }

  private static boolean isAbsolute(String p) {
    return p.startsWith("/");
  }

  // ---------------------------------------------------------------- decoding

  /** Growable row arrays. */
  private static final class Rows {
    long[] addr = new long[64];
    int[] opIndex = new int[64];
    int[] line = new int[64];
    int[] path = new int[64];
    boolean[] end = new boolean[64];
    int n;

    void ensure(int size) {
      if (size > addr.length) {
        int cap = Math.max(size, addr.length * 2);
        addr = Arrays.copyOf(addr, cap);
        opIndex = Arrays.copyOf(opIndex, cap);
        line = Arrays.copyOf(line, cap);
        path = Arrays.copyOf(path, cap);
        end = Arrays.copyOf(end, cap);
      }
    }

    void trim() {
      addr = Arrays.copyOf(addr, n);
      line = Arrays.copyOf(line, n);
      path = Arrays.copyOf(path, n);
      end = Arrays.copyOf(end, n);
      opIndex = null;
    }
  }

  /** One sequence while it is built: its rows ascending, the last one the highest. */
  private static final class Seq {
    final int created;
    long lowPc;
    final Rows rows = new Rows();

    Seq(int created) {
      this.created = created;
    }

    int last() {
      return rows.n - 1;
    }
  }

  private static boolean sortsAfter(long addrA, int opA, long addrB, int opB) {
    int c = Long.compareUnsigned(addrA, addrB);
    return c > 0 || (c == 0 && opA > opB);
  }

  /** binutils' add_line_info: where a new row goes, with its special cases. */
  private static Seq addRow(
      List<Seq> seqs, Seq seq, long addr, int op, int line, int path, boolean end) {
    if (seq != null) {
      Rows r = seq.rows;
      int last = seq.last();
      if (r.addr[last] == addr && r.opIndex[last] == op && r.end[last] == end) {
        // Only the last row at one address is kept.
        r.line[last] = line;
        r.path[last] = path;
        return seq;
      }
    }
    if (seq == null || seq.rows.end[seq.last()]) {
      seq = new Seq(seqs.size());
      seq.lowPc = addr;
      seqs.add(seq);
      put(seq.rows, 0, addr, op, line, path, end);
      return seq;
    }
    Rows r = seq.rows;
    int last = seq.last();
    if (end || sortsAfter(addr, op, r.addr[last], r.opIndex[last])) {
      put(r, r.n, addr, op, line, path, end);
      return seq;
    }
    // Out of order (some compilers): below the first row it does not sort after.
    int p = last;
    while (p > 0 && !sortsAfter(addr, op, r.addr[p - 1], r.opIndex[p - 1])) {
      p--;
    }
    put(r, p, addr, op, line, path, end);
    if (Long.compareUnsigned(addr, seq.lowPc) < 0) {
      seq.lowPc = addr;
    }
    return seq;
  }

  private static void put(Rows r, int at, long addr, int op, int line, int path, boolean end) {
    r.ensure(r.n + 1);
    if (at < r.n) {
      System.arraycopy(r.addr, at, r.addr, at + 1, r.n - at);
      System.arraycopy(r.opIndex, at, r.opIndex, at + 1, r.n - at);
      System.arraycopy(r.line, at, r.line, at + 1, r.n - at);
      System.arraycopy(r.path, at, r.path, at + 1, r.n - at);
      System.arraycopy(r.end, at, r.end, at + 1, r.n - at);
    }
    r.addr[at] = addr;
    r.opIndex[at] = op;
    r.line[at] = line;
    r.path[at] = path;
    r.end[at] = end;
    r.n++;
  }

  /** Decodes the unit's line program (DWARF 2 to 5). */
  static LineTable decode(DwarfSections s, Unit unit, AtomicLong budget)
      throws DwarfFormatException {
    final String sec = ".debug_line";
    if (s.line == null) {
      throw new DwarfFormatException(sec, unit.stmtList, "the section is missing");
    }
    long start = unit.stmtList;
    if (start < 0 || start >= s.line.limit()) {
      throw new DwarfFormatException(sec, start, "line program offset is outside the section");
    }
    Cursor c = Cursor.of(s.line, sec);
    c.seek(start);
    long length = c.u32();
    int offsetSize = 4;
    if (length == 0xffffffffL) {
      length = c.u64();
      offsetSize = 8;
    } else if (length == 0 && unit.addrSize == 8) {
      length = c.u32();
      offsetSize = 8;
    }
    if (length < 0 || length > c.remaining()) {
      throw c.error(
          start,
          "line program length "
              + Long.toUnsignedString(length)
              + " runs past the section end ("
              + c.remaining()
              + " bytes left)");
    }
    if (budget.addAndGet(-length) < 0) {
      throw c.error(
          start,
          "line programs overlap or are decoded too often (more than four"
              + " times the section's size in all)");
    }
    c.end = c.pos + (int) length;
    int version = c.u16();
    if (version < 2 || version > 5) {
      throw c.error(start, "unsupported line table version " + version);
    }
    if (version >= 5) {
      c.u8(); // address size: the unit's is used, as binutils does
      int segSel = c.u8();
      if (segSel != 0) {
        throw c.error("segment selector size " + segSel + " is not supported");
      }
    }
    c.unsigned(offsetSize); // header_length: binutils reads the tables sequentially
    int minInst = c.u8();
    int maxOps = version >= 4 ? c.u8() : 1;
    if (maxOps == 0) {
      throw c.error("maximum operations per instruction is 0");
    }
    c.u8(); // default_is_stmt: addr2line uses every row, statement or not
    int lineBase = (byte) c.u8();
    int lineRange = c.u8();
    int opcodeBase = c.u8();
    int[] opLengths = new int[Math.max(1, opcodeBase)];
    opLengths[0] = 1;
    for (int i = 1; i < opcodeBase; i++) {
      opLengths[i] = c.u8();
    }

    List<String> dirs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    long[][] nameDirs = {new long[8]};
    boolean zeroBased = version >= 5;
    if (version >= 5) {
      // Forms in the header use the line table's own offset size (gas writes a 32-bit
      // .debug_line for -gdwarf64 units), and the unit's string offsets.
      Unit view =
          new Unit(
              unit.index,
              unit.offset,
              unit.end,
              5,
              unit.unitType,
              offsetSize,
              unit.addrSize,
              null,
              unit.rootDie);
      view.strOffsetsBase = unit.strOffsetsBase;
      Attr attr = new Attr(s, false);
      readEntries(s, c, view, attr, dirs, null);
      readEntries(s, c, view, attr, names, nameDirs);
    } else {
      while (true) {
        int at = c.skipCString();
        String d = Strings.decode(s.line, at, c.pos - 1);
        if (d == null) {
          break;
        }
        dirs.add(d);
      }
      while (true) {
        int at = c.skipCString();
        String f = Strings.decode(s.line, at, c.pos - 1);
        if (f == null) {
          break;
        }
        long dir = c.uleb();
        c.uleb();
        c.uleb();
        addFile(names, nameDirs, f, dir);
      }
    }
    String compDir = unit.compDir;

    List<String> paths = new ArrayList<>();
    Map<String, Integer> pathIds = new HashMap<>();
    Map<Long, Integer> fileCache = new HashMap<>();
    List<Seq> seqs = new ArrayList<>();
    List<long[]> cover = new ArrayList<>();
    Seq seq = null;
    while (c.hasMore()) {
      long address = 0;
      int opIndex = 0;
      int line = 1;
      int path = -1;
      boolean endSequence = false;
      long lowPc = -1;
      long highPc = 0;
      if (!names.isEmpty()) {
        path =
            pathOf(
                zeroBased ? 0 : 1,
                fileCache,
                zeroBased,
                compDir,
                dirs,
                names,
                nameDirs,
                paths,
                pathIds);
      }
      while (!endSequence && c.hasMore()) {
        int opAt = c.pos;
        int op = c.u8();
        boolean row = false;
        if (op >= opcodeBase) {
          if (lineRange == 0) {
            throw c.error(opAt, "special opcode with line_range 0");
          }
          int adj = op - opcodeBase;
          if (maxOps == 1) {
            address += (long) (adj / lineRange) * minInst;
          } else {
            long adv = opIndex + (long) (adj / lineRange);
            address += adv / maxOps * minInst;
            opIndex = (int) (adv % maxOps);
          }
          line += lineBase + adj % lineRange;
          row = true;
        } else {
          switch (op) {
            case 0:
              {
                long len = c.uleb();
                int bodyAt = c.pos;
                int ext = c.u8();
                switch (ext) {
                  case 1:
                    endSequence = true;
                    row = true;
                    break;
                  case 2:
                    address = c.unsigned(unit.addrSize);
                    opIndex = 0;
                    break;
                  case 3:
                    {
                      int at = c.skipCString();
                      String f = Strings.decode(s.line, at, c.pos - 1);
                      long dir = c.uleb();
                      c.uleb();
                      c.uleb();
                      addFile(names, nameDirs, f, dir);
                      fileCache.clear();
                      break;
                    }
                  case 4:
                    c.uleb(); // discriminator: addr2line prints it, lookups do not need it
                    break;
                  default:
                    // Unknown (vendor) extended opcodes are skipped by their length.
                    if (len < 1 || len > c.end - bodyAt) {
                      throw c.error(
                          opAt,
                          "extended opcode 0x"
                              + Integer.toHexString(ext)
                              + " has bad length "
                              + Long.toUnsignedString(len));
                    }
                    c.pos = bodyAt + (int) len;
                    break;
                }
                break;
              }
            case 1:
              row = true;
              break;
            case 2:
              {
                long adv = c.uleb();
                if (maxOps == 1) {
                  address += minInst * adv;
                } else {
                  long a = opIndex + adv;
                  address += Long.divideUnsigned(a, maxOps) * minInst;
                  opIndex = (int) Long.remainderUnsigned(a, maxOps);
                }
                break;
              }
            case 3:
              line += (int) c.sleb();
              break;
            case 4:
              {
                long file = c.uleb();
                path =
                    pathOf(
                        file, fileCache, zeroBased, compDir, dirs, names, nameDirs, paths, pathIds);
                break;
              }
            case 5:
              c.uleb();
              break;
            case 6:
            case 7:
              break;
            case 8:
              {
                if (lineRange == 0) {
                  throw c.error(opAt, "DW_LNS_const_add_pc with line_range 0");
                }
                int adj = (255 - opcodeBase) / lineRange;
                if (maxOps == 1) {
                  address += (long) minInst * adj;
                } else {
                  long a = opIndex + (long) adj;
                  address += a / maxOps * minInst;
                  opIndex = (int) (a % maxOps);
                }
                break;
              }
            case 9:
              address += c.u16();
              opIndex = 0;
              break;
            default:
              for (int i = 0; i < opLengths[op]; i++) {
                c.uleb();
              }
              break;
          }
        }
        if (row) {
          seq = addRow(seqs, seq, address, opIndex, line, path, endSequence);
          if (Long.compareUnsigned(address, lowPc) < 0) {
            lowPc = address;
          }
          if (Long.compareUnsigned(address, highPc) > 0) {
            highPc = address;
          }
          if (endSequence && lowPc != highPc) {
            cover.add(new long[] {lowPc, highPc});
          }
        }
      }
    }
    return build(zeroBased, compDir, dirs, names, nameDirs[0], paths, seqs, cover);
  }

  private static void addFile(List<String> names, long[][] nameDirs, String name, long dir) {
    int n = names.size();
    if (n == nameDirs[0].length) {
      nameDirs[0] = Arrays.copyOf(nameDirs[0], n * 2);
    }
    nameDirs[0][n] = dir;
    names.add(name);
  }

  /** The path id of a file number, computed once per number until a file is defined. */
  private static int pathOf(
      long file,
      Map<Long, Integer> cache,
      boolean zeroBased,
      String compDir,
      List<String> dirs,
      List<String> names,
      long[][] nameDirs,
      List<String> paths,
      Map<String, Integer> pathIds) {
    Long key = file & 0xffffffffL;
    Integer id = cache.get(key);
    if (id == null) {
      id =
          intern(
              paths,
              pathIds,
              concat(
                  zeroBased,
                  compDir,
                  dirs.toArray(new String[0]),
                  names.toArray(new String[0]),
                  nameDirs[0],
                  names.size(),
                  file));
      cache.put(key, id);
    }
    return id;
  }

  private static int intern(List<String> paths, Map<String, Integer> ids, String p) {
    if (p == null || p.isEmpty()) {
      return -1;
    }
    Integer id = ids.get(p);
    if (id == null) {
      id = paths.size();
      paths.add(p);
      ids.put(p, id);
    }
    return id;
  }

  /** DWARF 5 directory or file entries: a format description, then the entries. */
  private static void readEntries(
      DwarfSections s, Cursor c, Unit view, Attr attr, List<String> out, long[][] dirsOut)
      throws DwarfFormatException {
    int formatCount = c.u8();
    long[] types = new long[formatCount];
    int[] forms = new int[formatCount];
    for (int i = 0; i < formatCount; i++) {
      types[i] = c.uleb();
      long form = c.uleb();
      forms[i] = form > Integer.MAX_VALUE ? -1 : (int) form;
    }
    int at = c.pos;
    long count = c.uleb();
    if (formatCount == 0 && count != 0) {
      throw c.error(at, "entries without a format");
    }
    if (count < 0 || count > c.remaining()) {
      throw c.error(at, "entry count " + Long.toUnsignedString(count) + " exceeds the data");
    }
    for (long e = 0; e < count; e++) {
      String name = null;
      long dir = 0;
      for (int i = 0; i < formatCount; i++) {
        attr.read(c, view, forms[i], 0);
        if (types[i] == Dw.LNCT_path) {
          if (attr.form == Dw.FORM_string) {
            name = Strings.decode(s.line, (int) attr.val, c.end); // inline, in .debug_line
          } else {
            name = Dw.isStrForm(attr.form) ? attr.string(view) : null;
          }
        } else if (types[i] == Dw.LNCT_directory_index) {
          dir = attr.val;
        }
      }
      if (dirsOut != null) {
        addFile(out, dirsOut, name, dir);
      } else {
        out.add(name);
      }
    }
  }

  private static LineTable build(
      boolean zeroBased,
      String compDir,
      List<String> dirs,
      List<String> names,
      long[] nameDirs,
      List<String> paths,
      List<Seq> seqs,
      List<long[]> cover) {
    // binutils sorts by start, then the longer first, then the later-made first.
    Seq[] sorted = seqs.toArray(new Seq[0]);
    Arrays.sort(
        sorted,
        (a, b) -> {
          int c = Long.compareUnsigned(a.lowPc, b.lowPc);
          if (c != 0) {
            return c;
          }
          Rows ra = a.rows;
          Rows rb = b.rows;
          c = Long.compareUnsigned(rb.addr[b.last()], ra.addr[a.last()]);
          if (c != 0) {
            return c;
          }
          c = Integer.compare(rb.opIndex[b.last()], ra.opIndex[a.last()]);
          if (c != 0) {
            return c;
          }
          return Integer.compare(b.created, a.created);
        });
    List<Seq> kept = new ArrayList<>();
    List<Long> keptLow = new ArrayList<>();
    long lastHigh = 0;
    for (int i = 0; i < sorted.length; i++) {
      Seq q = sorted[i];
      long low = q.lowPc;
      long high = q.rows.addr[q.last()];
      if (i > 0 && Long.compareUnsigned(low, lastHigh) < 0) {
        if (Long.compareUnsigned(high, lastHigh) <= 0) {
          continue; // nested
        }
        low = lastHigh; // overlapping: trimmed
      }
      lastHigh = high;
      kept.add(q);
      keptLow.add(low);
    }
    int total = 0;
    for (Seq q : kept) {
      total += q.rows.n;
    }
    Rows all = new Rows();
    all.ensure(total);
    long[] seqLow = new long[kept.size()];
    int[] seqFirst = new int[kept.size()];
    int[] seqCount = new int[kept.size()];
    for (int i = 0; i < kept.size(); i++) {
      Rows r = kept.get(i).rows;
      seqLow[i] = keptLow.get(i);
      seqFirst[i] = all.n;
      seqCount[i] = r.n;
      System.arraycopy(r.addr, 0, all.addr, all.n, r.n);
      System.arraycopy(r.line, 0, all.line, all.n, r.n);
      System.arraycopy(r.path, 0, all.path, all.n, r.n);
      System.arraycopy(r.end, 0, all.end, all.n, r.n);
      all.n += r.n;
    }
    all.trim();
    long[] coverage = new long[cover.size() * 2];
    for (int i = 0; i < cover.size(); i++) {
      coverage[2 * i] = cover.get(i)[0];
      coverage[2 * i + 1] = cover.get(i)[1];
    }
    return new LineTable(
        zeroBased,
        compDir,
        dirs,
        names,
        Arrays.copyOf(nameDirs, names.size()),
        paths,
        all,
        seqLow,
        seqFirst,
        seqCount,
        coverage);
  }
}
