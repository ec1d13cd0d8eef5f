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
 * <p>Adding a format: see {@code docs/architecture.md}, "Adding a format".
 */
package dev.fleetprof.format;
