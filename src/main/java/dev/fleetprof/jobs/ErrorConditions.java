package dev.fleetprof.jobs;

import org.apache.spark.SparkThrowable;

/** The error condition of a Spark error (e.g. {@code FAILED_READ_FILE.NO_HINT}), on each Spark. */
final class ErrorConditions {
  private ErrorConditions() {}

  /**
   * The condition, or null. Asked by its Spark 3.5 name, {@code getErrorClass}: Spark 4 renamed it
   * {@code getCondition} and keeps the old name (deprecated) returning the new one; Spark 3.5 has
   * only the old one, and the jar is built for both.
   */
  @SuppressWarnings("deprecation")
  static String of(SparkThrowable error) {
    return error.getErrorClass();
  }
}
