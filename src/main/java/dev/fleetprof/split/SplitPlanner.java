package dev.fleetprof.split;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns files into byte-range slices and packs slices into partitions, the way Spark's own file
 * sources do (FilePartition): a split size of {@code min(maxPartitionBytes, max(openCost,
 * totalBytes / minPartitions))}, slices sorted largest first, and next-fit packing in which every
 * slice is charged an extra "open cost", so that 100,000 small files make a few hundred tasks, not
 * 100,000. Plain Java, no Spark: the Spark layer supplies the settings.
 */
public final class SplitPlanner {
  private SplitPlanner() {}

  /** A file's bytes on one set of hosts (an HDFS block, say). */
  public record Block(long offset, long length, String[] hosts) {}

  /**
   * Bytes {@code [start, end)} of a file: the split owns the records whose first byte lies here.
   */
  public record Slice(String path, long start, long end, long fileLength) {
    public long length() {
      return end - start;
    }
  }

  /** A group of slices read by one task, with the hosts that hold most of their bytes. */
  public record Partition(List<Slice> slices, String[] preferredHosts) {}

  /** The split size, as Spark's FilePartition.maxSplitBytes computes it. */
  public static long maxSplitBytes(
      long maxPartitionBytes, long openCostInBytes, int minPartitions, long totalBytes, int files) {
    long total = totalBytes + (long) files * openCostInBytes;
    long bytesPerCore = total / Math.max(1, minPartitions);
    return Math.max(1, Math.min(maxPartitionBytes, Math.max(openCostInBytes, bytesPerCore)));
  }

  /**
   * Cuts {@code [0, splitEnd)} of a file into slices of {@code maxSplitBytes}; the last slice runs
   * to the end of the file. {@code splitEnd} is where records end (the trailer), so that no slice
   * is planned over the text after the records.
   */
  public static List<Slice> split(String path, long fileLength, long splitEnd, long maxSplitBytes) {
    List<Slice> out = new ArrayList<>();
    long end = Math.max(1, Math.min(splitEnd, fileLength));
    for (long start = 0; start < end; start += maxSplitBytes) {
      long stop = Math.min(end, start + maxSplitBytes);
      out.add(new Slice(path, start, stop >= end ? fileLength : stop, fileLength));
    }
    return out;
  }

  /** Packs slices into partitions: largest first, next-fit, each slice charged {@code openCost}. */
  public static List<Partition> pack(
      List<Slice> slices, long maxSplitBytes, long openCost, Map<String, Block[]> blocks) {
    List<Slice> sorted = new ArrayList<>(slices);
    sorted.sort(
        Comparator.comparingLong(Slice::length)
            .reversed()
            .thenComparing(Slice::path)
            .thenComparingLong(Slice::start));
    List<Partition> out = new ArrayList<>();
    List<Slice> current = new ArrayList<>();
    long size = 0;
    for (Slice s : sorted) {
      if (!current.isEmpty() && size + s.length() > maxSplitBytes) {
        out.add(new Partition(current, hosts(current, blocks)));
        current = new ArrayList<>();
        size = 0;
      }
      current.add(s);
      size += s.length() + openCost;
    }
    if (!current.isEmpty()) {
      out.add(new Partition(current, hosts(current, blocks)));
    }
    return out;
  }

  /** The (up to 3) hosts holding the most bytes of these slices. */
  static String[] hosts(List<Slice> slices, Map<String, Block[]> blocks) {
    Map<String, Long> bytes = new HashMap<>();
    for (Slice s : slices) {
      Block[] bs = blocks == null ? null : blocks.get(s.path());
      if (bs == null) {
        continue;
      }
      for (Block b : bs) {
        long overlap = Math.min(s.end(), b.offset() + b.length()) - Math.max(s.start(), b.offset());
        if (overlap > 0) {
          for (String h : b.hosts()) {
            if (!"localhost".equals(h)) {
              bytes.merge(h, overlap, Long::sum);
            }
          }
        }
      }
    }
    return bytes.entrySet().stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue()
                .reversed()
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(3)
        .map(Map.Entry::getKey)
        .toArray(String[]::new);
  }
}
