package dev.fleetprof.symbols.dwarf;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** One unit's abbreviation table: code -> the tag, children flag and attribute specifications. */
final class Abbrevs {
  /** One abbreviation declaration. */
  static final class Abbrev {
    final int tag;
    final boolean hasChildren;
    final int[] names;
    final int[] forms;
    final long[] implicitConsts;

    Abbrev(int tag, boolean hasChildren, int[] names, int[] forms, long[] implicitConsts) {
      this.tag = tag;
      this.hasChildren = hasChildren;
      this.names = names;
      this.forms = forms;
      this.implicitConsts = implicitConsts;
    }
  }

  /** Codes below this go in an array (compilers number from 1 up), others in a map. */
  private static final int DENSE = 4096;

  private Abbrev[] dense = new Abbrev[16];
  private final Map<Long, Abbrev> sparse = new HashMap<>();

  /** How many bytes of .debug_abbrev the table took. */
  int parsedBytes;

  Abbrev get(long code) {
    if (code > 0 && code < DENSE) {
      return code < dense.length ? dense[(int) code] : null;
    }
    return sparse.get(code);
  }

  private void put(long code, Abbrev a) {
    if (code > 0 && code < DENSE) {
      if (code >= dense.length) {
        dense = Arrays.copyOf(dense, Math.min(DENSE, Math.max((int) code + 1, dense.length * 2)));
      }
      dense[(int) code] = a;
    } else {
      sparse.put(code, a);
    }
  }

  /**
   * Parses the table at {@code offset}. Like binutils it ends at a zero code, at the end of the
   * section, or at a code seen before (a table that runs into the next one), so it always ends.
   */
  static Abbrevs parse(ByteBuffer section, long offset) throws DwarfFormatException {
    if (section == null) {
      throw new DwarfFormatException(".debug_abbrev", offset, "the section is missing");
    }
    if (offset < 0 || offset >= section.limit()) {
      throw new DwarfFormatException(
          ".debug_abbrev",
          offset,
          "abbreviation offset is outside the section (size " + section.limit() + ")");
    }
    Cursor c = Cursor.of(section, ".debug_abbrev");
    c.seek(offset);
    Abbrevs table = new Abbrevs();
    int[] names = new int[16];
    int[] forms = new int[16];
    long[] consts = new long[16];
    while (c.hasMore()) {
      long code = c.uleb();
      if (code == 0 || table.get(code) != null) {
        break;
      }
      long tag = c.uleb();
      int children = c.u8();
      int n = 0;
      boolean anyConst = false;
      while (true) {
        long name = c.uleb();
        long form = c.uleb();
        if (name == 0) {
          // binutils ends the list at a zero name whatever the form.
          break;
        }
        long implicitConst = 0;
        if (form == Dw.FORM_implicit_const) {
          implicitConst = c.sleb();
          anyConst = true;
        }
        if (n == names.length) {
          names = Arrays.copyOf(names, n * 2);
          forms = Arrays.copyOf(forms, n * 2);
          consts = Arrays.copyOf(consts, n * 2);
        }
        names[n] = name > Integer.MAX_VALUE ? -1 : (int) name;
        forms[n] = form > Integer.MAX_VALUE ? -1 : (int) form;
        consts[n] = implicitConst;
        n++;
      }
      table.put(
          code,
          new Abbrev(
              tag > Integer.MAX_VALUE ? -1 : (int) tag,
              children != 0,
              Arrays.copyOf(names, n),
              Arrays.copyOf(forms, n),
              anyConst ? Arrays.copyOf(consts, n) : null));
    }
    table.parsedBytes = c.pos - (int) offset;
    return table;
  }
}
