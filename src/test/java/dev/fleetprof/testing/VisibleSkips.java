package dev.fleetprof.testing;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

/**
 * Makes every skipped test visible with its reason, on the console and in {@code
 * target/surefire-reports/}.
 *
 * <p>A test class that skips itself in {@code @BeforeAll} (an assumption, such as a missing outside
 * tool) is, left to JUnit, aborted before any test starts, and surefire then reports {@code Tests
 * run: 0, Skipped: 0} with the reason nowhere. Here the abort is recorded instead, and each test of
 * the class is disabled with that reason: surefire counts them as skipped and writes the reason
 * into the XML report ({@code <skipped message=...>}). Surefire's console never shows a skip's
 * reason, and it sends what tests print to files ({@code redirectTestOutputToFile}), so the reason
 * of each skip is also written to the JVM's own stderr, which surefire copies to its console.
 *
 * <p>Registered for every test by JUnit's extension auto-detection ({@code
 * junit-platform.properties}, {@code META-INF/services}): a test needs nothing to use it.
 */
public final class VisibleSkips
    implements LifecycleMethodExecutionExceptionHandler, ExecutionCondition, TestWatcher {
  private static final ExtensionContext.Namespace SKIPS =
      ExtensionContext.Namespace.create(VisibleSkips.class);

  /** The process's stderr, not the stream surefire puts in System.err for each test. */
  private static final PrintStream CONSOLE =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    if (classSkipped(context) != null) {
      // The class is skipped already: another @BeforeAll failing without the missing tool is a
      // consequence of that, not a failure of its own.
      return;
    }
    if (!(thrown instanceof TestAbortedException)) {
      throw thrown;
    }
    String reason = String.valueOf(thrown.getMessage());
    context.getStore(SKIPS).put(context.getRequiredTestClass(), reason);
    CONSOLE.println(
        "[WARNING] Skipped " + context.getRequiredTestClass().getName() + ": " + reason);
  }

  @Override
  public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    // Clean-up after a skipped set-up finds what the set-up never made.
    if (classSkipped(context) == null) {
      throw thrown;
    }
  }

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String reason = classSkipped(context);
    return reason == null
        ? ConditionEvaluationResult.enabled("no @BeforeAll of the class skipped it")
        : ConditionEvaluationResult.disabled(reason);
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    CONSOLE.println(
        "[WARNING] Skipped " + name(context) + ": " + (cause == null ? "" : cause.getMessage()));
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {
    // A class skipped in @BeforeAll was said once, above.
    if (classSkipped(context) == null) {
      CONSOLE.println("[WARNING] Skipped " + name(context) + ": " + reason.orElse("disabled"));
    }
  }

  /** Why the test class of this context was skipped in its {@code @BeforeAll}, or null. */
  private static String classSkipped(ExtensionContext context) {
    return context
        .getTestClass()
        .map(c -> context.getStore(SKIPS).get(c, String.class))
        .orElse(null);
  }

  private static String name(ExtensionContext context) {
    return context.getRequiredTestClass().getName() + "." + context.getDisplayName();
  }
}
