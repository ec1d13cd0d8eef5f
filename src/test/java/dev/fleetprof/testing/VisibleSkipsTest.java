package dev.fleetprof.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * A test class that skips itself in {@code @BeforeAll}, run through the JUnit Platform launcher as
 * surefire runs it: each of its tests is reported skipped with the reason, and the class itself
 * ends successfully (JUnit alone reports the class aborted and no test at all).
 */
class VisibleSkipsTest {
  /** Not a test of its own: the class a missing tool skips (static nested: not discovered). */
  static class NeedsAMissingTool {
    private static String tool;

    @BeforeAll
    static void findTool() {
      Assumptions.assumeTrue(false, "needs frobnicate on PATH (Debian package frobnicate)");
      tool = "frobnicate";
    }

    @AfterAll
    static void cleanUp() {
      // What a clean-up does with what the set-up never made.
      tool.length();
    }

    @Test
    void one() {}

    @Test
    void two() {}
  }

  @Test
  void testsOfAClassSkippedInBeforeAllAreSkippedWithTheReason() {
    Map<String, String> outcomes = new TreeMap<>();
    TestExecutionListener listener =
        new TestExecutionListener() {
          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            outcomes.put(id.getDisplayName(), "skipped: " + reason);
          }

          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            outcomes.put(id.getDisplayName(), result.getStatus().toString());
          }
        };
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(NeedsAMissingTool.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build(),
            listener);
    String reason =
        "skipped: Assumption failed: needs frobnicate on PATH (Debian package frobnicate)";
    assertEquals(
        Map.of(
            "JUnit Jupiter",
            "SUCCESSFUL",
            "VisibleSkipsTest$NeedsAMissingTool",
            "SUCCESSFUL",
            "one()",
            reason,
            "two()",
            reason),
        outcomes);
  }
}
