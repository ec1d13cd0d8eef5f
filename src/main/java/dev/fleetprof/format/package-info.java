/**
 * The profile decoders: plain Java over a {@link dev.fleetprof.format.ByteSource}, no Spark.
 *
 * <p>{@link dev.fleetprof.format.ProfileFormats} lists every format; each is a {@link
 * dev.fleetprof.format.ProfileFormat} that recognises a file from its first bytes (a signature, or
 * for formats without one its structure) and opens a {@link
 * dev.fleetprof.format.ProfileRecordReader} over it. That reader is all the Spark source sees of a
 * format: kind, count, call chain (leaf first), record offset, period and unit, and the file's
 * mappings, which place each pc in a module.
 *
 * <h2>Adding a format</h2>
 *
 * <ol>
 *   <li>A package {@code format/<name>/} with the decoder (a {@code ProfileRecordReader}: no object
 *       per record; every length field bounded before anything is allocated for it; problems thrown
 *       as {@link dev.fleetprof.format.ProfileFormatException} with the file and byte offset) and a
 *       {@code ProfileFormat} naming its signature and options.
 *   <li>One line in {@link dev.fleetprof.format.ProfileFormats#ALL}. The {@code profile} source
 *       then detects, reads and reports the format (its rows, error rows, metrics, {@code format}
 *       option) with no change in {@code spark/}.
 *   <li>Only a format with columns no other format has (as gprof's {@code histogram}) adds them to
 *       the schema and a {@code FormatColumns} in {@code spark/}.
 * </ol>
 *
 * <p>Files are read whole, except gperftools CPU profiles, whose large files are split on record
 * boundaries ({@code gperftools/CpuProfileSplitReader}, planned by {@code dev.fleetprof.split}).
 */
package dev.fleetprof.format;
