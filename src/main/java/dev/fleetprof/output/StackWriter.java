package dev.fleetprof.output;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * A one-pass sink of aggregated stacks that writes one output file. The fleet job streams its
 * aggregate (e.g. {@code toLocalIterator()}) through one or several writers at once; {@link
 * #close()} finishes the file and closes the stream the writer was given. Writers are not
 * thread-safe.
 */
public interface StackWriter extends Closeable {
  /** Adds one stack, frames LEAF FIRST. Stacks with the same frames may come more than once. */
  void add(List<Frame> leafFirst, long value) throws IOException;

  /**
   * Adds one stack with labels (name to value: a host, a service), which writers with no place for
   * them (folded stacks, flame graphs) leave out.
   */
  default void add(List<Frame> leafFirst, long value, java.util.Map<String, String> labels)
      throws IOException {
    add(leafFirst, value);
  }

  default void add(WeightedStack stack) throws IOException {
    add(stack.frames(), stack.value());
  }

  /** Adds every stack and closes the writer. */
  default void writeAll(Iterable<WeightedStack> stacks) throws IOException {
    StackWriter writer = this;
    try (writer) {
      for (WeightedStack s : stacks) {
        add(s);
      }
    }
  }
}
