package dev.fleetprof.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code bench/run --jfr DIR}: each timed row runs under a Java Flight Recorder recording (async
 * profilers are not assumed to be installed), saved as {@code DIR/NN-row.jfr} with a summary of its
 * CPU samples beside it: the methods running (self) and the methods on the stack (total), as shares
 * of all samples. This is where the reader's time goes; the timings of such a run carry JFR's
 * overhead and are not the table's.
 */
final class HotMethods {
  /** Frames worth a "total" line: the reader, Spark SQL's row machinery, Hadoop's I/O. */
  private static final Pattern INTERESTING =
      Pattern.compile(
          "dev\\.fleetprof\\.|org\\.apache\\.spark\\.sql\\.catalyst\\.|org\\.apache\\.spark\\.unsafe\\."
              + "|org\\.apache\\.hadoop\\.|org\\.apache\\.spark\\.sql\\.execution\\.(aggregate|datasources)");

  private final Path dir;
  private int n;

  HotMethods(Path dir) {
    this.dir = dir;
  }

  Recording start() {
    try {
      Recording r = new Recording(jdk.jfr.Configuration.getConfiguration("profile"));
      r.start();
      return r;
    } catch (IOException | java.text.ParseException e) {
      throw new IllegalStateException("cannot start JFR: " + e, e);
    }
  }

  void stop(Recording r, String what) throws IOException {
    r.stop();
    String name =
        String.format(
            "%02d-%s",
            ++n, what.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "").toLowerCase());
    Path jfr = dir.resolve(name + ".jfr");
    r.dump(jfr);
    r.close();
    try (PrintStream out = new PrintStream(dir.resolve(name + ".txt").toFile(), "UTF-8")) {
      out.println(what);
      summarize(jfr, out, 25);
    }
  }

  static void summarize(Path jfr, PrintStream out, int top) throws IOException {
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> total = new HashMap<>();
    int samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      samples++;
      Set<String> seen = new HashSet<>();
      boolean leaf = true;
      for (RecordedFrame f : e.getStackTrace().getFrames()) {
        String m = f.getMethod().getType().getName() + "." + f.getMethod().getName();
        if (leaf) {
          self.merge(m, 1, Integer::sum);
          leaf = false;
        }
        if (INTERESTING.matcher(m).lookingAt() && seen.add(m)) {
          total.merge(m, 1, Integer::sum);
        }
      }
    }
    out.printf("%d CPU samples%n%nself%n", samples);
    print(self, samples, top, out);
    out.printf("%ntotal (on the stack; the reader, Spark SQL rows and aggregation, Hadoop)%n");
    print(total, samples, 2 * top, out);
  }

  private static void print(Map<String, Integer> counts, int samples, int top, PrintStream out) {
    counts.entrySet().stream()
        .sorted((a, b) -> b.getValue() - a.getValue())
        .limit(top)
        .forEach(e -> out.printf("%6.1f%%  %s%n", 100.0 * e.getValue() / samples, e.getKey()));
  }

  /** {@code java ... HotMethods file.jfr}: the same summary for any recording. */
  public static void main(String[] args) throws IOException {
    summarize(Path.of(args[0]), System.out, 30);
  }
}
