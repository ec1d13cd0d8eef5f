package dev.fleetprof.symbols.elf;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An ELF file (32- or 64-bit, little- or big-endian) read through a {@link FileChannel}: the ELF
 * header, program headers and section headers are read when the file is opened (and checked against
 * the file's size); section contents are mapped on demand with {@link FileChannel#map} (those of 64
 * KiB or less are copied to the heap instead, to spare a mapping), so files over 2 GiB work as long
 * as no single section that is asked for is over 2 GiB.
 *
 * <p>Malformed or truncated files give an {@link ElfFormatException} naming the file and the byte
 * offset. Every count and size read from the file is checked against the file's size (and a fixed
 * limit) before anything is allocated for it; decompressed sections are limited to {@link
 * #MAX_DECOMPRESSED_SIZE} and must decompress to exactly the size they declare.
 *
 * <p>An open {@code ElfFile} is immutable and safe to use from several threads. Buffers returned by
 * {@link #sectionData} stay readable after {@link #close()}; the file must not be truncated while
 * they are in use (a mapped page that disappears is an {@link InternalError} in the JVM).
 */
public final class ElfFile implements Closeable {
  /** The largest decompressed size a compressed section may declare: 1 GiB. */
  public static final long MAX_DECOMPRESSED_SIZE = 1L << 30;

  /** The most section headers accepted (extended numbering allows 2^32). */
  static final long MAX_SECTIONS = 1L << 21;

  /** The most program headers accepted (extended numbering allows 2^32). */
  static final long MAX_SEGMENTS = 1L << 16;

  public static final int ET_NONE = 0;
  public static final int ET_REL = 1;
  public static final int ET_EXEC = 2;
  public static final int ET_DYN = 3;
  public static final int ET_CORE = 4;

  public static final int EM_386 = 3;
  public static final int EM_X86_64 = 62;
  public static final int EM_AARCH64 = 183;

  static final int SHN_UNDEF = 0;
  static final int SHN_LORESERVE = 0xff00;
  static final int SHN_XINDEX = 0xffff;
  private static final int PN_XNUM = 0xffff;

  private static final int NT_GNU_BUILD_ID = 3;
  private static final int ELFCOMPRESS_ZLIB = 1;
  private static final int ELFCOMPRESS_ZSTD = 2;

  /** Reads up to this size are copied to the heap; larger regions are mapped. */
  private static final int SMALL_READ = 64 * 1024;

  private final Path file;
  private final FileChannel channel;
  private final long fileSize;
  private final boolean is64;
  private final ByteOrder order;
  private final int type;
  private final int machine;
  private final long entry;
  private final long shoff;
  private final int shentsize;
  private final List<ElfSegment> segments;

  /** p_align of each segment (same index as {@link #segments}); notes pad to it. */
  private final long[] segmentAligns;

  private final List<ElfSection> sections;

  private ElfFile(Path file, FileChannel channel) throws IOException {
    this.file = file;
    this.channel = channel;
    this.fileSize = channel.size();

    if (fileSize < 16) {
      throw error(
          fileSize, "file of " + fileSize + " bytes is too short for an ELF identification");
    }
    ByteBuffer ident = readSmall(0, 16, "ELF identification");
    if (ident.get(0) != 0x7f || ident.get(1) != 'E' || ident.get(2) != 'L' || ident.get(3) != 'F') {
      throw error(0, "not an ELF file (no \\x7fELF magic)");
    }
    int elfClass = ident.get(4);
    if (elfClass != 1 && elfClass != 2) {
      throw error(4, "unknown ELF class " + elfClass + " (1 = 32-bit, 2 = 64-bit)");
    }
    is64 = elfClass == 2;
    int data = ident.get(5);
    if (data != 1 && data != 2) {
      throw error(5, "unknown ELF data encoding " + data + " (1 = little, 2 = big-endian)");
    }
    order = data == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;

    int ehsize = is64 ? 64 : 52;
    ByteBuffer eh = readSmall(0, ehsize, "ELF header");
    type = Short.toUnsignedInt(eh.getShort(16));
    machine = Short.toUnsignedInt(eh.getShort(18));
    entry = word(eh, 24);
    long phoff = word(eh, is64 ? 32 : 28);
    shoff = word(eh, is64 ? 40 : 32);
    int phentsize = Short.toUnsignedInt(eh.getShort(is64 ? 54 : 42));
    int ePhnum = Short.toUnsignedInt(eh.getShort(is64 ? 56 : 44));
    shentsize = Short.toUnsignedInt(eh.getShort(is64 ? 58 : 46));
    int eShnum = Short.toUnsignedInt(eh.getShort(is64 ? 60 : 48));
    int eShstrndx = Short.toUnsignedInt(eh.getShort(is64 ? 62 : 50));
    int shstrndxField = is64 ? 62 : 50;

    // Extended numbering: counts that do not fit the header live in section header 0.
    long shnum = eShnum;
    long phnum = ePhnum;
    long shstrndx = eShstrndx;
    long shstrndxAt = shstrndxField;
    int minShentsize = is64 ? 64 : 40;
    if (shoff != 0) {
      if (shentsize < minShentsize) {
        throw error(is64 ? 58 : 46, "e_shentsize " + shentsize + " is less than " + minShentsize);
      }
      ByteBuffer sh0 =
          readSmall(
              checkedRange(shoff, minShentsize, is64 ? 40 : 32, "section header 0"),
              minShentsize,
              "section header 0");
      if (eShnum == 0) {
        shnum = word(sh0, is64 ? 32 : 20);
      }
      if (eShstrndx == SHN_XINDEX) {
        shstrndx = Integer.toUnsignedLong(sh0.getInt(is64 ? 40 : 24));
        shstrndxAt = shoff + (is64 ? 40 : 24);
      }
      if (ePhnum == PN_XNUM) {
        phnum = Integer.toUnsignedLong(sh0.getInt(is64 ? 44 : 28));
      }
    } else {
      shnum = 0;
    }

    // Program headers.
    int minPhentsize = is64 ? 56 : 32;
    List<ElfSegment> segs = new ArrayList<>();
    long[] aligns = new long[0];
    if (phoff != 0 && phnum != 0) {
      if (phentsize < minPhentsize) {
        throw error(is64 ? 54 : 42, "e_phentsize " + phentsize + " is less than " + minPhentsize);
      }
      if (phnum > MAX_SEGMENTS) {
        throw error(
            is64 ? 56 : 44,
            phnum + " program headers, more than the " + MAX_SEGMENTS + " accepted");
      }
      ByteBuffer ph =
          region(
              checkedRange(
                  phoff,
                  phnum * phentsize,
                  is64 ? 32 : 28,
                  "program header table of " + phnum + " entries"),
              phnum * phentsize,
              "program header table");
      aligns = new long[(int) phnum];
      for (int i = 0; i < phnum; i++) {
        int at = i * phentsize;
        ElfSegment s;
        if (is64) {
          s =
              new ElfSegment(
                  ph.getInt(at),
                  ph.getInt(at + 4),
                  ph.getLong(at + 8),
                  ph.getLong(at + 16),
                  ph.getLong(at + 32),
                  ph.getLong(at + 40));
          aligns[i] = ph.getLong(at + 48);
        } else {
          s =
              new ElfSegment(
                  ph.getInt(at),
                  ph.getInt(at + 24),
                  u32(ph, at + 4),
                  u32(ph, at + 8),
                  u32(ph, at + 16),
                  u32(ph, at + 20));
          aligns[i] = u32(ph, at + 28);
        }
        long headerAt = phoff + at;
        if (s.filesz() != 0 && !fits(s.offset(), s.filesz())) {
          throw error(
              headerAt,
              "program header "
                  + i
                  + " (type 0x"
                  + Integer.toHexString(s.type())
                  + ") claims file bytes [0x"
                  + Long.toHexString(s.offset())
                  + ", +0x"
                  + Long.toHexString(s.filesz())
                  + ") past the end of the file ("
                  + fileSize
                  + " bytes)");
        }
        segs.add(s);
      }
    }
    segments = Collections.unmodifiableList(segs);
    segmentAligns = aligns;

    // Section headers.
    List<ElfSection> secs = new ArrayList<>();
    if (shnum != 0) {
      if (shnum > MAX_SECTIONS) {
        throw error(
            eShnum == 0 ? shoff + (is64 ? 32 : 20) : (is64 ? 60 : 48),
            shnum + " section headers, more than the " + MAX_SECTIONS + " accepted");
      }
      ByteBuffer sh =
          region(
              checkedRange(
                  shoff,
                  shnum * shentsize,
                  is64 ? 40 : 32,
                  "section header table of " + shnum + " entries"),
              shnum * shentsize,
              "section header table");
      int n = (int) shnum;
      int[] nameOffsets = new int[n];
      long[] raw = new long[n * 9];
      for (int i = 0; i < n; i++) {
        int at = i * shentsize;
        nameOffsets[i] = sh.getInt(at);
        int r = i * 9;
        raw[r] = Integer.toUnsignedLong(sh.getInt(at + 4));
        if (is64) {
          raw[r + 1] = sh.getLong(at + 8);
          raw[r + 2] = sh.getLong(at + 16);
          raw[r + 3] = sh.getLong(at + 24);
          raw[r + 4] = sh.getLong(at + 32);
          raw[r + 5] = u32(sh, at + 40);
          raw[r + 6] = u32(sh, at + 44);
          raw[r + 7] = sh.getLong(at + 48);
          raw[r + 8] = sh.getLong(at + 56);
        } else {
          raw[r + 1] = u32(sh, at + 8);
          raw[r + 2] = u32(sh, at + 12);
          raw[r + 3] = u32(sh, at + 16);
          raw[r + 4] = u32(sh, at + 20);
          raw[r + 5] = u32(sh, at + 24);
          raw[r + 6] = u32(sh, at + 28);
          raw[r + 7] = u32(sh, at + 32);
          raw[r + 8] = u32(sh, at + 36);
        }
        int stype = (int) raw[r];
        if (i != 0
            && stype != ElfSection.SHT_NULL
            && stype != ElfSection.SHT_NOBITS
            && !fits(raw[r + 3], raw[r + 4])) {
          throw error(
              shoff + at,
              "section header "
                  + i
                  + " claims file bytes [0x"
                  + Long.toHexString(raw[r + 3])
                  + ", +0x"
                  + Long.toHexString(raw[r + 4])
                  + ") past the end of the file ("
                  + fileSize
                  + " bytes)");
        }
      }
      String[] names = sectionNames(nameOffsets, raw, shstrndx, shstrndxAt);
      for (int i = 0; i < n; i++) {
        int r = i * 9;
        secs.add(
            new ElfSection(
                i,
                names[i],
                (int) raw[r],
                raw[r + 1],
                raw[r + 2],
                raw[r + 3],
                raw[r + 4],
                (int) raw[r + 5],
                (int) raw[r + 6],
                raw[r + 7],
                raw[r + 8]));
      }
    }
    sections = Collections.unmodifiableList(secs);
  }

  /**
   * Opens an ELF file and reads its headers.
   *
   * @throws ElfFormatException if the file is not ELF, or its headers are malformed or truncated
   * @throws IOException if the file cannot be read
   */
  public static ElfFile open(Path file) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
    try {
      return new ElfFile(file, channel);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** The path this file was opened from. */
  public Path path() {
    return file;
  }

  /** The file's size in bytes. */
  public long fileSize() {
    return fileSize;
  }

  /** Whether this is an ELFCLASS64 file (else ELFCLASS32). */
  public boolean is64() {
    return is64;
  }

  /** The byte order of the file's data (EI_DATA). */
  public ByteOrder order() {
    return order;
  }

  /** {@code e_type}: {@link #ET_REL}, {@link #ET_EXEC}, {@link #ET_DYN}, {@link #ET_CORE}, ... */
  public int type() {
    return type;
  }

  /** {@code e_machine}, e.g. {@link #EM_X86_64}. */
  public int machine() {
    return machine;
  }

  /** {@code e_entry}. */
  public long entry() {
    return entry;
  }

  /**
   * The program headers, in file order; empty for files without them (objects, some debug files).
   */
  public List<ElfSegment> segments() {
    return segments;
  }

  /** The section headers, in file order, index 0 (the null section) included; may be empty. */
  public List<ElfSection> sections() {
    return sections;
  }

  /** The first section with this name. */
  public Optional<ElfSection> section(String name) {
    for (ElfSection s : sections) {
      if (s.name().equals(name)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * The GNU build ID ({@code NT_GNU_BUILD_ID} note) as lowercase hex, as {@code readelf -n} prints
   * it. Notes are read from the PT_NOTE segments; when none carries a build ID (files without
   * program headers, such as objects and some debug files), from the SHT_NOTE sections, {@code
   * .note.gnu.build-id} first.
   */
  public Optional<String> buildId() throws IOException {
    for (int i = 0; i < segments.size(); i++) {
      ElfSegment s = segments.get(i);
      if (s.type() == ElfSegment.PT_NOTE && s.filesz() != 0) {
        Optional<String> id = buildIdIn(s.offset(), s.filesz(), segmentAligns[i]);
        if (id.isPresent()) {
          return id;
        }
      }
    }
    List<ElfSection> notes = new ArrayList<>();
    for (ElfSection s : sections) {
      if (s.type() == ElfSection.SHT_NOTE && !s.isCompressed()) {
        if (s.name().equals(".note.gnu.build-id")) {
          notes.add(0, s);
        } else {
          notes.add(s);
        }
      }
    }
    for (ElfSection s : notes) {
      Optional<String> id = buildIdIn(s.offset(), s.size(), s.addralign());
      if (id.isPresent()) {
        return id;
      }
    }
    return Optional.empty();
  }

  /** The separate debug file named by {@code .gnu_debuglink}, with its CRC-32. */
  public Optional<DebugLink> debugLink() throws IOException {
    Optional<ElfSection> section = section(".gnu_debuglink");
    if (section.isEmpty() || section.get().isNobits()) {
      return Optional.empty();
    }
    ElfSection s = section.get();
    ByteBuffer b = sectionData(s);
    int nul = -1;
    for (int i = 0; i < b.limit(); i++) {
      if (b.get(i) == 0) {
        nul = i;
        break;
      }
    }
    if (nul < 0) {
      throw error(s.offset(), ".gnu_debuglink has no NUL-terminated file name");
    }
    int crcAt = (nul + 1 + 3) & ~3;
    if (crcAt + 4 > b.limit()) {
      throw error(
          s.offset() + crcAt,
          ".gnu_debuglink of " + b.limit() + " bytes ends before its CRC-32 at " + crcAt);
    }
    byte[] name = new byte[nul];
    b.get(0, name);
    return Optional.of(
        new DebugLink(
            new String(name, StandardCharsets.UTF_8), Integer.toUnsignedLong(b.getInt(crcAt))));
  }

  /**
   * The link-time virtual address of a file offset, as pprof converts a profile's mapping-relative
   * offset ({@code pc - mapping.start + mapping.offset}) before symbolizing (pprof's {@code
   * internal/elfexec} {@code GetBase}; see shared/notes/symbols.md): the executable PT_LOAD segment
   * holding the offset ({@code p_offset <= F < p_offset + p_filesz}, segments with no file bytes
   * skipped) gives {@code F - p_offset + p_vaddr}; when no executable one holds it, another PT_LOAD
   * that does; a file with no PT_LOAD at all (a relocatable object) gives {@code F} itself. Offsets
   * and addresses are only equal by chance of the layout (GNU ld PIEs and shared libraries);
   * non-PIE executables ({@code 0x4011b0} for offset {@code 0x11b0}) and lld output differ.
   *
   * @return the address, or empty when PT_LOAD segments exist but none holds the offset
   */
  public OptionalLong fileOffsetToVaddr(long fileOffset) {
    boolean anyLoad = false;
    ElfSegment other = null;
    for (ElfSegment s : segments) {
      if (!s.isLoad()) {
        continue;
      }
      anyLoad = true;
      if (s.holdsFileOffset(fileOffset)) {
        if (s.isExecutable()) {
          return OptionalLong.of(fileOffset - s.offset() + s.vaddr());
        }
        if (other == null) {
          other = s;
        }
      }
    }
    if (other != null) {
      return OptionalLong.of(fileOffset - other.offset() + other.vaddr());
    }
    return anyLoad ? OptionalLong.empty() : OptionalLong.of(fileOffset);
  }

  /**
   * The contents of the first section with this name, read-only, in the file's byte order,
   * positioned at 0. Compressed sections come back decompressed: {@code SHF_COMPRESSED} with zlib
   * or zstd, and GNU's legacy {@code .zdebug_*} form, which a {@code .debug_*} name also finds when
   * there is no section of that exact name.
   *
   * @return the bytes, or null when there is no such section or it is {@code SHT_NOBITS}
   * @throws ElfFormatException if compressed data is corrupt, declares more than {@link
   *     #MAX_DECOMPRESSED_SIZE}, or decompresses to another size than it declares
   * @throws IOException if a section over 2 GiB is asked for, or on a read error
   */
  public ByteBuffer sectionData(String name) throws IOException {
    Optional<ElfSection> s = section(name);
    if (s.isEmpty() && name.startsWith(".debug_")) {
      s = section(".zdebug_" + name.substring(".debug_".length()));
    }
    return s.isEmpty() ? null : sectionData(s.get());
  }

  /** Like {@link #sectionData(String)}, for a section of this file (for duplicate names). */
  public ByteBuffer sectionData(ElfSection s) throws IOException {
    if (s.isNobits() || s.type() == ElfSection.SHT_NULL) {
      return null;
    }
    ByteBuffer raw = rawSectionData(s);
    if (s.isCompressed()) {
      return decompress(s, raw);
    }
    if (s.name().startsWith(".zdebug")
        && raw.limit() >= 12
        && raw.get(0) == 'Z'
        && raw.get(1) == 'L'
        && raw.get(2) == 'I'
        && raw.get(3) == 'B') {
      long declared = raw.order(ByteOrder.BIG_ENDIAN).getLong(4);
      raw.order(order);
      checkDeclared(s, declared, s.offset() + 4);
      return readOnly(Decompress.inflate(this, s, raw.slice(12, raw.limit() - 12), declared));
    }
    return raw;
  }

  /** The section's bytes as stored in the file (compressed sections not decompressed). */
  ByteBuffer rawSectionData(ElfSection s) throws IOException {
    if (s.size() > Integer.MAX_VALUE) {
      throw new IOException(
          file
              + ": section "
              + s.index()
              + " ("
              + s.name()
              + ") is "
              + Long.toUnsignedString(s.size())
              + " bytes; sections over 2 GiB are not supported");
    }
    return region(s.offset(), s.size(), "section " + s.name());
  }

  /** The byte offset of section header {@code index}'s field at {@code fieldOffset}. */
  long sectionHeaderOffset(int index, int fieldOffset) {
    return shoff + (long) index * shentsize + fieldOffset;
  }

  ElfFormatException error(long offset, String detail) {
    return new ElfFormatException(file, offset, detail);
  }

  ElfFormatException error(long offset, String detail, Throwable cause) {
    return new ElfFormatException(file, offset, detail, cause);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  @Override
  public String toString() {
    return "ElfFile[" + file + ", " + (is64 ? "64" : "32") + "-bit " + order + "]";
  }

  // ---- internals ----

  private ByteBuffer decompress(ElfSection s, ByteBuffer raw) throws IOException {
    int headerSize = is64 ? 24 : 12;
    if (raw.limit() < headerSize) {
      throw error(
          s.offset(),
          "compressed section "
              + s.name()
              + " of "
              + raw.limit()
              + " bytes is shorter than its "
              + headerSize
              + "-byte compression header");
    }
    int chType = raw.getInt(0);
    long declared = is64 ? raw.getLong(8) : u32(raw, 4);
    checkDeclared(s, declared, s.offset() + (is64 ? 8 : 4));
    ByteBuffer body = raw.slice(headerSize, raw.limit() - headerSize);
    byte[] out;
    if (chType == ELFCOMPRESS_ZLIB) {
      out = Decompress.inflate(this, s, body, declared);
    } else if (chType == ELFCOMPRESS_ZSTD) {
      out = Decompress.zstd(this, s, body, declared);
    } else {
      throw error(
          s.offset(),
          "section "
              + s.name()
              + " has unknown compression type "
              + chType
              + " (1 = zlib, 2 = zstd)");
    }
    return readOnly(out);
  }

  private void checkDeclared(ElfSection s, long declared, long at) throws ElfFormatException {
    if (declared < 0 || declared > MAX_DECOMPRESSED_SIZE) {
      throw error(
          at,
          "compressed section "
              + s.name()
              + " declares "
              + Long.toUnsignedString(declared)
              + " decompressed bytes, over the limit of "
              + MAX_DECOMPRESSED_SIZE);
    }
  }

  private ByteBuffer readOnly(byte[] bytes) {
    // asReadOnlyBuffer() resets the order to big-endian: set it afterwards.
    return ByteBuffer.wrap(bytes).asReadOnlyBuffer().order(order);
  }

  private Optional<String> buildIdIn(long offset, long size, long align) throws IOException {
    if (size > Integer.MAX_VALUE) {
      throw error(offset, "note area of " + Long.toUnsignedString(size) + " bytes is over 2 GiB");
    }
    ByteBuffer b = region(offset, size, "note area");
    int pad = align == 8 ? 8 : 4;
    long pos = 0;
    while (pos + 12 <= size) {
      long namesz = u32(b, (int) pos);
      long descsz = u32(b, (int) pos + 4);
      int ntype = b.getInt((int) pos + 8);
      long nameAt = pos + 12;
      // Padding aligns the descriptor and the next note within the area (p_align 8 notes such
      // as .note.gnu.property pad to 8).
      long descAt = roundUp(nameAt + namesz, pad);
      long next = roundUp(descAt + descsz, pad);
      if (descAt + descsz > size) {
        throw error(
            offset + pos,
            "note of name size "
                + namesz
                + " and descriptor size "
                + descsz
                + " runs past the end of its "
                + size
                + "-byte note area");
      }
      if (ntype == NT_GNU_BUILD_ID
          && namesz == 4
          && b.get((int) nameAt) == 'G'
          && b.get((int) nameAt + 1) == 'N'
          && b.get((int) nameAt + 2) == 'U'
          && b.get((int) nameAt + 3) == 0) {
        byte[] desc = new byte[(int) descsz];
        b.get((int) descAt, desc);
        return Optional.of(HexFormat.of().formatHex(desc));
      }
      pos = next;
    }
    return Optional.empty();
  }

  private static long roundUp(long v, int to) {
    return (v + to - 1) & -to;
  }

  private String[] sectionNames(int[] nameOffsets, long[] raw, long shstrndx, long shstrndxAt)
      throws IOException {
    int n = nameOffsets.length;
    String[] names = new String[n];
    if (shstrndx == SHN_UNDEF) {
      java.util.Arrays.fill(names, "");
      return names;
    }
    if (shstrndx >= n) {
      throw error(
          shstrndxAt,
          "section name string table index " + shstrndx + " is out of range (" + n + " sections)");
    }
    int r = (int) shstrndx * 9;
    if (raw[r] == ElfSection.SHT_NOBITS || raw[r + 4] > Integer.MAX_VALUE) {
      throw error(
          sectionHeaderOffset((int) shstrndx, 0),
          "section name string table (section " + shstrndx + ") has no usable contents");
    }
    ByteBuffer strtab = region(raw[r + 3], raw[r + 4], "section name string table");
    int[] starts = nameOffsets.clone();
    for (int i = 0; i < n; i++) {
      if (Integer.toUnsignedLong(starts[i]) >= strtab.limit() && !(i == 0 && starts[i] == 0)) {
        throw error(
            sectionHeaderOffset(i, 0),
            "section "
                + i
                + "'s name offset "
                + Integer.toUnsignedString(starts[i])
                + " is outside the "
                + strtab.limit()
                + "-byte section name string table");
      }
    }
    int[] distinct = StringTables.sortedDistinct(starts);
    int[] ends = StringTables.terminators(strtab, distinct);
    for (int i = 0; i < n; i++) {
      if (i == 0 && strtab.limit() == 0) {
        names[i] = "";
        continue;
      }
      int k = java.util.Arrays.binarySearch(distinct, starts[i]);
      if (ends[k] < 0) {
        throw error(
            raw[r + 3] + starts[i],
            "section " + i + "'s name is not NUL-terminated in the section name string table");
      }
      names[i] = StringTables.decode(strtab, starts[i], ends[k]);
    }
    return names;
  }

  private boolean fits(long offset, long length) {
    return offset >= 0 && length >= 0 && offset <= fileSize && length <= fileSize - offset;
  }

  /** Checks that {@code [offset, offset + length)} lies in the file; returns offset. */
  private long checkedRange(long offset, long length, long fieldAt, String what)
      throws ElfFormatException {
    if (!fits(offset, length)) {
      throw error(
          fieldAt,
          what
              + " at 0x"
              + Long.toHexString(offset)
              + " (0x"
              + Long.toHexString(length)
              + " bytes) runs past the end of the file ("
              + fileSize
              + " bytes)");
    }
    return offset;
  }

  private ByteBuffer readSmall(long offset, int length, String what) throws IOException {
    if (!fits(offset, length)) {
      throw error(
          Math.min(Math.max(offset, 0), fileSize),
          what + " of " + length + " bytes runs past the end of the file (" + fileSize + " bytes)");
    }
    ByteBuffer b = ByteBuffer.allocate(length);
    long pos = offset;
    while (b.hasRemaining()) {
      int n = channel.read(b, pos);
      if (n < 0) {
        throw error(pos, what + ": unexpected end of file (the file shrank while being read)");
      }
      pos += n;
    }
    return b.flip().order(order == null ? ByteOrder.BIG_ENDIAN : order);
  }

  /** A read-only view of file bytes, heap-copied when small and mapped otherwise. */
  private ByteBuffer region(long offset, long length, String what) throws IOException {
    if (!fits(offset, length)) {
      throw error(
          Math.max(offset, 0),
          what
              + " (0x"
              + Long.toHexString(length)
              + " bytes) runs past the end of the file ("
              + fileSize
              + " bytes)");
    }
    if (length > Integer.MAX_VALUE) {
      throw new IOException(
          file
              + ": "
              + what
              + " at byte offset "
              + offset
              + " is "
              + length
              + " bytes; regions over 2 GiB are not supported");
    }
    if (length <= SMALL_READ) {
      return readSmall(offset, (int) length, what).asReadOnlyBuffer().order(order);
    }
    return channel.map(FileChannel.MapMode.READ_ONLY, offset, length).order(order);
  }

  /** An unsigned address-sized word: 8 bytes in 64-bit files, 4 zero-extended in 32-bit ones. */
  private long word(ByteBuffer b, int at) {
    return is64 ? b.getLong(at) : u32(b, at);
  }

  static long u32(ByteBuffer b, int at) {
    return Integer.toUnsignedLong(b.getInt(at));
  }
}
