package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.dwarf.DwarfMalformedTest.Bytes;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Line programs with what compilers rarely emit, built here byte by byte and put into a real ELF
 * with objcopy, then checked against addr2line on every address: DWARF 3 and 5 headers, relative
 * and absolute include directories, absolute file names, DW_LNE_define_file, min_inst_length 4,
 * DW_LNS_const_add_pc and fixed_advance_pc, discriminators, several rows at one address, sequences
 * out of order and overlapping, DWARF 5 file entries as DW_FORM_string with data1/udata directory
 * indexes and MD5s, and the 0-based DWARF 5 file numbers.
 */
class DwarfLineProgramTest {
  @TempDir Path dir;

  /** A line program writer: header fields, then opcodes. */
  static final class Program {
    final int version;
    final int minInst;
    final int lineBase = -5;
    final int lineRange = 14;
    final int opcodeBase = 13;
    final Bytes ops = new Bytes();

    Program(int version, int minInst) {
      this.version = version;
      this.minInst = minInst;
    }

    Program setAddress(long a) {
      ops.u8(0).uleb(9).u8(2).u64(a);
      return this;
    }

    Program special(int addrAdvance, int lineAdvance) {
      int op = (lineAdvance - lineBase) + lineRange * addrAdvance + opcodeBase;
      if (lineAdvance < lineBase || lineAdvance >= lineBase + lineRange || op > 255) {
        throw new IllegalArgumentException(
            "no special opcode for " + addrAdvance + "/" + lineAdvance);
      }
      ops.u8(op);
      return this;
    }

    Program copy() {
      ops.u8(1);
      return this;
    }

    Program advancePc(long n) {
      ops.u8(2).uleb(n);
      return this;
    }

    Program advanceLine(long n) {
      ops.u8(3);
      // signed LEB128
      boolean more = true;
      while (more) {
        int b = (int) (n & 0x7f);
        n >>= 7;
        if ((n == 0 && (b & 0x40) == 0) || (n == -1 && (b & 0x40) != 0)) {
          more = false;
        } else {
          b |= 0x80;
        }
        ops.u8(b);
      }
      return this;
    }

    Program setFile(int f) {
      ops.u8(4).uleb(f);
      return this;
    }

    Program constAddPc() {
      ops.u8(8);
      return this;
    }

    Program fixedAdvancePc(int n) {
      ops.u8(9).u16(n);
      return this;
    }

    Program prologueEnd() {
      ops.u8(10);
      return this;
    }

    Program setIsa(int isa) {
      ops.u8(12).uleb(isa);
      return this;
    }

    Program discriminator(int d) {
      Bytes b = new Bytes().u8(4).uleb(d);
      ops.u8(0).uleb(b.size());
      ops.out.writeBytes(b.bytes());
      return this;
    }

    Program defineFile(String name, int dirIndex) {
      Bytes b = new Bytes().u8(3).str(name).uleb(dirIndex).uleb(0).uleb(0);
      ops.u8(0).uleb(b.size());
      ops.out.writeBytes(b.bytes());
      return this;
    }

    Program endSequence() {
      ops.u8(0).uleb(1).u8(1);
      return this;
    }

    /** The whole unit: header with {@code tables} (directory and file tables) and the opcodes. */
    byte[] bytes(byte[] tables) {
      Bytes h = new Bytes();
      h.u8(minInst);
      if (version >= 4) {
        h.u8(1);
      }
      h.u8(1).u8(lineBase & 0xff).u8(lineRange).u8(opcodeBase);
      for (int len : new int[] {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) {
        h.u8(len);
      }
      h.out.writeBytes(tables);
      byte[] header = h.bytes();
      Bytes body = new Bytes().u16(version);
      if (version >= 5) {
        body.u8(8).u8(0);
      }
      body.u32(header.length);
      body.out.writeBytes(header);
      body.out.writeBytes(ops.bytes());
      byte[] b = body.bytes();
      return DwarfMalformedTest.concat(new Bytes().u32(b.length).bytes(), b);
    }
  }

