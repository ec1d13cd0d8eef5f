package dev.fleetprof.symbols.elf;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes small hand-made ELF files for the tests binutils cannot build here: big-endian files with
 * program headers, sparse files over 4 GiB, a million symbols. Sections and segments are placed at
 * the file offsets the test gives; the section name table and the section header table go after the
 * last byte. What is written is checked with readelf/addr2line by the tests, not trusted.
 */
final class ElfBuilder {
  record Seg(int type, int flags, long offset, long vaddr, long filesz, long memsz, long align) {}

  record Sec(
      String name,
      int type,
      long flags,
      long addr,
      long offset,
      long size,
      byte[] data,
      int link,
      int info,
      long align,
      long entsize) {}

  record Sym(String name, long value, long size, int type, int bind, int other, int shndx) {}

  private final boolean is64;
  private final ByteOrder order;
  private final int type;
  private final List<Seg> segs = new ArrayList<>();
  private final List<Sec> secs = new ArrayList<>();

  ElfBuilder(boolean is64, ByteOrder order, int type) {
    this.is64 = is64;
    this.order = order;
    this.type = type;
  }

  int headerSize() {
    return is64 ? 64 : 52;
  }

  int phentsize() {
    return is64 ? 56 : 32;
  }

  ElfBuilder segment(
      int ptype, int flags, long offset, long vaddr, long filesz, long memsz, long align) {
    segs.add(new Seg(ptype, flags, offset, vaddr, filesz, memsz, align));
    return this;
  }

  /** Adds a section (index = 1 + number added before); data may be shorter than size (zeros). */
  int section(
      String name,
      int stype,
      long flags,
      long addr,
      long offset,
      long size,
      byte[] data,
      int link,
      int info,
      long align,
      long entsize) {
    secs.add(new Sec(name, stype, flags, addr, offset, size, data, link, info, align, entsize));
    return secs.size();
  }

  /** Adds .symtab (and .strtab after it) at the given offset; returns the offset after both. */
  long symtab(List<Sym> syms, long offset) {
    ByteArrayOutputStream str = new ByteArrayOutputStream();
    str.write(0);
    int entsize = is64 ? 24 : 16;
    ByteBuffer b = ByteBuffer.allocate((syms.size() + 1) * entsize).order(order);
    b.position(entsize);
    for (Sym s : syms) {
      int nameAt = str.size();
      str.writeBytes(s.name().getBytes(StandardCharsets.UTF_8));
      str.write(0);
      int info = (s.bind() << 4) | s.type();
      if (is64) {
        b.putInt(nameAt)
            .put((byte) info)
            .put((byte) s.other())
            .putShort((short) s.shndx())
            .putLong(s.value())
            .putLong(s.size());
      } else {
        b.putInt(nameAt)
            .putInt((int) s.value())
            .putInt((int) s.size())
            .put((byte) info)
            .put((byte) s.other())
            .putShort((short) s.shndx());
      }
    }
    byte[] symBytes = b.array();
    byte[] strBytes = str.toByteArray();
    int strIndex = secs.size() + 2;
    section(
        ".symtab",
        ElfSection.SHT_SYMTAB,
        0,
        0,
        offset,
        symBytes.length,
        symBytes,
        strIndex,
        1,
        8,
        entsize);
    long strOffset = offset + symBytes.length;
    section(
        ".strtab", ElfSection.SHT_STRTAB, 0, 0, strOffset, strBytes.length, strBytes, 0, 0, 1, 0);
    return strOffset + strBytes.length;
  }

  /** A GNU build-ID note in this file's byte order. */
  byte[] buildIdNote(byte[] id) {
    ByteBuffer b = ByteBuffer.allocate(16 + ((id.length + 3) & ~3)).order(order);
    b.putInt(4)
        .putInt(id.length)
        .putInt(3)
        .put("GNU\0".getBytes(StandardCharsets.US_ASCII))
        .put(id);
    return b.array();
  }

