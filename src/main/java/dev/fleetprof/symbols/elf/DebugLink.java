package dev.fleetprof.symbols.elf;

/**
 * The contents of a {@code .gnu_debuglink} section: where the separate debug file is, by name, and
 * the CRC-32 (as {@link java.util.zip.CRC32} computes it, over the whole debug file) that
 * identifies it.
 *
 * @param fileName the debug file's base name, e.g. {@code "prog.debug"}
 * @param crc32 the unsigned CRC-32 of the debug file, 0 to 0xffffffff
 */
public record DebugLink(String fileName, long crc32) {}
