package dev.fleetprof.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.apache.spark.sql.SparkSession;

/**
 * Run in a child JVM (with the heap limit under test) by the benchmark: reads one file with the
 * {@code profile} source, all columns to {@code noop}, on {@code local[2]}, and prints one line
 * {@code memory-probe seconds=.. peakUsed=.. maxAfterGc=.. gcs=..}. {@code peakUsed} sums the heap
 * pools' peaks (an upper bound, mostly young-generation garbage sized by the GC); {@code
 * maxAfterGc} is the largest heap left after any collection, the live memory the read really holds,
 * which is what must not grow with the file.
 */
public final class MemoryProbe {
  private MemoryProbe() {}

  public static void main(String[] args) throws Exception {
    String file = args[0];
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("fleetprof-memory")
            .config("spark.ui.enabled", "false")
            .getOrCreate();
    AtomicLong maxAfterGc = new AtomicLong();
    AtomicLong gcs = new AtomicLong();
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) gc)
          .addNotificationListener(
              (n, handback) -> {
                if (!n.getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  return;
                }
                var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                long used = 0;
                for (MemoryUsage u : info.getGcInfo().getMemoryUsageAfterGc().values()) {
                  used += u.getUsed();
                }
                // Non-heap pools (metaspace, code cache) are in the map too; they do not depend on
                // the file.
                for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                  if (p.getType() == MemoryType.NON_HEAP) {
                    MemoryUsage u = info.getGcInfo().getMemoryUsageAfterGc().get(p.getName());
                    used -= u == null ? 0 : u.getUsed();
                  }
                }
                gcs.incrementAndGet();
                maxAfterGc.accumulateAndGet(used, Math::max);
              },
              null,
              null);
    }
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
    long t0 = System.nanoTime();
    spark.read().format("profile").load(file).write().format("noop").mode("overwrite").save();
    double seconds = (System.nanoTime() - t0) / 1e9;
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    spark.stop();
    System.out.printf(
        "memory-probe seconds=%.3f peakUsed=%d maxAfterGc=%d gcs=%d%n",
        seconds, peak, maxAfterGc.get(), gcs.get());
  }
}
