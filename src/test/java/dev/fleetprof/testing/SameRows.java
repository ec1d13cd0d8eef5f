package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Two queries' rows compared as multisets in the test JVM: what {@code a.exceptAll(b).count() == 0}
 * both ways checks, with each query run once instead of twice (and no shuffle for the EXCEPT).
 */
public final class SameRows {
  private SameRows() {}

  /**
   * {@code actual} has the rows of {@code expected}, as multisets (what {@code EXCEPT ALL} both
   * ways checks), each query run once.
   */
  public static void assertSameRows(Dataset<Row> expected, Dataset<Row> actual, String what) {
    Map<Row, Long> missing = multiset(expected);
    Map<Row, Long> extra = new HashMap<>();
    for (Row r : actual.collectAsList()) {
      if (missing.merge(r, -1L, Long::sum) == 0) {
        missing.remove(r);
      }
    }
    missing.forEach(
        (r, n) -> {
          if (n < 0) {
            extra.put(r, -n);
          }
        });
    missing.values().removeIf(n -> n < 0);
    assertTrue(
        missing.isEmpty() && extra.isEmpty(),
        what + ": rows missing " + head(missing) + ", rows extra " + head(extra));
  }

  private static Map<Row, Long> multiset(Dataset<Row> query) {
    Map<Row, Long> out = new HashMap<>();
    for (Row r : query.collectAsList()) {
      out.merge(r, 1L, Long::sum);
    }
    return out;
  }

  private static String head(Map<Row, Long> rows) {
    return rows.size() + " " + rows.entrySet().stream().limit(5).toList();
  }
}
