package dev.fleetprof.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the launcher's class archive building in the background before the first test class of a
 * JVM ({@link ChildJvm#buildClassArchiveEarly()}), so that the tests that start child JVMs find it
 * built, or nearly. Registered for every test through {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension}.
 */
public final class ClassArchiveEarly implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    ChildJvm.buildClassArchiveEarly();
  }
}
