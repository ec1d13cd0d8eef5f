package dev.fleetprof.symbols.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.symbols.testing.Toolchain;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and broken DWARF: truncated sections at many lengths, random corruption of a real
 * binary's sections, lying lengths, reference cycles, endless nesting, huge LEB128s. Every case
 * ends, within seconds, either in a {@link DwarfFormatException} that names a section or in a
 * symbolizer whose lookups return (possibly empty) chains; never another exception, an
 * OutOfMemoryError, a StackOverflowError or a hang.
 */
class DwarfMalformedTest {
  @TempDir Path dir;

  /** The sections of a real C++ program built with inlining. */
  private Map<String, byte[]> realSections(List<Long> addrsOut) throws Exception {
    ExternalTool.require("g++", "g++");
    ExternalTool.require("objcopy", "binutils");
    Toolchain.copyResources("dwarf/cpp", dir.resolve("cpp"), "main.cpp", "include/shapes.hpp");
    Path bin = dir.resolve("prog");
    Toolchain.run(
        dir,
        List.of(
            "g++",
            "-O2",
            "-g",
            "-I" + dir.resolve("cpp/include"),
            dir.resolve("cpp/main.cpp").toString(),
            "-o",
            bin.toString()));
    DwarfSections s = Toolchain.dwarfSections(dir, bin);
    Map<String, byte[]> out = new HashMap<>();
    for (String n : DwarfSections.NAMES) {
      ByteBuffer b = s.section(n);
      if (b != null) {
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        out.put(n, bytes);
      }
    }
    List<Long> all = Toolchain.instructionAddresses(dir, bin, 0);
    for (int i = 0; i < all.size(); i += Math.max(1, all.size() / 300)) {
      addrsOut.add(all.get(i));
    }
    return out;
  }

  private static DwarfSections sections(Map<String, byte[]> m) {
    Map<String, ByteBuffer> b = new HashMap<>();
    m.forEach((k, v) -> b.put(k, ByteBuffer.wrap(v)));
    return DwarfSections.of(b, ByteOrder.LITTLE_ENDIAN);
  }

