package dev.fleetprof.jobs;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/** Session settings a run changes, and what they were before it. */
final class SessionSettings {
  private final SparkSession spark;
  private final Map<String, String> before = new LinkedHashMap<>();

  SessionSettings(SparkSession spark) {
    this.spark = spark;
  }

  void set(String key, String value) {
    if (!before.containsKey(key)) {
      before.put(key, spark.conf().contains(key) ? spark.conf().get(key) : null);
    }
    spark.conf().set(key, value);
  }

  /** Sets {@code key} for the run unless the session sets it itself (its own value wins). */
  void setUnlessSet(String key, String value) {
    if (!spark.conf().contains(key)) {
      set(key, value);
    }
  }

  void restore() {
    before.forEach(
        (key, value) -> {
          if (value == null) {
            spark.conf().unset(key);
          } else {
            spark.conf().set(key, value);
          }
        });
  }
}
