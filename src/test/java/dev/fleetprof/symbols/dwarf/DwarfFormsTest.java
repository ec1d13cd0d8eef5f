package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.testing.Toolchain;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DWARF forms and range-list kinds gcc does not emit, in hand-written assembly (test resources
 * dwarf/asm): a DWARF 5 object (strx1-4, addrx, implicit_const, indirect, rnglistx and every DW_RLE
 * kind, data16, ref_udata, ref_addr into the other object, a type unit) and a 64-bit DWARF 4 object
 * (.debug_ranges with a base address selection entry, ref1/ref8, high_pc as an address).
 *
 * <p>binutils 2.40 drops the DWARF 5 unit (it cannot read DW_RLE_base_addressx), so the reference
 * there is {@code llvm-symbolizer}, which names the outermost frame after the ELF symbol: that name
 * is checked against {@code llvm-dwarfdump --lookup} instead. addr2line is the reference for the
 * DWARF 4 unit. The same object assembled with DW_FORM_addrx1-4 and a loclistx attribute (which
 * LLVM 14 cannot read) must give the same answers.
 */
class DwarfFormsTest {
  @TempDir Path dir;

  @Test
  void handWrittenFormsAgreeWithLlvmAndBinutils() throws Exception {
    ExternalTool.require("as", "binutils");
    ExternalTool.require("ld", "binutils");
    ExternalTool.require("addr2line", "binutils");
    ExternalTool.require("llvm-symbolizer", "llvm");
    ExternalTool.require("llvm-dwarfdump", "llvm");
    Toolchain.copyResources("dwarf/asm", dir, "forms5.s", "forms4.s");
    String d = dir.toString() + "/";
    Toolchain.run(dir, List.of("as", "--gdwarf-5", d + "forms5.s", "-o", d + "a.o"));
    Toolchain.run(
        dir, List.of("as", "--gdwarf-5", "--defsym", "EXOTIC=1", d + "forms5.s", "-o", d + "ax.o"));
    Toolchain.run(dir, List.of("as", "--gdwarf-3", d + "forms4.s", "-o", d + "b.o"));
    Path bin = dir.resolve("syn");
    Path exotic = dir.resolve("synx");
    Toolchain.run(dir, List.of("ld", d + "a.o", d + "b.o", "-o", bin.toString()));
    Toolchain.run(dir, List.of("ld", d + "ax.o", d + "b.o", "-o", exotic.toString()));

    FunctionSymbols symbols = DwarfSymbolizerAddr2lineTest.functionSymbols(bin);
    DwarfSymbolizer sym = DwarfSymbolizer.build(Toolchain.dwarfSections(dir, bin), symbols);
    DwarfSymbolizer symx =
        DwarfSymbolizer.build(
            Toolchain.dwarfSections(dir, exotic),
            DwarfSymbolizerAddr2lineTest.functionSymbols(exotic));
    List<Long> addrs = Toolchain.instructionAddresses(dir, bin, 0);
    List<Toolchain.Section> text = Toolchain.sections(dir, bin);
    for (Toolchain.Section s : text) {
      if (s.name().equals(".text")) {
        addrs = new ArrayList<>();
        for (long a = s.addr(); a < s.addr() + s.size(); a++) {
          addrs.add(a);
        }
      }
    }

    // llvm-symbolizer, GNU style, one process.
    Path list = Toolchain.addressFile(dir, addrs);
    String llvmOut =
        Toolchain.sh(
            dir,
            "llvm-symbolizer --output-style=GNU -a -f -i --obj="
                + Toolchain.q(bin)
                + " < "
                + Toolchain.q(list));
    List<List<SourceLine>> llvm = Toolchain.parseChains(llvmOut);
    assertEquals(addrs.size(), llvm.size());
    List<Toolchain.Answer> binutils = Toolchain.addr2lineChains(dir, bin, addrs);

    int llvmAgree = 0;
    int namesAgree = 0;
    int exoticSame = 0;
    int v4 = 0;
    int v4Agree = 0;
    int inlined = 0;
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < addrs.size(); i++) {
      long a = addrs.get(i);
      List<SourceLine> got = sym.lookup(a);
      inlined += got.size() > 1 ? 1 : 0;
      // llvm-symbolizer names the outermost frame after the ELF symbol.
      List<SourceLine> forLlvm = new ArrayList<>(got);
      if (!forLlvm.isEmpty()) {
        SourceLine last = forLlvm.get(forLlvm.size() - 1);
        String elf = symbols.nearest(a).name();
        forLlvm.set(forLlvm.size() - 1, new SourceLine(elf, elf, last.file(), last.line()));
      }
      if (forLlvm.equals(llvm.get(i))) {
        llvmAgree++;
      } else if (problems.size() < 20) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + " llvm-symbolizer: "
                + DwarfSymbolizerAddr2lineTest.show(llvm.get(i))
                + "; ours (ELF outer name): "
                + DwarfSymbolizerAddr2lineTest.show(forLlvm));
      }
      String dwarfName = subprogramName(dir, bin, a);
      String ours = got.isEmpty() ? null : got.get(got.size() - 1).function();
      if (dwarfName != null && dwarfName.equals(ours)) {
        namesAgree++;
      } else if (problems.size() < 20) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + " llvm-dwarfdump subprogram "
                + dwarfName
                + ", ours "
                + ours);
      }
      if (got.equals(symx.lookup(a))) {
        exoticSame++;
      } else if (problems.size() < 20) {
        problems.add(
            "0x"
                + Long.toHexString(a)
                + " addrx1-4 build: "
                + DwarfSymbolizerAddr2lineTest.show(symx.lookup(a)));
      }
      if (symbols.nearest(a).name().startsWith("v4_")) {
        v4++;
        if (got.equals(binutils.get(i).lines())) {
          v4Agree++;
        } else if (problems.size() < 20) {
          problems.add(
              "0x"
                  + Long.toHexString(a)
                  + " addr2line: "
                  + DwarfSymbolizerAddr2lineTest.show(binutils.get(i).lines())
                  + "; ours: "
                  + DwarfSymbolizerAddr2lineTest.show(got));
        }
      }
    }
    System.out.printf(
        "hand-written forms: %d of %d addresses agree with llvm-symbolizer, %d"
            + " outermost names with llvm-dwarfdump, %d the same with addrx1-4; DWARF 4 unit: %d of %d"
            + " agree with addr2line; %d with inlined frames%n",
        llvmAgree, addrs.size(), namesAgree, exoticSame, v4Agree, v4, inlined);
    problems.forEach(System.out::println);
    assertEquals(addrs.size(), llvmAgree, String.join("\n", problems));
    assertEquals(addrs.size(), namesAgree, String.join("\n", problems));
    assertEquals(addrs.size(), exoticSame, String.join("\n", problems));
    assertEquals(v4, v4Agree, String.join("\n", problems));
    assertTrue(v4 > 0 && inlined > 0);
  }

  private static final Pattern ATTR =
      Pattern.compile(
          "DW_AT_(linkage_name|name|abstract_origin|specification)"
              + "\\s+\\((?:0x[0-9a-f]+ )?\"([^\"]*)\"\\)");

  private static final Pattern DIE = Pattern.compile("(?m)^(0x[0-9a-f]+):\\s+DW_TAG_(\\w+)");

  /**
   * The name llvm-dwarfdump gives the subprogram holding the address: --lookup names the innermost
   * DIE, --show-parents the subprogram around it.
   */
  private static String subprogramName(Path dir, Path bin, long a) throws Exception {
    String out =
        Toolchain.run(
            dir, List.of("llvm-dwarfdump", "--lookup=0x" + Long.toHexString(a), bin.toString()));
    String innermost = null;
    Matcher d = DIE.matcher(out);
    while (d.find()) {
      if (!d.group(2).equals("compile_unit")) {
        innermost = d.group(1);
      }
    }
    if (innermost == null) {
      return null;
    }
    out =
        Toolchain.run(
            dir,
            List.of(
                "llvm-dwarfdump", "--debug-info=" + innermost, "--show-parents", bin.toString()));
    String block = null;
    for (String b : out.split("\n\n")) {
      if (b.contains("DW_TAG_subprogram")) {
        block = b;
      }
    }
    if (block == null) {
      return null;
    }
    String linkage = null;
    String name = null;
    Matcher m = ATTR.matcher(block);
    while (m.find()) {
      if (m.group(1).equals("linkage_name")) {
        linkage = m.group(2);
      } else if (name == null) {
        name = m.group(2);
      }
    }
    return linkage != null ? linkage : name;
  }
}
