package dev.fleetprof.symbols.elf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where functions start and end according to a binary's call-frame information: one range {@code
 * [initial_location, initial_location + address_range)} per FDE of {@code .eh_frame} and {@code
 * .debug_frame}, as link-time virtual addresses. Built once per binary ({@link #read(ElfFile)});
 * immutable and thread-safe afterwards; holds no reference to the file.
 *
 * <p>Why: {@code strip} removes {@code .symtab} but must keep {@code .eh_frame}, which the C++
 * runtime and every unwinder need, so a stripped binary still says where each of its functions
 * (local ones included) begins and ends, without saying what they are called. An address no symbol
 * contains can then still be told apart from code of a neighbouring function.
 *
 * <p>The layout is the LSB's ({@code .eh_frame}: CIE id 0, CIE pointers relative to the FDE's own
 * field, augmentation {@code z}/{@code R} giving the FDE pointer encoding) and DWARF's ({@code
 * .debug_frame}: CIE id all ones, CIE pointers relative to the section, versions 1, 3 and 4).
 * Pointer encodings: every value format ({@code absptr}, {@code udata2/4/8}, {@code sdata2/4/8},
 * {@code uleb128}, {@code sleb128}) with no base, {@code pcrel} (the field's own address), {@code
 * textrel} (the start of {@code .text}) or {@code datarel} (the start of {@code .got}); {@code
 * funcrel}, {@code aligned} and {@code indirect} initial locations are refused with an error, as
 * their value cannot be known from the file. FDEs with an empty range (left by discarded code) are
 * skipped. Relocatable objects ({@code ET_REL}) give an empty index: their initial locations are
 * filled in by relocations.
 *
 * <p>Malformed input gives an {@link ElfFormatException} naming the file offset: every length is
 * checked against the section before it is used, and the index grows with the FDEs actually read,
 * never with a length the file claims.
 */
public final class CallFrameIndex {
  private static final int DW_EH_PE_OMIT = 0xff;
  private static final int DW_EH_PE_INDIRECT = 0x80;
  private static final int DW_EH_PE_PCREL = 0x10;
  private static final int DW_EH_PE_TEXTREL = 0x20;
  private static final int DW_EH_PE_DATAREL = 0x30;

  private static final CallFrameIndex EMPTY = new CallFrameIndex(new long[0], new long[0]);

  /** Sorted by (start, length), unsigned. */
  private final long[] starts;

  private final long[] lengths;

  /**
   * A function's extent from one FDE.
   *
   * @param start the FDE's initial location: the function's first address (link-time virtual)
   * @param length its address range in bytes
   */
  public record Range(long start, long length) {}

  private CallFrameIndex(long[] starts, long[] lengths) {
    this.starts = starts;
    this.lengths = lengths;
  }

  /**
   * Reads the FDEs of {@code elf}'s {@code .eh_frame} and {@code .debug_frame} (whichever have
   * contents).
   *
   * @throws ElfFormatException if a record is malformed or uses an encoding that cannot be read
   */
  public static CallFrameIndex read(ElfFile elf) throws IOException {
    if (elf.type() == ElfFile.ET_REL) {
      return EMPTY;
    }
    Ranges out = new Ranges();
    for (ElfSection s : elf.sections()) {
      boolean eh = s.name().equals(".eh_frame");
      if (!eh && !s.name().equals(".debug_frame") && !s.name().equals(".zdebug_frame")) {
        continue;
      }
      ByteBuffer data = elf.sectionData(s);
      if (data != null) {
        new Parser(elf, s, data.duplicate().order(elf.order()), eh, out).parse();
      }
    }
    return out.index();
  }

  /** The range of the FDE holding {@code vaddr} (the last one starting at or below it), if any. */
  public Optional<Range> containing(long vaddr) {
    int found = SymbolTable.lastAtOrBelow(starts, 0, starts.length, vaddr);
    if (found < 0 || Long.compareUnsigned(vaddr - starts[found], lengths[found]) >= 0) {
      return Optional.empty();
    }
    return Optional.of(new Range(starts[found], lengths[found]));
  }

  /** The number of FDE ranges, duplicates included. */
  public int size() {
    return starts.length;
  }

  /** The i-th range in address order. */
  public Range range(int i) {
    return new Range(starts[i], lengths[i]);
  }

  /** Approximate heap bytes held. */
  public long retainedBytes() {
    return 16L * starts.length;
  }

  /** Growable parallel arrays of ranges. */
  private static final class Ranges {
    private long[] starts = new long[64];
    private long[] lengths = new long[64];
    private int n;

    void add(long start, long length) {
      if (n == starts.length) {
        starts = Arrays.copyOf(starts, n * 2);
        lengths = Arrays.copyOf(lengths, n * 2);
      }
      starts[n] = start;
      lengths[n] = length;
      n++;
    }

