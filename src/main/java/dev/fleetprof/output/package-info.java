/**
 * Standard outputs for an aggregate of stacks, free of Spark so that a job's driver (or any program)
 * can stream a collected aggregate into the files profiling tools open: {@code pprof/} (gzipped
 * {@code profile.proto} for {@code go tool pprof}), {@code folded/} (FlameGraph/speedscope folded
 * stacks) and {@code flamegraph/} (a self-contained HTML page). The model is {@link
 * dev.fleetprof.output.Frame} (module + offset), {@link dev.fleetprof.output.WeightedStack} (frames
 * leaf first + a signed value) and {@link dev.fleetprof.output.ValueMeaning} (what the values count).
 */
package dev.fleetprof.output;
