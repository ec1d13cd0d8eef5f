package dev.fleetprof.symbols;

import dev.fleetprof.symbols.demangle.ItaniumDemangler;
import dev.fleetprof.symbols.dwarf.DwarfSections;
import dev.fleetprof.symbols.dwarf.DwarfSymbolizer;
import dev.fleetprof.symbols.elf.CallFrameIndex;
import dev.fleetprof.symbols.elf.ElfFile;
import dev.fleetprof.symbols.elf.ElfSection;
import dev.fleetprof.symbols.elf.ElfSymbol;
import dev.fleetprof.symbols.elf.SymbolTable;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one binary knows about its code: from a file offset (what a profile's frame holds) or a
 * link-time address (what gmon.out holds) to the inline chain, innermost first, as {@code addr2line
 * -f -i -C} prints it.
 *
 * <p>Two files may take part, as with gdb and pprof: the runtime binary, whose program headers turn
 * file offsets into addresses (a separate debug file made by {@code objcopy --only-keep-debug} has
 * load segments of file size 0 and rewritten offsets, so it cannot), and a debug file that holds
 * the DWARF and the full symbol table when the runtime binary was stripped. DWARF gives functions,
 * files, lines and inlined frames; where no DWARF unit covers an address, the ELF symbol that
 * contains it gives the function alone (file null, line 0; {@link SymbolTable#containing}: a symbol
 * names only the bytes it covers, as llvm-symbolizer decides it); where no symbol contains it, the
 * call-frame information ({@link CallFrameIndex}) gives the start of the function it is in, as the
 * boundary-only name {@code MODULE+0xSTART} (the module's file name, START the FDE's initial
 * location as a link-time virtual address); where none of these knows it, the chain is empty. Each
 * answer says which of these it came from ({@link SymbolizedAddress#source()}).
 *
 * <p>The DWARF index and the symbol table are built on the first lookup, once, the call-frame index
 * on the first lookup that needs it; lookups are thread-safe afterwards.
 */
public final class BinarySymbols implements Closeable {
  private final ElfFile runtime;
  private final ElfFile debug;
  private final String moduleName;
  private final Map<String, String> demangled = new ConcurrentHashMap<>();
  private volatile Tables tables;
  private IOException broken;
  private volatile CallFrameIndex callFrames;
  private IOException callFramesBroken;

  private record Tables(DwarfSymbolizer dwarf, SymbolTable symbols) {}

  /**
   * @param runtime the binary that ran (its program headers place file offsets)
   * @param debug a separate debug file for it, or null when the runtime binary is all there is
   */
  public BinarySymbols(ElfFile runtime, ElfFile debug) {
    this(runtime, debug, String.valueOf(runtime.path().getFileName()));
  }

  /**
   * @param runtime the binary that ran (its program headers place file offsets)
   * @param debug a separate debug file for it, or null when the runtime binary is all there is
   * @param moduleName the module's file name as the profile gives it (no folders), which
   *     boundary-only names start with
   */
  public BinarySymbols(ElfFile runtime, ElfFile debug, String moduleName) {
    this.runtime = runtime;
    this.debug = debug;
    this.moduleName = moduleName;
  }

  /** Whether {@code elf} holds DWARF debugging information of its own. */
  public static boolean hasDwarf(ElfFile elf) {
    for (String name : new String[] {".debug_info", ".zdebug_info"}) {
      Optional<ElfSection> s = elf.section(name);
      if (s.isPresent() && !s.get().isNobits() && s.get().size() > 0) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code elf} has a full symbol table ({@code .symtab}), not only {@code .dynsym}. */
  static boolean hasSymtab(ElfFile elf) {
    return elf.sections().stream().anyMatch(s -> s.name().equals(".symtab"));
  }

  public ElfFile runtime() {
    return runtime;
  }

  /** The separate debug file, or null. */
  public ElfFile debug() {
    return debug;
  }

  /**
   * The chain at a file offset in the runtime binary, as gperftools and pprof frames give it: the
   * offset becomes an address through the executable load segment that holds it. Empty when no load
   * segment holds it or nothing knows the address.
   */
  public List<SourceLine> atFileOffset(long fileOffset) throws IOException {
    return lookupFileOffset(fileOffset).lines();
  }

  /** The chain at a link-time (virtual) address, as symbol tables, DWARF and gmon.out use. */
  public List<SourceLine> atAddress(long vaddr) throws IOException {
    return lookupAddress(vaddr).lines();
  }

  /** As {@link #atFileOffset}, with where the names came from. */
  public SymbolizedAddress lookupFileOffset(long fileOffset) throws IOException {
    OptionalLong vaddr = runtime.fileOffsetToVaddr(fileOffset);
    return vaddr.isPresent() ? lookupAddress(vaddr.getAsLong()) : SymbolizedAddress.NONE;
  }

  /** As {@link #atAddress}, with where the names came from. */
  public SymbolizedAddress lookupAddress(long vaddr) throws IOException {
    Tables t = tables();
    if (t.dwarf() != null) {
      List<SourceLine> raw = t.dwarf().lookup(vaddr);
      if (!raw.isEmpty()) {
        List<SourceLine> out = new ArrayList<>(raw.size());
        for (SourceLine l : raw) {
          out.add(new SourceLine(demangle(l.symbol()), l.symbol(), l.file(), l.line()));
        }
        return new SymbolizedAddress(out, NameSource.DWARF);
      }
    }
    Optional<ElfSymbol> s = t.symbols().containing(vaddr);
    if (s.isPresent()) {
      String name = s.get().name();
      return new SymbolizedAddress(
          List.of(new SourceLine(demangle(name), name, null, 0)),
          t.symbols().source().equals(".symtab") ? NameSource.SYMTAB : NameSource.DYNSYM);
    }
    Optional<CallFrameIndex.Range> fde = callFrames().containing(vaddr);
    if (fde.isPresent()) {
      String name = moduleName + "+0x" + Long.toHexString(fde.get().start());
      return new SymbolizedAddress(List.of(new SourceLine(name, name, null, 0)), NameSource.CFI);
    }
    return SymbolizedAddress.NONE;
  }

  private CallFrameIndex callFrames() throws IOException {
    CallFrameIndex c = callFrames;
    if (c == null) {
      synchronized (this) {
        if (callFramesBroken != null) {
          throw new IOException(callFramesBroken.getMessage(), callFramesBroken);
        }
        c = callFrames;
        if (c == null) {
          try {
            c = CallFrameIndex.read(runtime);
          } catch (IOException | RuntimeException e) {
            // Only the addresses that need it fail: names from symbols stay available.
            callFramesBroken = e instanceof IOException io ? io : new IOException(e.toString(), e);
            throw callFramesBroken;
          }
          callFrames = c;
        }
      }
    }
    return c;
  }

  private String demangle(String raw) {
    return demangled.computeIfAbsent(raw, ItaniumDemangler::demangle);
  }

  private Tables tables() throws IOException {
    Tables t = tables;
    if (t == null) {
      synchronized (this) {
        if (broken != null) {
          throw new IOException(broken.getMessage(), broken);
        }
        t = tables;
        if (t == null) {
          try {
            t = build();
          } catch (IOException | RuntimeException e) {
            // Malformed symbols stay malformed: fail every later lookup at once, not by reading
            // the whole binary again.
            broken = e instanceof IOException io ? io : new IOException(e.toString(), e);
            throw broken;
          }
          tables = t;
        }
      }
    }
    return t;
  }

  private Tables build() throws IOException {
    // The runtime binary's .symtab, else the debug file's (strip keeps it there), else .dynsym.
    ElfFile symbolFile = !hasSymtab(runtime) && debug != null && hasSymtab(debug) ? debug : runtime;
    SymbolTable symbols = SymbolTable.read(symbolFile);
    ElfFile dwarfFile =
        debug != null && hasDwarf(debug) ? debug : hasDwarf(runtime) ? runtime : null;
    DwarfSymbolizer dwarf = null;
    if (dwarfFile != null) {
      ElfFile f = dwarfFile;
      // addr2line names a function DWARF leaves without a linkage name by its ELF symbol.
      dwarf =
          DwarfSymbolizer.build(
              DwarfSections.read(f::sectionData, f.order(), f.is64() ? 64 : 32),
              symbols.functionSymbols());
    }
    return new Tables(dwarf, symbols);
  }

  @Override
  public void close() throws IOException {
    try {
      runtime.close();
    } finally {
      if (debug != null) {
        debug.close();
      }
    }
  }
}
