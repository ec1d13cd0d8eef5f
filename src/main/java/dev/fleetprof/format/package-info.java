/**
 * The profile decoders: plain Java over a {@link dev.fleetprof.format.ByteSource}, no Spark.
 *
 * <p>{@link dev.fleetprof.format.ProfileFormats} lists every format (the built-in ones, then any
 * named in a {@code META-INF/services/dev.fleetprof.format.ProfileFormat} file); each is a {@link
 * dev.fleetprof.format.ProfileFormat} that recognises a file from its first bytes (a signature, or
 * for formats without one its structure) and opens a {@link
 * dev.fleetprof.format.ProfileRecordReader} over it. That reader is all the Spark source sees of a
 * format's records: kind, count, call chain (leaf first), record offset, period and unit, and the
 * file's mappings, which place each pc in a module.
 *
 * <p>What the layers above would otherwise have to know of a format, the format says itself, in
 * plain data, as pprof's legacy parsers each return a profile that carries its own sample and
 * period types: whether and how its large files split ({@link
 * dev.fleetprof.format.ProfileFormat#splits}, {@link
 * dev.fleetprof.format.ProfileFormat#splitLayout}, a small serializable {@link
 * dev.fleetprof.format.SplitLayout}, and {@link dev.fleetprof.format.ProfileFormat#openSplit}, as
 * Spark's file formats implement {@code isSplitable} and {@code buildReader}); which of the
 * source's columns only it fills; what its counts measure ({@link
 * dev.fleetprof.format.CountMeasure}); its caller frames; what its frames' offsets are for a
 * symbolizer ({@link dev.fleetprof.format.FrameAddresses}). {@code spark/} and {@code jobs/} ask
 * these, never for a format by name.
 *
 * <p>Adding a format: see {@code docs/architecture.md}, "Adding a format".
 */
package dev.fleetprof.format;