    CallFrameIndex index() {
      int[] order =
          SymbolTable.sortedOrder(
              n,
              (a, b) -> {
                int c = Long.compareUnsigned(starts[a], starts[b]);
                return c != 0 ? c : Long.compareUnsigned(lengths[a], lengths[b]);
              });
      long[] s = new long[n];
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        s[i] = starts[order[i]];
        l[i] = lengths[order[i]];
      }
      return new CallFrameIndex(s, l);
    }
  }

  /** What an FDE needs from its CIE. */
  private record Cie(int fdeEncoding, int addressSize) {}

  /** One section's records, read front to back. */
  private static final class Parser {
    private final ElfFile elf;
    private final ElfSection section;
    private final ByteBuffer data;
    private final boolean eh;
    private final Ranges out;
    private final Map<Long, Cie> cies = new HashMap<>();
    private final long textAddr;
    private final long gotAddr;
    private final boolean hasGot;
    private int pos;
    private int end; // of the current record

    Parser(ElfFile elf, ElfSection section, ByteBuffer data, boolean eh, Ranges out) {
      this.elf = elf;
      this.section = section;
      this.data = data;
      this.eh = eh;
      this.out = out;
      this.textAddr = elf.section(".text").map(ElfSection::addr).orElse(0L);
      Optional<ElfSection> got = elf.section(".got");
      this.hasGot = got.isPresent();
      this.gotAddr = got.map(ElfSection::addr).orElse(0L);
    }

    void parse() throws ElfFormatException {
      int limit = data.limit();
      pos = 0;
      while (limit - pos >= 4) {
        int recordStart = pos;
        end = limit;
        long length = u32();
        if (length == 0) {
          if (eh) {
            return; // the terminator crtend.o ends .eh_frame with
          }
          continue; // .debug_frame has no terminator; an empty record is padding
        }
        boolean dwarf64 = length == 0xffffffffL;
        if (dwarf64) {
          length = u64();
        }
        if (Long.compareUnsigned(length, limit - pos) > 0) {
          throw error(
              recordStart,
              "record length "
                  + Long.toUnsignedString(length)
                  + " runs past the end of the section ("
                  + (limit - pos)
                  + " bytes left)");
        }
        end = pos + (int) length;
        int idPos = pos;
        long id = dwarf64 ? u64() : u32();
        boolean isCie = eh ? id == 0 : (dwarf64 ? id == -1L : id == 0xffffffffL);
        if (isCie) {
          cies.put((long) recordStart, cie(recordStart));
        } else {
          long ciePos = eh ? idPos - id : id;
          Cie cie = cies.get(ciePos);
          if (cie == null) {
            cie = cieAt(ciePos, recordStart);
          }
          fde(cie, recordStart);
        }
        pos = end;
      }
    }

    /**
     * The CIE at section offset {@code at}, read out of turn (a .debug_frame FDE may precede it).
     */
    private Cie cieAt(long at, int fdeStart) throws ElfFormatException {
      if (at < 0 || at > data.limit() - 8) {
        throw error(fdeStart, "FDE's CIE pointer leads to offset " + at + ", outside the section");
      }
      int savedPos = pos;
      int savedEnd = end;
      pos = (int) at;
      end = data.limit();
      long length = u32();
      boolean dwarf64 = length == 0xffffffffL;
      if (dwarf64) {
        length = u64();
      }
      if (length == 0 || Long.compareUnsigned(length, data.limit() - pos) > 0) {
        throw error(fdeStart, "FDE's CIE pointer leads to offset " + at + ", which is no record");
      }
      end = pos + (int) length;
      long id = dwarf64 ? u64() : u32();
      boolean isCie = eh ? id == 0 : (dwarf64 ? id == -1L : id == 0xffffffffL);
      if (!isCie) {
        throw error(fdeStart, "FDE's CIE pointer leads to offset " + at + ", which is no CIE");
      }
      Cie cie = cie((int) at);
      cies.put(at, cie);
      pos = savedPos;
      end = savedEnd;
      return cie;
    }

    private Cie cie(int recordStart) throws ElfFormatException {
      int version = u8();
      if (version != 1 && version != 3 && version != 4) {
        throw error(recordStart, "CIE version " + version + " is not one of 1, 3 and 4");
      }
      int augStart = pos;
      while (u8() != 0) {
        // the augmentation string, NUL-terminated inside the record
      }
      int augEnd = pos - 1;
      int addressSize = elf.is64() ? 8 : 4;
      if (version == 4) {
        addressSize = u8();
        u8(); // segment selector size
        if (addressSize != 2 && addressSize != 4 && addressSize != 8) {
          throw error(recordStart, "CIE address size " + addressSize + " is not 2, 4 or 8");
        }
      }
      int encoding = 0; // absptr
      if (augEnd > augStart && data.get(augStart) == 'z') {
        uleb(); // code alignment factor
        uleb(); // data alignment factor (signed, but only skipped)
        if (version == 1) {
          u8();
        } else {
          uleb();
        }
        long augLength = uleb();
        if (Long.compareUnsigned(augLength, end - pos) > 0) {
          throw error(recordStart, "CIE augmentation data of " + augLength + " bytes runs past it");
        }
        int dataEnd = pos + (int) augLength;
        for (int i = augStart + 1; i < augEnd; i++) {
          byte c = data.get(i);
          if (c == 'R') {
            encoding = u8();
          } else if (c == 'P') {
            int personality = u8();
            encoded(personality, addressSize, recordStart); // skipped
          } else if (c == 'L') {
            u8();
          } else if (c != 'S' && c != 'B' && c != 'G') {
            break; // unknown: the augmentation length lets the rest be skipped
          }
        }
        pos = dataEnd;
      }
      return new Cie(encoding, addressSize);
    }

    private void fde(Cie cie, int recordStart) throws ElfFormatException {
      int enc = cie.fdeEncoding();
      if (enc == DW_EH_PE_OMIT || (enc & DW_EH_PE_INDIRECT) != 0 || (enc & 0x70) > 0x30) {
        throw error(
            recordStart,
            "FDE initial location encoding 0x"
                + Integer.toHexString(enc)
                + " cannot be read from the file");
      }
      long start = encoded(enc, cie.addressSize(), recordStart);
      long range = encoded(enc & 0x0f, cie.addressSize(), recordStart);
      if (!elf.is64()) {
        start &= 0xffffffffL;
        range &= 0xffffffffL;
      }
      if (range != 0) {
        out.add(start, range);
      }
    }

    /** A value in pointer encoding {@code enc} at the current position. */
    private long encoded(int enc, int addressSize, int recordStart) throws ElfFormatException {
      if (enc == DW_EH_PE_OMIT) {
        return 0;
      }
      long fieldAddr = section.addr() + pos;
      long v =
          switch (enc & 0x0f) {
            case 0x00 -> addressSize == 8 ? u64() : addressSize == 4 ? u32() : u16();
            case 0x01 -> uleb();
            case 0x02 -> u16();
            case 0x03 -> u32();
            case 0x04, 0x0c -> u64();
            case 0x09 -> sleb();
            case 0x0a -> (short) u16();
            case 0x0b -> (int) u32();
            default ->
                throw error(
                    recordStart,
                    "pointer encoding 0x" + Integer.toHexString(enc) + " has an unknown format");
          };
      return switch (enc & 0x70) {
        case 0x00 -> v;
        case DW_EH_PE_PCREL -> v + fieldAddr;
        case DW_EH_PE_TEXTREL -> v + textAddr;
        case DW_EH_PE_DATAREL -> {
          if (!hasGot) {
            throw error(recordStart, "datarel pointer encoding but the file has no .got");
          }
          yield v + gotAddr;
        }
        default -> v; // funcrel/aligned: only in skipped personality pointers (fde() refuses them)
      };
    }

    private void need(int n) throws ElfFormatException {
      if (end - pos < n) {
        throw error(pos, "record ends inside a field (" + n + " bytes needed)");
      }
    }

    private int u8() throws ElfFormatException {
      need(1);
      return Byte.toUnsignedInt(data.get(pos++));
    }

    private long u16() throws ElfFormatException {
      need(2);
      long v = Short.toUnsignedInt(data.getShort(pos));
      pos += 2;
      return v;
    }

    private long u32() throws ElfFormatException {
      need(4);
      long v = Integer.toUnsignedLong(data.getInt(pos));
      pos += 4;
      return v;
    }

    private long u64() throws ElfFormatException {
      need(8);
      long v = data.getLong(pos);
      pos += 8;
      return v;
    }

    private long uleb() throws ElfFormatException {
      long v = 0;
      for (int shift = 0; ; shift += 7) {
        int b = u8();
        if (shift < 64) {
          v |= (long) (b & 0x7f) << shift;
        }
        if ((b & 0x80) == 0) {
          return v;
        }
      }
    }

    private long sleb() throws ElfFormatException {
      long v = 0;
      int shift = 0;
      int b;
      do {
        b = u8();
        if (shift < 64) {
          v |= (long) (b & 0x7f) << shift;
        }
        shift += 7;
      } while ((b & 0x80) != 0);
      if (shift < 64 && (b & 0x40) != 0) {
        v |= -1L << shift;
      }
      return v;
    }

    private ElfFormatException error(long at, String detail) {
      return elf.error(
          section.isCompressed() ? section.offset() : section.offset() + at,
          section.name()
              + " at byte "
              + at
              + (section.isCompressed() ? " (of its decompressed contents)" : "")
              + ": "
              + detail);
    }
  }
}
