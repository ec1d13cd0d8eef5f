package dev.fleetprof.spark;

import java.io.Serializable;

/**
 * What readers do with input they cannot read, resolved on the driver by {@link ReadOptions}: the
 * {@code mode} option and Spark's {@code ignoreCorruptFiles} / {@code ignoreMissingFiles} (read
 * option, else the session's {@code spark.sql.files.*} setting), plus the test-only fault hook.
 */
public record ProblemPolicy(
    ReadOptions.Mode mode,
    boolean ignoreCorruptFiles,
    boolean ignoreMissingFiles,
    long failFirstAttemptAfterRows)
    implements Serializable {}
