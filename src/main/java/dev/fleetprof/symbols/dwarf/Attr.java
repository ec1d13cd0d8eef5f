package dev.fleetprof.symbols.dwarf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads one attribute value at a time (the last one read is in {@link #form} and {@link #val}):
 * integers as they are, strings and indexed forms as the raw offset or index, which {@link #string}
 * and {@link #address} resolve with the unit's bases.
 */
final class Attr {
  private final DwarfSections s;
  private final Strings str;
  private final Strings lineStr;
  private final Strings infoStr;

  /** The form of the value last read ({@code DW_FORM_indirect} already followed). */
  int form;

  /** The raw value: an integer, an offset, or an index for strx/addrx forms. */
  long val;

  /** With caches: for the single-threaded index build. */
  Attr(DwarfSections s) {
    this(s, true);
  }

  Attr(DwarfSections s, boolean cached) {
    this.s = s;
    this.str = cached ? new Strings(s.str) : null;
    this.lineStr = cached ? new Strings(s.lineStr) : null;
    this.infoStr = cached ? new Strings(s.info) : null;
  }

  /** Reads the value of {@code form0} at the cursor, leaving the cursor after it. */
  void read(Cursor c, Unit u, int form0, long implicitConst) throws DwarfFormatException {
    int f = form0;
    while (true) {
      form = f;
      switch (f) {
        case Dw.FORM_addr:
          val = c.unsigned(u.addrSize);
          return;
        case Dw.FORM_ref_addr:
          val = c.unsigned(u.version <= 2 ? u.addrSize : u.offsetSize);
          return;
        case Dw.FORM_strp:
        case Dw.FORM_line_strp:
        case Dw.FORM_sec_offset:
        case Dw.FORM_GNU_ref_alt:
        case Dw.FORM_GNU_strp_alt:
        case Dw.FORM_strp_sup:
          val = c.unsigned(u.offsetSize);
          return;
        case Dw.FORM_block2:
          val = 0;
          c.skip(c.u16());
          return;
        case Dw.FORM_block4:
          val = 0;
          c.skip(c.u32());
          return;
        case Dw.FORM_block:
        case Dw.FORM_exprloc:
          val = 0;
          c.skip(c.uleb());
          return;
        case Dw.FORM_block1:
          val = 0;
          c.skip(c.u8());
          return;
        case Dw.FORM_data1:
        case Dw.FORM_ref1:
        case Dw.FORM_flag:
        case Dw.FORM_strx1:
        case Dw.FORM_addrx1:
          val = c.u8();
          return;
        case Dw.FORM_data2:
        case Dw.FORM_ref2:
        case Dw.FORM_strx2:
        case Dw.FORM_addrx2:
          val = c.u16();
          return;
        case Dw.FORM_strx3:
        case Dw.FORM_addrx3:
          val = c.u24();
          return;
        case Dw.FORM_data4:
        case Dw.FORM_ref4:
        case Dw.FORM_strx4:
        case Dw.FORM_addrx4:
        case Dw.FORM_ref_sup4:
          val = c.u32();
          return;
        case Dw.FORM_data8:
        case Dw.FORM_ref8:
        case Dw.FORM_ref_sig8:
        case Dw.FORM_ref_sup8:
          val = c.u64();
          return;
        case Dw.FORM_data16:
          val = 0;
          c.skip(16);
          return;
        case Dw.FORM_string:
          val = c.skipCString();
          return;
        case Dw.FORM_sdata:
          val = c.sleb();
          return;
        case Dw.FORM_udata:
        case Dw.FORM_ref_udata:
        case Dw.FORM_strx:
        case Dw.FORM_addrx:
        case Dw.FORM_loclistx:
        case Dw.FORM_rnglistx:
        case Dw.FORM_GNU_addr_index:
        case Dw.FORM_GNU_str_index:
          val = c.uleb();
          return;
        case Dw.FORM_flag_present:
          val = 1;
          return;
        case Dw.FORM_implicit_const:
          val = implicitConst;
          return;
        case Dw.FORM_indirect:
          {
            int at = c.pos;
            long next = c.uleb();
            if (next > Integer.MAX_VALUE) {
              throw c.error(at, "indirect form " + Long.toUnsignedString(next) + " is unknown");
            }
            f = (int) next;
            if (f == Dw.FORM_implicit_const) {
              // binutils reads the constant inline after an indirect implicit_const.
              implicitConst = c.sleb();
            }
            continue;
          }
        default:
          throw c.error("unknown attribute form 0x" + Integer.toHexString(f));
      }
    }
  }

  /**
   * The string the last value names, or null (absent, empty, unresolvable, or in a dwz
   * supplementary file this reader does not have).
   */
  String string(Unit u) {
    switch (form) {
      case Dw.FORM_string:
        return infoStr != null
            ? infoStr.at(val)
            : Strings.decode(s.info, (int) val, s.info.limit());
      case Dw.FORM_strp:
        return str != null ? str.at(val) : plain(s.str, val);
      case Dw.FORM_line_strp:
        return lineStr != null ? lineStr.at(val) : plain(s.lineStr, val);
      case Dw.FORM_strx:
      case Dw.FORM_strx1:
      case Dw.FORM_strx2:
      case Dw.FORM_strx3:
      case Dw.FORM_strx4:
      case Dw.FORM_GNU_str_index:
        {
          long base = u.strOffsetsBase;
          if (base < 0) {
            if (form != Dw.FORM_GNU_str_index) {
              return null;
            }
            base = 0;
          }
          long off = indexed(s.strOffsets, base, val, u.offsetSize, s.order);
          if (off < 0) {
            return null;
          }
          return str != null ? str.at(off) : plain(s.str, off);
        }
      default:
        return null;
    }
  }

  private static String plain(ByteBuffer b, long off) {
    if (b == null || off < 0 || off >= b.limit()) {
      return null;
    }
    return Strings.decode(b, (int) off, b.limit());
  }

  /** The address the last value holds, resolving addrx forms through .debug_addr. */
  long address(Unit u) {
    switch (form) {
      case Dw.FORM_addrx:
      case Dw.FORM_addrx1:
      case Dw.FORM_addrx2:
      case Dw.FORM_addrx3:
      case Dw.FORM_addrx4:
      case Dw.FORM_GNU_addr_index:
        return indexedAddress(s, u, val);
      default:
        return val;
    }
  }

  /**
   * Entry {@code index} of .debug_addr for the unit. Without DW_AT_addr_base binutils keeps the
   * index itself; an entry outside the section reads as 0, as binutils does.
   */
  static long indexedAddress(DwarfSections s, Unit u, long index) {
    if (u.addrBase < 0) {
      return index;
    }
    if (!fits(s.addr, u.addrBase, index, u.addrSize)) {
      return 0;
    }
    return indexed(s.addr, u.addrBase, index, u.addrSize, s.order);
  }

  private static boolean fits(ByteBuffer b, long base, long index, int size) {
    if (b == null || index < 0 || index > (Integer.MAX_VALUE / size)) {
      return false;
    }
    long off = base + index * size;
    return off >= 0 && off <= b.limit() - size;
  }

  /** Entry {@code index} of a table of {@code size}-byte values at {@code base}, or -1. */
  static long indexed(ByteBuffer b, long base, long index, int size, ByteOrder order) {
    if (!fits(b, base, index, size)) {
      return -1;
    }
    int off = (int) (base + index * size);
    switch (size) {
      case 2:
        return b.getShort(off) & 0xffff;
      case 4:
        return b.getInt(off) & 0xffffffffL;
      case 8:
        return b.getLong(off);
      default:
        return -1;
    }
  }
}
