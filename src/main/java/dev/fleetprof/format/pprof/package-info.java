/**
 * pprof {@code profile.proto} files: {@link dev.fleetprof.format.pprof.PprofFormat} recognises one
 * by its structure, {@link dev.fleetprof.format.pprof.PprofReader} streams its samples after a
 * first pass has read its tables ({@link dev.fleetprof.format.pprof.PprofTables}). Parsed field by
 * field with protobuf-java's {@code CodedInputStream}, never into generated message objects, so
 * that memory is bounded by the tables and not by the samples.
 */
package dev.fleetprof.format.pprof;
