/**
 * The jobs: main classes run locally by the scripts under {@code jobs/} (through {@code
 * jobs/lib/launch}) or with {@code spark-submit} on a cluster.
 *
 * <ul>
 *   <li>{@code jobs/fleet-aggregate}, {@link dev.fleetprof.jobs.FleetAggregate}: a day of a fleet's
 *       profiles in, Parquet datasets out (stacks, host stacks, locations, modules, functions,
 *       files), symbolized against the binaries given ({@link dev.fleetprof.jobs.Symbolization},
 *       {@link dev.fleetprof.jobs.HadoopBinaryFiles}) and measured in units ({@link
 *       dev.fleetprof.jobs.Measures}). {@link dev.fleetprof.jobs.FleetOutput} is the output's
 *       layout (a run directory per date, published by a pointer), {@link
 *       dev.fleetprof.jobs.DateLease} the one writer per date.
 *   <li>{@code jobs/symbolize}, {@link dev.fleetprof.jobs.SymbolizeOutput}: names an existing
 *       output's frames again, with binaries that arrived late.
 *   <li>{@code jobs/export-profile}, {@link dev.fleetprof.jobs.ExportProfile}: one aggregate of an
 *       output as pprof {@code profile.proto}, folded stacks or a flame graph ({@link
 *       dev.fleetprof.jobs.StandardOutputs}).
 *   <li>{@code jobs/sql}, {@link dev.fleetprof.jobs.SqlRunner}: Spark SQL statements over profiles
 *       and an output's datasets; its command line is {@link dev.fleetprof.jobs.SqlCommand}, its
 *       scripts are split by {@link dev.fleetprof.jobs.SqlStatements} and their variables replaced
 *       by {@link dev.fleetprof.jobs.SqlVariables}, the {@code fleet_*} views are {@link
 *       dev.fleetprof.jobs.FleetViews}, and {@link dev.fleetprof.jobs.ResultPrinter} prints the
 *       results as tables, JSON Lines or CSV. With {@code --remote} they run on a Spark Connect
 *       server's session ({@link dev.fleetprof.jobs.Sessions#connect}) instead of a local one.
 *   <li>{@code jobs/connect-server}, {@link dev.fleetprof.jobs.ConnectServerJob}: that server, a
 *       job's session with Spark Connect's plugin and this jar, warm for many queries.
 * </ul>
 *
 * <p>Every job parses its command line with {@link dev.fleetprof.jobs.CommandLines} (one usage and
 * exit code behaviour for all) and starts its session with {@link dev.fleetprof.jobs.Sessions} (the
 * cluster's settings under {@code spark-submit}, {@code conf/spark-defaults.conf} locally).
 */
package dev.fleetprof.jobs;
