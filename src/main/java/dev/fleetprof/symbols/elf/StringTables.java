package dev.fleetprof.symbols.elf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** NUL-terminated strings in ELF string tables, found in time linear in the table's size. */
final class StringTables {
  private StringTables() {}

  /** The distinct values of {@code offsets}, sorted (as unsigned; all are below 2^31 here). */
  static int[] sortedDistinct(int[] offsets) {
    int[] sorted = offsets.clone();
    Arrays.sort(sorted);
    int n = 0;
    for (int i = 0; i < sorted.length; i++) {
      if (i == 0 || sorted[i] != sorted[i - 1]) {
        sorted[n++] = sorted[i];
      }
    }
    return Arrays.copyOf(sorted, n);
  }

  /**
   * For each of the sorted distinct {@code starts} (each inside {@code table}), the index of the
   * NUL that ends the string there, or -1 when the table ends first. Scanning from the last start
   * down, each byte is looked at once: a string that reaches the next start ends where that one
   * does. (Scanning every start to its NUL would be quadratic for a table that lies.)
   */
  static int[] terminators(ByteBuffer table, int[] starts) {
    int n = starts.length;
    int[] ends = new int[n];
    int limit = table.limit();
    for (int i = n - 1; i >= 0; i--) {
      int stop = i + 1 < n ? starts[i + 1] : limit;
      int end = -2;
      for (int j = starts[i]; j < stop; j++) {
        if (table.get(j) == 0) {
          end = j;
          break;
        }
      }
      if (end == -2) {
        end = i + 1 < n ? ends[i + 1] : -1;
      }
      ends[i] = end;
    }
    return ends;
  }

  static String decode(ByteBuffer table, int start, int end) {
    byte[] bytes = new byte[end - start];
    table.get(start, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
