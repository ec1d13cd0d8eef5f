/**
 * Decoder for GNU gprof {@code gmon.out} files and the older BSD formats, in plain Java (no Spark).
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * GmonOptions options = GmonOptions.fromMap(sparkOptions);       // gmon.pointerSize, gmon.byteOrder, ...
 * try (GmonReader r = GmonFile.open(source, options)) {          // detects the layout, then streams
 *   while (r.next()) {
 *     switch (r.kind()) {
 *       case GmonReader.KIND_HISTOGRAM:   // pc(0) = bin start, r.binEnd() = bin end (exclusive)
 *         double seconds = r.count() / (double) r.profRate();  // in r.dimension() units
 *         break;
 *       case GmonReader.KIND_ARC:         // pc(0) = self_pc (callee), pc(1) = from_pc (call site)
 *       case GmonReader.KIND_BASIC_BLOCK: // pc(0) = block address
 *         break;
 *     }
 *   }
 * }
 * }</pre>
 *
 * <h2>Formats</h2>
 *
 * <ul>
 *   <li>GNU ({@link dev.fleetprof.format.gprof.GmonFlavor#GNU_V1}, {@code GNU_V0}): 20-byte header
 *       ({@code gmon}, version word, 12 spare bytes not validated), then tagged records in any
 *       order and number, without lengths or padding: 0 = histogram ({@code low_pc}, {@code
 *       high_pc} (P bytes each), {@code hist_size} = number of u16 bins (not bytes), {@code
 *       prof_rate}, 15-byte dimension, 1-byte abbreviation, bins); 1 = call arc ({@code from_pc},
 *       {@code self_pc}, u32 count); 2 = basic-block counts ({@code ncounts} of 4 bytes (gprof) or
 *       P bytes (glibc), then (address, count) pairs of P bytes each).
 *   <li>4.4BSD ({@code BSD_44}): {@code lpc hpc ncnt version(0x00051879) profrate spare[12]} (32 or
 *       40 bytes; {@code ncnt} counts the header too), u16 bins, then arcs {@code frompc selfpc
 *       count} (all P bytes) to the end of the file.
 *   <li>Old BSD ({@code BSD_OLD}): {@code lpc hpc ncnt} (12 or 20 bytes), bins, arcs. No rate is
 *       stored; rows report {@code gmon.oldBsdProfRate} (default 100 Hz, what gprof assumes on
 *       Linux).
 * </ul>
 *
 * <p>Neither the pointer size P nor the byte order is stored; see {@link
 * dev.fleetprof.format.gprof.GmonFile} for how they are detected and {@link
 * dev.fleetprof.format.gprof.GmonOptions} for how to force them. Addresses are kept exactly as
 * stored: glibc writes link-time (unrelocated) addresses, also for PIE executables, so they compare
 * across runs of one binary and match {@code nm} output. {@code gprof -s} re-keys arcs to function
 * start addresses. The decoder does not merge anything: repeated arcs and histograms with identical
 * ranges give one row each, and consumers sum them (as gprof does).
 */
package dev.fleetprof.format.gprof;