  void write(Path file) throws IOException {
    long end = headerSize() + (long) segs.size() * phentsize();
    for (Sec s : secs) {
      if (s.type() != ElfSection.SHT_NOBITS) {
        end = Math.max(end, s.offset() + s.size());
      }
    }
    // .shstrtab, then the section header table.
    ByteArrayOutputStream names = new ByteArrayOutputStream();
    names.write(0);
    List<Integer> nameOffsets = new ArrayList<>();
    for (Sec s : secs) {
      nameOffsets.add(names.size());
      names.writeBytes(s.name().getBytes(StandardCharsets.UTF_8));
      names.write(0);
    }
    int shstrName = names.size();
    names.writeBytes(".shstrtab\0".getBytes(StandardCharsets.US_ASCII));
    byte[] shstr = names.toByteArray();
    long shstrOffset = end;
    long shoff = (shstrOffset + shstr.length + 7) & ~7L;
    int shnum = secs.size() + 2;
    int shentsize = is64 ? 64 : 40;

    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer h = ByteBuffer.allocate(headerSize()).order(order);
      h.put(
          new byte[] {
            0x7f,
            'E',
            'L',
            'F',
            (byte) (is64 ? 2 : 1),
            (byte) (order == ByteOrder.LITTLE_ENDIAN ? 1 : 2),
            1,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0
          });
      h.putShort((short) type).putShort((short) (is64 ? 62 : 3)).putInt(1);
      long phoff = segs.isEmpty() ? 0 : headerSize();
      if (is64) {
        h.putLong(0).putLong(phoff).putLong(shoff);
      } else {
        h.putInt(0).putInt((int) phoff).putInt((int) shoff);
      }
      h.putInt(0)
          .putShort((short) headerSize())
          .putShort((short) phentsize())
          .putShort((short) segs.size())
          .putShort((short) shentsize)
          .putShort((short) shnum)
          .putShort((short) (shnum - 1));
      put(ch, h, 0);
      for (int i = 0; i < segs.size(); i++) {
        Seg s = segs.get(i);
        ByteBuffer p = ByteBuffer.allocate(phentsize()).order(order);
        if (is64) {
          p.putInt(s.type())
              .putInt(s.flags())
              .putLong(s.offset())
              .putLong(s.vaddr())
              .putLong(s.vaddr())
              .putLong(s.filesz())
              .putLong(s.memsz())
              .putLong(s.align());
        } else {
          p.putInt(s.type())
              .putInt((int) s.offset())
              .putInt((int) s.vaddr())
              .putInt((int) s.vaddr())
              .putInt((int) s.filesz())
              .putInt((int) s.memsz())
              .putInt(s.flags())
              .putInt((int) s.align());
        }
        put(ch, p, headerSize() + (long) i * phentsize());
      }
      for (Sec s : secs) {
        if (s.data() != null && s.type() != ElfSection.SHT_NOBITS) {
          put(ch, ByteBuffer.wrap(s.data()), s.offset());
        }
      }
      put(ch, ByteBuffer.wrap(shstr), shstrOffset);
      List<Sec> all = new ArrayList<>();
      all.add(new Sec("", 0, 0, 0, 0, 0, null, 0, 0, 0, 0));
      all.addAll(secs);
      all.add(
          new Sec(
              ".shstrtab",
              ElfSection.SHT_STRTAB,
              0,
              0,
              shstrOffset,
              shstr.length,
              shstr,
              0,
              0,
              1,
              0));
      for (int i = 0; i < all.size(); i++) {
        Sec s = all.get(i);
        int name = i == 0 ? 0 : i == all.size() - 1 ? shstrName : nameOffsets.get(i - 1);
        ByteBuffer b = ByteBuffer.allocate(shentsize).order(order);
        if (is64) {
          b.putInt(name)
              .putInt(s.type())
              .putLong(s.flags())
              .putLong(s.addr())
              .putLong(s.offset())
              .putLong(s.size())
              .putInt(s.link())
              .putInt(s.info())
              .putLong(s.align())
              .putLong(s.entsize());
        } else {
          b.putInt(name)
              .putInt(s.type())
              .putInt((int) s.flags())
              .putInt((int) s.addr())
              .putInt((int) s.offset())
              .putInt((int) s.size())
              .putInt(s.link())
              .putInt(s.info())
              .putInt((int) s.align())
              .putInt((int) s.entsize());
        }
        put(ch, b, shoff + (long) i * shentsize);
      }
    }
  }

  private static void put(FileChannel ch, ByteBuffer b, long at) throws IOException {
    b.rewind();
    long pos = at;
    while (b.hasRemaining()) {
      pos += ch.write(b, pos);
    }
  }
}
