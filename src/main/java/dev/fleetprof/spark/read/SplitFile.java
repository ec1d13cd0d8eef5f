package dev.fleetprof.spark.read;

import dev.fleetprof.format.SplitLayout;
import java.io.Serializable;

/**
 * A file read in slices: its format's name and the layout the format read from it when the read was
 * planned, broadcast once to every task that reads one of its slices.
 */
public record SplitFile(String format, SplitLayout layout) implements Serializable {
  private static final long serialVersionUID = 1L;
}
