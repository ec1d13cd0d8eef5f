package dev.fleetprof.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Spark's generated code for the tests of one class, {@code @ExtendWith(GeneratedCode.class)}: on
 * before its first test, off again after its last. The tests' session interprets Spark's
 * expressions otherwise ({@link TestSpark}); a class that tests the source's rows or the fleet job
 * as a run on more than a few MB reads and aggregates them uses this.
 */
public final class GeneratedCode implements BeforeAllCallback, AfterAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    TestSpark.generatedCode(true);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    TestSpark.generatedCode(false);
  }
}