  /** Builds and looks up; returns "ok", or the exception's section when it was refused. */
  private static String survive(Map<String, byte[]> m, List<Long> addrs) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          DwarfSymbolizer s;
          try {
            s = DwarfSymbolizer.build(sections(m));
          } catch (DwarfFormatException e) {
            assertTrue(e.section().startsWith(".debug_"), e.getMessage());
            assertTrue(e.offset() >= 0, e.getMessage());
            return e.section();
          }
          for (long a : addrs) {
            s.lookup(a);
          }
          return "ok";
        });
  }

  @Test
  void truncatedSectionsAtManyLengths() throws Exception {
    List<Long> addrs = new ArrayList<>();
    Map<String, byte[]> real = realSections(addrs);
    assertEquals("ok", survive(real, addrs));
    int cases = 0;
    int refused = 0;
    for (String name : real.keySet()) {
      byte[] full = real.get(name);
      List<Integer> lengths = new ArrayList<>();
      for (int n = 0; n < Math.min(64, full.length); n++) {
        lengths.add(n);
      }
      for (int n = 64; n < full.length; n += Math.max(1, full.length / 60)) {
        lengths.add(n);
      }
      lengths.add(full.length - 1);
      for (int n : lengths) {
        Map<String, byte[]> m = new HashMap<>(real);
        m.put(name, java.util.Arrays.copyOf(full, Math.max(0, n)));
        refused += survive(m, addrs).equals("ok") ? 0 : 1;
        cases++;
      }
    }
    System.out.println(
        "truncations: "
            + cases
            + " cases, "
            + refused
            + " refused with a"
            + " DwarfFormatException, the rest symbolized without error");
    assertTrue(refused > 0);
  }

  @Test
  void randomCorruption() throws Exception {
    List<Long> addrs = new ArrayList<>();
    Map<String, byte[]> real = realSections(addrs);
    Random rnd = new Random(42);
    String[] targets = {
      ".debug_info",
      ".debug_abbrev",
      ".debug_line",
      ".debug_rnglists",
      ".debug_str_offsets",
      ".debug_addr"
    };
    int refused = 0;
    int cases = 0;
    for (int i = 0; i < 400; i++) {
      String name = targets[i % targets.length];
      byte[] full = real.get(name);
      if (full == null || full.length == 0) {
        continue;
      }
      byte[] copy = full.clone();
      int flips = 1 + rnd.nextInt(8);
      for (int k = 0; k < flips; k++) {
        int at = rnd.nextInt(copy.length);
        copy[at] = (byte) (rnd.nextInt(4) == 0 ? 0xff : rnd.nextInt(256));
      }
      Map<String, byte[]> m = new HashMap<>(real);
      m.put(name, copy);
      refused += survive(m, addrs).equals("ok") ? 0 : 1;
      cases++;
    }
    System.out.println("corruptions: " + cases + " cases, " + refused + " refused");
  }

  @Test
  void lyingUnitLengths() throws Exception {
    List<Long> addrs = new ArrayList<>();
    Map<String, byte[]> real = realSections(addrs);
    byte[] info = real.get(".debug_info");
    long[] lies = {
      0,
      1,
      2,
      0x7fffffffL,
      0xfffffff0L,
      0xfffffffeL,
      info.length,
      info.length - 3,
      info.length + 100
    };
    for (long lie : lies) {
      byte[] copy = info.clone();
      ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(0, (int) lie);
      Map<String, byte[]> m = new HashMap<>(real);
      m.put(".debug_info", copy);
      survive(m, addrs);
    }
    // A 64-bit length that is absurdly large.
    byte[] copy = new byte[info.length + 8];
    ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0xffffffff).putLong(4, Long.MAX_VALUE);
    Map<String, byte[]> m = new HashMap<>(real);
    m.put(".debug_info", copy);
    assertEquals(".debug_info", survive(m, addrs));
  }

  // ------------------------------------------------------- synthetic DWARF

  /** A little-endian byte writer for hand-made sections. */
  static final class Bytes {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Bytes u8(int v) {
      out.write(v);
      return this;
    }

    Bytes u16(int v) {
      return u8(v & 0xff).u8(v >>> 8 & 0xff);
    }

    Bytes u32(long v) {
      return u16((int) (v & 0xffff)).u16((int) (v >>> 16 & 0xffff));
    }

    Bytes u64(long v) {
      return u32(v & 0xffffffffL).u32(v >>> 32);
    }

    Bytes uleb(long v) {
      do {
        int b = (int) (v & 0x7f);
        v >>>= 7;
        u8(v != 0 ? b | 0x80 : b);
      } while (v != 0);
      return this;
    }

    Bytes str(String s) {
      for (byte c : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
        u8(c);
      }
      return u8(0);
    }

    int size() {
      return out.size();
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }

  /** A DWARF 4 line program: one file, one sequence [0x1000, 0x1100) at line 10. */
  static byte[] lineProgram() {
    Bytes body = new Bytes();
    body.u16(4);
    Bytes header = new Bytes();
    header.u8(1).u8(1).u8(1).u8(-5 & 0xff).u8(14).u8(13);
    for (int len : new int[] {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) {
      header.u8(len);
    }
    header.u8(0); // no include directories
    header.str("a.c").uleb(0).uleb(0).uleb(0).u8(0);
    byte[] h = header.bytes();
    body.u32(h.length);
    body.out.writeBytes(h);
    body.u8(0).uleb(9).u8(2).u64(0x1000); // DW_LNE_set_address
    body.u8(3).uleb(9); // advance_line 9 -> 10
    body.u8(1); // copy
    body.u8(2).uleb(0x100); // advance_pc
    body.u8(0).uleb(1).u8(1); // end_sequence
    byte[] b = body.bytes();
    return new Bytes().u32(b.length).bytes().length == 4
        ? concat(new Bytes().u32(b.length).bytes(), b)
        : null;
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /**
   * A DWARF 4 unit: a compile unit with a line table, and the DIEs {@code dies} writes (their
   * offsets in the unit start at 11 + the root DIE's size, which {@link #ROOT_DIE_SIZE} gives).
   */
  static Map<String, byte[]> unit(byte[] abbrevs, java.util.function.Consumer<Bytes> dies) {
    Bytes d = new Bytes();
    // Root DIE: abbrev 1 = compile_unit, stmt_list(sec_offset), low_pc(addr), high_pc(data8).
    d.uleb(1).u32(0).u64(0x1000).u64(0x100);
    dies.accept(d);
    byte[] body = d.bytes();
    Bytes info = new Bytes();
    info.u32(2 + 4 + 1 + body.length).u16(4).u32(0).u8(8);
    info.out.writeBytes(body);
    Map<String, byte[]> m = new HashMap<>();
    m.put(".debug_info", info.bytes());
    m.put(".debug_abbrev", abbrevs);
    m.put(".debug_line", lineProgram());
    return m;
  }

  static final int ROOT_DIE_OFFSET = 11;
  static final int ROOT_DIE_SIZE = 1 + 4 + 8 + 8;

  /**
   * Abbrevs: 1 root; 2 subprogram with code and a specification; 3 declaration with one; 4
   * declaration with a name only.
   */
  static byte[] abbrevsWithSpecification() {
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(2)
        .uleb(Dw.TAG_subprogram)
        .u8(0)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(Dw.AT_specification)
        .uleb(Dw.FORM_ref4)
        .uleb(0)
        .uleb(0);
    a.uleb(3)
        .uleb(Dw.TAG_subprogram)
        .u8(0)
        .uleb(Dw.AT_name)
        .uleb(Dw.FORM_string)
        .uleb(Dw.AT_specification)
        .uleb(Dw.FORM_ref4)
        .uleb(0)
        .uleb(0);
    a.uleb(4).uleb(Dw.TAG_subprogram).u8(0).uleb(Dw.AT_name).uleb(Dw.FORM_string).uleb(0).uleb(0);
    a.uleb(0);
    return a.bytes();
  }

  @Test
  void wellFormedSyntheticUnitWorks() throws Exception {
    int first = ROOT_DIE_OFFSET + ROOT_DIE_SIZE;
    int decl = first + 1 + 8 + 8 + 4;
    Map<String, byte[]> m =
        unit(
            abbrevsWithSpecification(),
            d -> {
              d.uleb(2).u64(0x1000).u64(0x100).u32(decl);
              d.uleb(4).str("f");
              d.uleb(0);
            });
    DwarfSymbolizer s =
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> DwarfSymbolizer.build(sections(m)));
    assertEquals("f", s.lookup(0x1010).get(0).function());
  }

  @Test
  void sectionsThroughAReaderThatMayFail() throws Exception {
    int first = ROOT_DIE_OFFSET + ROOT_DIE_SIZE;
    int decl = first + 1 + 8 + 8 + 4;
    Map<String, byte[]> m =
        unit(
            abbrevsWithSpecification(),
            d -> {
              d.uleb(2).u64(0x1000).u64(0x100).u32(decl);
              d.uleb(4).str("g");
              d.uleb(0);
            });
    DwarfSections read =
        DwarfSections.read(
            name -> m.containsKey(name) ? ByteBuffer.wrap(m.get(name)) : null,
            ByteOrder.LITTLE_ENDIAN,
            32);
    assertEquals(32, read.elfClass());
    // A 32-bit binary: the high bits of a lookup address are dropped, as addr2line drops them.
    assertEquals("g", DwarfSymbolizer.build(read).lookup(0x1_0000_1010L).get(0).function());
    java.io.IOException failure = new java.io.IOException("disk on fire");
    assertEquals(
        failure,
        assertThrows(
            java.io.IOException.class,
            () ->
                DwarfSections.read(
                    name -> {
                      throw failure;
                    },
                    ByteOrder.LITTLE_ENDIAN,
                    64)));
  }

  @Test
  void specificationCyclesAreRefused() {
    int first = ROOT_DIE_OFFSET + ROOT_DIE_SIZE;
    int b = first + 1 + 8 + 8 + 4;
    int c = b + 1 + 2 + 4;
    // A -> B -> C -> B: binutils gives up after 100 hops; so do we, with an exception.
    Map<String, byte[]> m =
        unit(
            abbrevsWithSpecification(),
            d -> {
              d.uleb(2).u64(0x1000).u64(0x100).u32(b);
              d.uleb(3).str("b").u32(c);
              d.uleb(3).str("c").u32(b);
              d.uleb(0);
            });
    DwarfFormatException e =
        assertThrows(
            DwarfFormatException.class,
            () ->
                assertTimeoutPreemptively(
                    Duration.ofSeconds(5), () -> DwarfSymbolizer.build(sections(m))));
    assertEquals(".debug_info", e.section());
    // A DIE that names itself.
    Map<String, byte[]> self =
        unit(
            abbrevsWithSpecification(),
            d -> {
              d.uleb(2).u64(0x1000).u64(0x100).u32(b);
              d.uleb(3).str("b").u32(b);
              d.uleb(0);
            });
    assertThrows(DwarfFormatException.class, () -> DwarfSymbolizer.build(sections(self)));
  }

  @Test
  void dwzSupplementaryReferencesAreSkipped() throws Exception {
    // DW_FORM_GNU_ref_alt and DW_FORM_GNU_strp_alt point into a dwz file this layer does not
    // have: the names are left out (printed as ??), the rest of the chain stays.
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(2)
        .uleb(Dw.TAG_subprogram)
        .u8(1)
        .uleb(Dw.AT_name)
        .uleb(Dw.FORM_GNU_strp_alt)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(3)
        .uleb(Dw.TAG_inlined_subroutine)
        .u8(0)
        .uleb(Dw.AT_abstract_origin)
        .uleb(Dw.FORM_GNU_ref_alt)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(Dw.AT_call_file)
        .uleb(Dw.FORM_data1)
        .uleb(Dw.AT_call_line)
        .uleb(Dw.FORM_data1)
        .uleb(0)
        .uleb(0);
    a.uleb(0);
    Map<String, byte[]> m =
        unit(
            a.bytes(),
            d -> {
              d.uleb(2).u32(0x1234).u64(0x1000).u64(0x100);
              d.uleb(3).u32(0x5678).u64(0x1010).u64(0x10).u8(1).u8(77);
              d.uleb(0);
              d.uleb(0);
            });
    DwarfSymbolizer s = DwarfSymbolizer.build(sections(m));
    List<dev.fleetprof.symbols.SourceLine> chain = s.lookup(0x1014);
    assertEquals(2, chain.size());
    assertEquals("??", chain.get(0).function());
    assertEquals(10, chain.get(0).line());
    assertEquals("??", chain.get(1).function());
    assertEquals(77, chain.get(1).line());
    assertTrue(chain.get(1).file().endsWith("a.c"));
  }

  @Test
  void endlessNestingDoesNotOverflowTheStack() throws Exception {
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(2)
        .uleb(Dw.TAG_inlined_subroutine)
        .u8(1)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(0);
    int depth = 200_000;
    Map<String, byte[]> m =
        unit(
            a.bytes(),
            d -> {
              for (int i = 0; i < depth; i++) {
                d.uleb(2).u64(0x1000).u64(0x100);
              }
              for (int i = 0; i <= depth; i++) {
                d.uleb(0);
              }
            });
    DwarfSymbolizer s =
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> DwarfSymbolizer.build(sections(m)));
    // Every level is an inlined instance of the same range: the innermost wins, and the chain
    // walks all the way out.
    assertEquals(depth, s.lookup(0x1000).size());
    // Unterminated: the tree runs past the unit's end.
    Map<String, byte[]> open =
        unit(
            a.bytes(),
            d -> {
              for (int i = 0; i < 1000; i++) {
                d.uleb(2).u64(0x1000).u64(0x100);
              }
            });
    assertThrows(DwarfFormatException.class, () -> DwarfSymbolizer.build(sections(open)));
  }

  @Test
  void hugeLeb128sEndAtTheData() {
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(2)
        .uleb(Dw.TAG_variable)
        .u8(0)
        .uleb(Dw.AT_const_value)
        .uleb(Dw.FORM_udata)
        .uleb(0)
        .uleb(0);
    a.uleb(0);
    // A 1 MB LEB128 that is terminated, then one that never is.
    Map<String, byte[]> m =
        unit(
            a.bytes(),
            d -> {
              d.uleb(2);
              for (int i = 0; i < 1_000_000; i++) {
                d.u8(0xff);
              }
              d.u8(0x01);
              d.uleb(0);
            });
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> DwarfSymbolizer.build(sections(m)));
    Map<String, byte[]> open =
        unit(
            a.bytes(),
            d -> {
              d.uleb(2);
              for (int i = 0; i < 1_000_000; i++) {
                d.u8(0xff);
              }
            });
    DwarfFormatException e =
        assertThrows(DwarfFormatException.class, () -> DwarfSymbolizer.build(sections(open)));
    assertFalse(e.getMessage().isEmpty());
    // A block whose LEB128 length is 2^63: refused, nothing allocated for it.
    Bytes b = new Bytes();
    b.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    b.uleb(2)
        .uleb(Dw.TAG_variable)
        .u8(0)
        .uleb(Dw.AT_location)
        .uleb(Dw.FORM_exprloc)
        .uleb(0)
        .uleb(0);
    b.uleb(0);
    Map<String, byte[]> block = unit(b.bytes(), d -> d.uleb(2).uleb(Long.MIN_VALUE >>> 0).uleb(0));
    assertThrows(DwarfFormatException.class, () -> DwarfSymbolizer.build(sections(block)));
  }

  @Test
  void overlappingAbbreviationTablesAreRefusedQuickly() {
    // Every entry is a compile_unit abbreviation and none ends the table; unit k starts its table
    // at entry k: read naively, that is a quadratic amount of work.
    int n = 50_000;
    Bytes a = new Bytes();
    int[] offsets = new int[n];
    for (int k = 0; k < n; k++) {
      offsets[k] = a.size();
      a.uleb(k + 1)
          .uleb(Dw.TAG_compile_unit)
          .u8(0)
          .uleb(Dw.AT_language)
          .uleb(Dw.FORM_data1)
          .uleb(0)
          .uleb(0);
    }
    Bytes info = new Bytes();
    for (int k = 0; k < n; k++) {
      Bytes body = new Bytes().u16(4).u32(offsets[k]).u8(8).uleb(k + 1).u8(1);
      info.u32(body.size());
      info.out.writeBytes(body.bytes());
    }
    Map<String, byte[]> m = new HashMap<>();
    m.put(".debug_info", info.bytes());
    m.put(".debug_abbrev", a.bytes());
    DwarfFormatException e =
        assertThrows(
            DwarfFormatException.class,
            () ->
                assertTimeoutPreemptively(
                    Duration.ofSeconds(10), () -> DwarfSymbolizer.build(sections(m))));
    assertEquals(".debug_abbrev", e.section());
  }

  @Test
  void oneRangeListForManyFunctionsIsRefusedQuickly() {
    // 20,000 functions share one 4,000-entry .debug_ranges list: 80 million ranges.
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    a.uleb(2)
        .uleb(Dw.TAG_subprogram)
        .u8(0)
        .uleb(Dw.AT_ranges)
        .uleb(Dw.FORM_sec_offset)
        .uleb(0)
        .uleb(0);
    a.uleb(0);
    Map<String, byte[]> m =
        unit(
            a.bytes(),
            d -> {
              for (int i = 0; i < 20_000; i++) {
                d.uleb(2).u32(0);
              }
              d.uleb(0);
            });
    Bytes ranges = new Bytes();
    for (int i = 0; i < 4000; i++) {
      ranges.u64(0x1000 + 2 * i).u64(0x1001 + 2 * i);
    }
    ranges.u64(0).u64(0);
    m.put(".debug_ranges", ranges.bytes());
    assertThrows(
        DwarfFormatException.class,
        () ->
            assertTimeoutPreemptively(
                Duration.ofSeconds(10), () -> DwarfSymbolizer.build(sections(m))));
  }

  @Test
  void oneLineTableForManyUnitsIsDecodedOnce() throws Exception {
    // 5,000 units without ranges of their own share one large line table.
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(0)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(0)
        .uleb(0);
    a.uleb(0);
    Bytes info = new Bytes();
    for (int k = 0; k < 5000; k++) {
      info.u32(2 + 4 + 1 + 1 + 4).u16(4).u32(0).u8(8).uleb(1).u32(0);
    }
    DwarfLineProgramTest.Program p = new DwarfLineProgramTest.Program(4, 1);
    p.setAddress(0x1000).copy();
    for (int i = 0; i < 100_000; i++) {
      p.special(1, 1).special(1, -1);
    }
    p.endSequence();
    Bytes tables = new Bytes().u8(0).str("a.c").uleb(0).uleb(0).uleb(0).u8(0);
    Map<String, byte[]> m = new HashMap<>();
    m.put(".debug_info", info.bytes());
    m.put(".debug_abbrev", a.bytes());
    m.put(".debug_line", p.bytes(tables.bytes()));
    DwarfSymbolizer s =
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> DwarfSymbolizer.build(sections(m)));
    assertEquals("a.c", s.lookup(0x1001).get(0).file());
    assertEquals(2, s.lookup(0x1001).get(0).line());
  }

  @Test
  void abbreviationTablesThatNeverEnd() throws Exception {
    // Codes that repeat (a table running into the next), and a table with no terminator.
    Bytes a = new Bytes();
    a.uleb(1)
        .uleb(Dw.TAG_compile_unit)
        .u8(1)
        .uleb(Dw.AT_stmt_list)
        .uleb(Dw.FORM_sec_offset)
        .uleb(Dw.AT_low_pc)
        .uleb(Dw.FORM_addr)
        .uleb(Dw.AT_high_pc)
        .uleb(Dw.FORM_data8)
        .uleb(0)
        .uleb(0);
    for (int i = 0; i < 10_000; i++) {
      a.uleb(1).uleb(Dw.TAG_subprogram).u8(0).uleb(0).uleb(0);
    }
    Map<String, byte[]> m = unit(a.bytes(), d -> d.uleb(0));
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> DwarfSymbolizer.build(sections(m)));
    Bytes open = new Bytes();
    open.uleb(1).uleb(Dw.TAG_compile_unit).u8(1).uleb(Dw.AT_stmt_list).uleb(Dw.FORM_sec_offset);
    Map<String, byte[]> m2 = unit(open.bytes(), d -> d.uleb(0));
    assertThrows(DwarfFormatException.class, () -> DwarfSymbolizer.build(sections(m2)));
  }
}
