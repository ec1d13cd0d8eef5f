/**
 * Standard outputs for an aggregate of stacks, free of Spark so that a job's driver (or any
 * program) can stream a collected aggregate into the files profiling tools open: {@code pprof/}
 * (gzipped {@code profile.proto} for {@code go tool pprof}), {@code folded/} (FlameGraph/speedscope
 * folded stacks) and {@code flamegraph/} (a self-contained HTML page). The model is {@link
 * dev.fleetprof.output.Frame} (module + offset, and the inline chain of {@link
 * dev.fleetprof.symbols.SourceLine}s once symbolized), {@link dev.fleetprof.output.WeightedStack}
 * (frames leaf first + a signed value) and {@link dev.fleetprof.output.ValueMeaning} (what the
 * values count). Every output shows a symbolized frame as its functions, inlined ones included, and
 * an unsymbolized one as {@code module+0xoffset}.
 */
package dev.fleetprof.output;