  @Test
  void quirkyLineProgramsAgreeWithAddr2line() throws Exception {
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("objcopy", "binutils");
    ExternalTool.require("as", "binutils");
    // A program with 512 bytes of code at a known place, and no debug information.
    Path s = dir.resolve("code.s");
    Files.writeString(
        s,
        ".text\n.globl _start\n.type _start,@function\n_start:\n"
            + ".fill 256,1,0x90\n.size _start,256\n.globl second\n.type second,@function\nsecond:\n"
            + ".fill 256,1,0x90\n.size second,256\n");
    Toolchain.run(dir, List.of("as", s.toString(), "-o", dir.resolve("code.o").toString()));
    Path plain = dir.resolve("plain");
    Toolchain.run(
        dir,
        List.of("ld", "-Ttext=0x401000", dir.resolve("code.o").toString(), "-o", plain.toString()));
    long base = 0x401000;

    // Unit A: DWARF 3 line table, min_inst_length 4.
    Bytes tablesA = new Bytes();
    tablesA.str("rel/dir").str("/abs/dir").u8(0);
    tablesA.str("a.c").uleb(0).uleb(0).uleb(0);
    tablesA.str("b.h").uleb(1).uleb(0).uleb(0);
    tablesA.str("c.h").uleb(2).uleb(0).uleb(0);
    tablesA.str("/root/d.h").uleb(1).uleb(0).uleb(0);
    tablesA.u8(0);
    Program a = new Program(3, 4);
    a.setAddress(base).advanceLine(9).copy(); // 0x401000 a.c:10
    a.special(1, 1); // +4: a.c:11
    a.setFile(2).special(1, 5); // +4: b.h:16
    a.discriminator(3).special(2, 0); // +8, discriminator
    a.copy(); // a second row at the same address: the last one counts
    a.setFile(3).advanceLine(-6).special(0, 0); // same address again, c.h:10
    a.setFile(4).constAddPc().special(0, 2); // const_add_pc: +17*4
    a.fixedAdvancePc(6).setFile(1).advanceLine(30).copy(); // +6 bytes, a.c:42
    a.defineFile("e.h", 2).setFile(5).special(3, -3); // defined file 5
    a.setFile(9).special(2, 1); // a file number that does not exist
    a.prologueEnd().setIsa(1).special(4, 1);
    a.advancePc(4).endSequence(); // ends at 0x401000 + ...
    // A second sequence, out of address order and overlapping the end of the first.
    a.setAddress(base + 0x60).setFile(1).advanceLine(99).copy();
    a.special(2, 1).special(2, 1).advancePc(2).endSequence();
    // A sequence nested inside the first: dropped.
    a.setAddress(base + 0x10).advanceLine(500).copy().special(1, 1).endSequence();
    byte[] lineA = a.bytes(tablesA.bytes());

    // Unit B: DWARF 5 line table, DW_FORM_string entries, data1 and udata directory numbers,
    // MD5s, file 0 the primary file.
    Bytes tablesB = new Bytes();
    tablesB.u8(1).uleb(1).uleb(Dw.FORM_string); // directories: path string
    tablesB.uleb(3).str("/cb").str("sub").str("/other");
    tablesB
        .u8(3)
        .uleb(1)
        .uleb(Dw.FORM_string)
        .uleb(2)
        .uleb(Dw.FORM_udata)
        .uleb(5)
        .uleb(Dw.FORM_data16);
    tablesB.uleb(4);
    String[][] files = {{"main.c", "0"}, {"main.c", "0"}, {"x.h", "1"}, {"y.h", "2"}};
    for (String[] f : files) {
      tablesB.str(f[0]).uleb(Integer.parseInt(f[1]));
      for (int i = 0; i < 16; i++) {
        tablesB.u8(i);
      }
    }
    Program b = new Program(5, 1);
    b.setAddress(base + 0x100).advanceLine(4).copy(); // file 1 = main.c (file register starts at 1)
    b.setFile(2).special(8, 3);
    b.setFile(0).special(8, 1); // file 0: also main.c
    b.setFile(3).special(8, 4);
    b.setFile(7).special(8, 1); // out of range
    b.advancePc(0x40).endSequence();
    byte[] lineB = b.bytes(tablesB.bytes());

    byte[] line = DwarfMalformedTest.concat(lineA, lineB);
    Bytes abbrev = new Bytes();
    abbrev
        .uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_name)
        .uleb(Dw.FORM_string)
        .uleb(Dw.AT_comp_dir)
        .uleb(Dw.FORM_string)
        .uleb(Dw.AT_language)
        .uleb(Dw.FORM_data1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data4)
        .uleb(0)
        .uleb(0);
    abbrev
        .uleb(2)
        .uleb(Dw.TAG_subprogram)
        .u8(0)
        .uleb(Dw.AT_name)
        .uleb(Dw.FORM_string)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data4)
        .uleb(0)
        .uleb(0);
    abbrev.uleb(0);
    Bytes info = new Bytes();
    info.out.writeBytes(unit("a.c", "/ca", 0, base, 0x100, "fa", 0x80));
    info.out.writeBytes(unit("main.c", "/cb", lineA.length, base + 0x100, 0x100, "fb", 0x100));

