package dev.fleetprof.output;

import dev.fleetprof.symbols.SourceLine;
import java.util.List;

/**
 * A small symbolized aggregate, built by hand, that the output tests write and check against the
 * real tools: a two-level inline chain (crc_step inlined into checksum inlined into process_block),
 * several offsets within one function (process_block, main), a C++ function with a mangled symbol,
 * a function without line information, and an unsymbolized library (its binary "not found") both as
 * a leaf and between two symbolized frames.
 */
public final class SymbolizedStacks {
  public static final String SERVER = "/usr/bin/fleet-server";
  public static final String LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  public static final String HANDLE = "Server::handle(Request const&)";
  public static final String HANDLE_SYMBOL = "_ZN6Server6handleERK7Request";

  private SymbolizedStacks() {}

  static SourceLine c(String function, String file, long line) {
    return new SourceLine(function, function, file, line);
  }

  /** main at one of its call sites (caller frames: return address minus one). */
  static Frame main(long offset, long line) {
    return new Frame(SERVER, offset, List.of(c("main", "/src/fleet/main.c", line)));
  }

  /** The leaf inside crc_step, inlined into checksum, inlined into process_block. */
  public static final Frame CRC =
      new Frame(
          SERVER,
          0x1234,
          List.of(
              c("crc_step", "/src/fleet/crc.h", 7),
              c("checksum", "/src/fleet/checksum.h", 20),
              c("process_block", "/src/fleet/block.c", 55)));

  public static final Frame BLOCK_60 =
      new Frame(SERVER, 0x1250, List.of(c("process_block", "/src/fleet/block.c", 60)));
  public static final Frame BLOCK_61 =
      new Frame(SERVER, 0x1258, List.of(c("process_block", "/src/fleet/block.c", 61)));
  public static final Frame HANDLE_CALL =
      new Frame(
          SERVER,
          0x2020,
          List.of(new SourceLine(HANDLE, HANDLE_SYMBOL, "/src/fleet/server.cc", 88)));

  /** A function the binary has a symbol but no line information for. */
  public static final Frame COMPARE =
      new Frame(SERVER, 0x3000, List.of(c("compare_keys", null, 0)));

  public static final Frame LIBC_LEAF = new Frame(LIBC, 0x9a0c0);
  public static final Frame LIBC_QSORT = new Frame(LIBC, 0x4a1f3);

  /** The aggregate, frames leaf first. */
  public static List<WeightedStack> stacks() {
    return List.of(
        new WeightedStack(List.of(CRC, main(0x1010, 12)), 30),
        new WeightedStack(List.of(BLOCK_60, main(0x1010, 12)), 20),
        new WeightedStack(List.of(BLOCK_61, main(0x1010, 12)), 5),
        new WeightedStack(List.of(LIBC_LEAF, HANDLE_CALL, main(0x1020, 13)), 7),
        new WeightedStack(List.of(COMPARE, LIBC_QSORT, main(0x1030, 14)), 3));
  }
}
