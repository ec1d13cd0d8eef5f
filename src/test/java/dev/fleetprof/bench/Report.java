package dev.fleetprof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The benchmark's output: the machine, one Markdown table of rows, the targets, the checks. */
final class Report {
  /**
   * One measured row; {@code seconds} is NaN when it did not run, and the note says why. {@code
   * cores} is the CPU time the row used over its wall time (NaN when unknown): on a shared machine
   * it shows whether a local[2] row had two cores at all.
   */
  record Row(
      String what,
      String input,
      double seconds,
      long bytes,
      long records,
      String note,
      double cores) {
    Row(String what, String input, double seconds, long bytes, long records, String note) {
      this(what, input, seconds, bytes, records, note, Double.NaN);
    }

    double mbPerSecond() {
      return bytes / 1e6 / seconds;
    }
  }

  /**
   * A symbolizer's lookups: {@code addresses} distinct addresses in {@code seconds} (NaN: did not
   * run, the note says why), and how far its answers agree with the reference tools'.
   */
  record Lookups(
      String what, String input, double seconds, long addresses, String note, double cores) {
    double perSecond() {
      return addresses / seconds;
    }
  }

  /** A memory run: one file read with a heap limit in a child JVM. */
  record Memory(
      String input,
      long bytes,
      String heap,
      boolean completed,
      double seconds,
      long peakUsed,
      long maxAfterGc,
      long gcs,
      String note) {}

  private final List<Row> rows = new ArrayList<>();
  private final List<String[]> targets = new ArrayList<>();
  private final List<Memory> memory = new ArrayList<>();
  private final List<Lookups> lookups = new ArrayList<>();
  private Lookups lookupReference;
  private final List<String> problems = new ArrayList<>();
  private double referenceBytesPerSecond = Double.NaN;

  Row add(Row r) {
    rows.add(r);
    System.out.printf(
        "  %-58s %s%n",
        r.what(),
        Double.isNaN(r.seconds())
            ? r.note()
            : String.format(Locale.ROOT, "%.2f s, %.0f MB/s", r.seconds(), r.mbPerSecond()));
    return r;
  }

  void reference(Row r) {
    referenceBytesPerSecond = r.bytes() / r.seconds();
  }

  double xRef(Row r) {
    return r.bytes() / r.seconds() / referenceBytesPerSecond;
  }

  void memory(Memory m) {
    memory.add(m);
  }

  Lookups lookups(Lookups l) {
    lookups.add(l);
    System.out.printf(
        "  %-58s %s%n",
        l.what(),
        Double.isNaN(l.seconds())
            ? l.note()
            : String.format(Locale.ROOT, "%.2f s, %,.0f addresses/s", l.seconds(), l.perSecond()));
    return l;
  }

  /** The row the symbolizer table's ratios are to (llvm-symbolizer). */
  void lookupReference(Lookups l) {
    lookupReference = l;
  }

  /**
   * A target of the scan benchmark: what it asks, what this run measured, and whether that meets
   * it.
   */
  void target(String what, String measured, Boolean met) {
    targets.add(new String[] {what, measured, met == null ? "n/a" : met ? "yes" : "**no**"});
  }

  /** A disagreement between what a row read and what its input holds. */
  void problem(String p) {
    problems.add(p);
    System.out.println("  PROBLEM: " + p);
  }