    Path bin = dir.resolve("lines");
    Path lineFile = dir.resolve("line.bin");
    Path infoFile = dir.resolve("info.bin");
    Path abbrevFile = dir.resolve("abbrev.bin");
    Files.write(lineFile, line);
    Files.write(infoFile, info.bytes());
    Files.write(abbrevFile, abbrev.bytes());
    Toolchain.run(
        dir,
        List.of(
            "objcopy",
            "--add-section",
            ".debug_info=" + infoFile,
            "--add-section",
            ".debug_abbrev=" + abbrevFile,
            "--add-section",
            ".debug_line=" + lineFile,
            plain.toString(),
            bin.toString()));

    FunctionSymbols symbols = DwarfSymbolizerAddr2lineTest.functionSymbols(bin);
    DwarfSymbolizer sym = DwarfSymbolizer.build(Toolchain.dwarfSections(dir, bin), symbols);
    List<Long> addrs = new ArrayList<>();
    for (long x = base; x < base + 0x200; x++) {
      addrs.add(x);
    }
    List<Toolchain.Answer> want = Toolchain.addr2lineChains(dir, bin, addrs);
    int agree = 0;
    int withLine = 0;
    java.util.TreeSet<String> seen = new java.util.TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < addrs.size(); i++) {
      List<SourceLine> got =
          DwarfSymbolizerAddr2lineTest.addr2lineChain(sym, symbols, addrs.get(i));
      withLine += got.get(0).line() != 0 ? 1 : 0;
      seen.add(got.get(0).file() + ":" + got.get(0).line());
      if (got.equals(want.get(i).lines())) {
        agree++;
      } else if (problems.size() < 20) {
        problems.add(
            "0x"
                + Long.toHexString(addrs.get(i))
                + " addr2line: "
                + DwarfSymbolizerAddr2lineTest.show(want.get(i).lines())
                + "; ours: "
                + DwarfSymbolizerAddr2lineTest.show(got));
      }
    }
    System.out.printf(
        "hand-made line programs: %d of %d addresses agree with addr2line (%d with" + " a line)%n",
        agree, addrs.size(), withLine);
    System.out.println("file:line seen: " + seen);
    problems.forEach(System.out::println);
    assertTrue(
        seen.contains("/ca/rel/dir/b.h:16")
            && seen.contains("/root/d.h:12")
            && seen.contains("/abs/dir/e.h:39")
            && seen.contains("<unknown>:40")
            && seen.contains("/cb/sub/x.h:8"),
        "the quirks were exercised: " + seen);
    assertEquals(addrs.size(), agree, String.join("\n", problems));
    assertTrue(withLine > 100);
  }

  private static byte[] unit(
      String name,
      String compDir,
      int stmtList,
      long low,
      int size,
      String function,
      int functionSize) {
    Bytes d = new Bytes();
    d.uleb(1).str(name).str(compDir).u8(0x0c).u32(stmtList).u64(low).u32(size);
    d.uleb(2).str(function).u64(low).u32(functionSize);
    d.uleb(0);
    byte[] body = d.bytes();
    Bytes u = new Bytes();
    u.u32(2 + 4 + 1 + body.length).u16(4).u32(0).u8(8);
    u.out.writeBytes(body);
    return u.bytes();
  }
}
