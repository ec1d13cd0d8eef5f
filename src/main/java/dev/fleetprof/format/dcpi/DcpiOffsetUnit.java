package dev.fleetprof.format.dcpi;

import java.util.Locale;

/**
 * The unit of a major-version-0 chunk's {@code offset}; the dcpiformat(4) page does not name it.
 *
 * <p>Alpha instructions are 4 bytes long and 4-byte aligned. A chunk {@code (offset, number, count
 * x number)} holds one count per instruction address, so {@code number} is a number of instructions
 * in both readings; the readings differ only in how {@code offset} is scaled:
 *
 * <ul>
 *   <li>{@link #BYTES} (the default): {@code address(i) = tstart + offset + 4 i}, range end in
 *       bytes {@code offset + 4 number};
 *   <li>{@link #INSTRUCTIONS}: {@code address(i) = tstart + 4 (offset + i)}, range end in bytes
 *       {@code 4 (offset + number)}.
 * </ul>
 *
 * <p><b>Why {@code BYTES} is the default.</b> The page says "the beginning of the address range is
 * text_start(image) + &lt;offset&gt;": the offset is added, unscaled, to an address, and addresses
 * are byte addresses. The header's {@code tsize}, the only other size the format records for the
 * same text, is "bytes of text", so a byte offset lives in the same space as {@code tsize} ({@code
 * 0 <= offset < tsize}) without any conversion the page would have had to mention. The page then
 * calls {@code number} "the length of the address range" and, in the same breath, "the number of
 * &lt;count&gt; entries", with "the ith address in the address range" getting the ith count: {@code
 * number} counts addresses (instructions), which is why a per-instruction stride of 4 applies to
 * {@code i} but no factor is written next to {@code offset}. Nothing in the page multiplies {@code
 * offset} by 4, which the instruction-unit reading would require.
 *
 * <p>The choice is checked against the data: with {@code BYTES} an offset that is not a multiple of
 * 4 (no Alpha instruction starts there) is an error, and with either unit a range whose end (in
 * bytes) exceeds {@code tsize} is an error whose message suggests the other unit.
 */
public enum DcpiOffsetUnit {
  /**
   * {@code offset} is a byte distance from {@code tstart}; counts are 4 bytes apart. The default.
   */
  BYTES,
  /** {@code offset} is an instruction index from {@code tstart}; counts are 4 bytes apart. */
  INSTRUCTIONS;

  /** The default unit, see the class comment. */
  public static final DcpiOffsetUnit DEFAULT = BYTES;

  /** Size in bytes of one Alpha instruction: the stride between consecutive counts of a chunk. */
  public static final int INSTRUCTION_BYTES = 4;

  /** Offset units covered by one instruction: 4 for {@link #BYTES}, 1 for {@link #INSTRUCTIONS}. */
  public long stride() {
    return this == BYTES ? INSTRUCTION_BYTES : 1;
  }

  /** Byte distance from {@code tstart} of the {@code i}th address of a chunk at {@code offset}. */
  public long byteOffset(long offset, long i) {
    return this == BYTES ? offset + INSTRUCTION_BYTES * i : INSTRUCTION_BYTES * (offset + i);
  }

  /** Byte distance from {@code tstart} of the end (exclusive) of a chunk's range. */
  public long rangeEndBytes(long offset, long number) {
    return byteOffset(offset, number);
  }

  /**
   * Offset (in this unit) just past a chunk's range: the smallest offset the next chunk may have.
   */
  public long rangeEndOffset(long offset, long number) {
    return offset + stride() * number;
  }

  /**
   * Parses an option value: {@code bytes} or {@code instructions} (case-insensitive; also {@code
   * byte}, {@code instruction}, {@code insn}).
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static DcpiOffsetUnit parse(String option) {
    if (option == null) {
      return DEFAULT;
    }
    switch (option.trim().toLowerCase(Locale.ROOT)) {
      case "bytes":
      case "byte":
        return BYTES;
      case "instructions":
      case "instruction":
      case "insn":
        return INSTRUCTIONS;
      default:
        throw new IllegalArgumentException(
            "DCPI offset unit must be 'bytes' (default) or 'instructions', got '" + option + "'");
    }
  }
}