  String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append(machine()).append("\n\n");
    sb.append("| what | input | seconds | MB/s | records/s | x ref | cores used | notes |\n");
    sb.append("|---|---|--:|--:|--:|--:|--:|---|\n");
    for (Row r : rows) {
      String cores = Double.isNaN(r.cores()) ? "–" : String.format(Locale.ROOT, "%.2f", r.cores());
      if (Double.isNaN(r.seconds())) {
        sb.append(
            String.format("| %s | %s | – | – | – | – | – | %s |%n", r.what(), r.input(), r.note()));
      } else if (r.bytes() == 0) {
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %.2f | – | – | – | %s | %s |%n",
                r.what(),
                r.input(),
                r.seconds(),
                cores,
                r.note()));
      } else {
        double x = xRef(r);
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %.2f | %,.0f | %,.0f | %s | %s | %s |%n",
                r.what(),
                r.input(),
                r.seconds(),
                r.mbPerSecond(),
                r.records() / r.seconds(),
                String.format(Locale.ROOT, x < 0.1 ? "%.3f" : "%.2f", x),
                cores,
                r.note()));
      }
    }
    if (!memory.isEmpty()) {
      sb.append(
          "\n| memory: all columns → noop, child JVM | heap | completed | seconds | MB/s"
              + " | peak heap used (sum of pool peaks) | max heap after GC | GCs |\n");
      sb.append("|---|---|---|--:|--:|--:|--:|--:|\n");
      for (Memory m : memory) {
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | -Xmx%s | %s | %s | %s | %s | %s | %s |%n",
                m.input(),
                m.heap(),
                m.completed() ? "yes" : "**no**: " + m.note(),
                m.completed() ? String.format(Locale.ROOT, "%.2f", m.seconds()) : "–",
                m.completed()
                    ? String.format(Locale.ROOT, "%,.0f", m.bytes() / 1e6 / m.seconds())
                    : "–",
                m.completed() ? mib(m.peakUsed()) : "–",
                m.completed() ? mib(m.maxAfterGc()) : "–",
                m.completed() ? Long.toString(m.gcs()) : "–"));
      }
    }
    if (!lookups.isEmpty()) {
      sb.append(
          "\n| symbolizer, 1 thread | addresses | seconds | addresses/s | x llvm-symbolizer"
              + " | cores used | notes |\n");
      sb.append("|---|---|--:|--:|--:|--:|---|\n");
      for (Lookups l : lookups) {
        boolean ran = !Double.isNaN(l.seconds());
        boolean ratio = ran && lookupReference != null && !Double.isNaN(lookupReference.seconds());
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s | %s |%n",
                l.what(),
                l.input(),
                ran ? String.format(Locale.ROOT, "%.2f", l.seconds()) : "–",
                ran ? String.format(Locale.ROOT, "%,.0f", l.perSecond()) : "–",
                ratio
                    ? String.format(
                        Locale.ROOT, "%.2f", l.perSecond() / lookupReference.perSecond())
                    : "–",
                Double.isNaN(l.cores()) ? "–" : String.format(Locale.ROOT, "%.2f", l.cores()),
                l.note()));
      }
    }
    sb.append("\n| target | measured | met |\n|---|---|---|\n");
    for (String[] t : targets) {
      sb.append("| ").append(String.join(" | ", t)).append(" |\n");
    }
    sb.append('\n')
        .append(
            problems.isEmpty()
                ? "Checks: every row read the records and counts its input holds."
                : "PROBLEMS:\n- " + String.join("\n- ", problems))
        .append('\n');
    return sb.toString();
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,d MiB", bytes >> 20);
  }

  /** Cores, CPU, memory, OS, Java and the load average: the context the numbers need. */
  static String machine() {
    String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
    String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal").replaceAll("\\D", "");
    mem = mem.isEmpty() ? "?" : (Long.parseLong(mem) >> 20) + " GiB";
    String os = firstValue(Path.of("/etc/os-release"), "PRETTY_NAME");
    return String.format(
        "Machine: %d cores (%s), %s RAM, %s (Linux %s), %s %s; load average %s",
        Runtime.getRuntime().availableProcessors(),
        cpu,
        mem,
        os.replace("\"", ""),
        System.getProperty("os.version"),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        loadAverage());
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  private static String firstValue(Path file, String key) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          return line.substring(
                  line.indexOf(line.contains("=") && !line.contains(":") ? '=' : ':') + 1)
              .strip();
        }
      }
    } catch (IOException e) {
      // not Linux: say so below
    }
    return "?";
  }
}
