package dev.fleetprof.jobs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer per date: a run holds a lease file per date it writes ({@code OUTPUT/_leases/date=D}),
 * made with an exclusive create, which is atomic on local file systems and HDFS (not on S3, whose
 * create does not fail on an existing object: run one scheduler per output there). A second run for
 * a date that is leased exits with a message naming the holder instead of replacing files the first
 * is writing or reading back (which nested {@code date=X/date=X} and failed runs that had
 * succeeded).
 *
 * <p>The holder touches its leases every {@link #TIMEOUT}/4; a lease not touched for {@link
 * #TIMEOUT}, or whose holder ran on this machine and is gone, belongs to a run that died (SIGKILL,
 * lost machine) and is broken by the next run: moved aside by a rename, which only one breaker can
 * win, then made anew. Before each commit the holder checks the lease is still its own, so a run
 * that lost its lease (paused longer than the timeout) stops instead of writing over its successor.
 */
final class DateLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DateLease.class);

  /** How long a lease stays valid without a touch. */
  static final Duration TIMEOUT = Duration.ofMinutes(10);

  private final FileSystem fs;
  private final List<Path> held = new ArrayList<>();
  private final String owner;
  private final ScheduledExecutorService heartbeat;

  private DateLease(FileSystem fs, String owner) {
    // Leases are small files read by runs only: no checksum side files on a local disk.
    this.fs = fs instanceof LocalFileSystem local ? local.getRaw() : fs;
    this.owner = owner;
    this.heartbeat =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fleetprof-lease-heartbeat");
              t.setDaemon(true);
              return t;
            });
  }

  /** The lease file of a date under an output directory. */
  static Path path(Path output, Object date) {
    return new Path(new Path(output, "_leases"), "date=" + date);
  }

  /**
   * Takes the leases of {@code dates} under {@code output} for this run, or fails with an {@link
   * IllegalStateException} naming the run that holds one (then holding none).
   */
  static DateLease acquire(FileSystem fs, Path output, List<Object> dates, String runId)
      throws IOException {
    DateLease lease = new DateLease(fs, describe(runId));
    try {
      for (Object d : dates) {
        lease.take(path(output, d), String.valueOf(d));
      }
    } catch (IOException | RuntimeException e) {
      lease.close();
      throw e;
    }
    long every = TIMEOUT.toMillis() / 4;
    lease.heartbeat.scheduleAtFixedRate(lease::touch, every, every, TimeUnit.MILLISECONDS);
    return lease;
  }

  private static String describe(String runId) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "unknown host";
    }
    return "run "
        + runId
        + " (pid "
        + ManagementFactory.getRuntimeMXBean().getPid()
        + " on "
        + host
        + ", started "
        + Instant.now()
        + ")";
  }

  private void take(Path file, String date) throws IOException {
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        createExclusive(file, owner.getBytes(StandardCharsets.UTF_8));
        held.add(file);
        return;
      } catch (FileAlreadyExistsException | java.nio.file.FileAlreadyExistsException e) {
        // fall through: held by another run, or left by a dead one
      } catch (IOException e) {
        if (!fs.exists(file)) {
          throw e;
        }
      }
      FileStatus st;
      String holder;
      try {
        st = fs.getFileStatus(file);
        holder = read(file);
      } catch (java.io.FileNotFoundException gone) {
        continue; // released meanwhile: try again
      }
      Duration idle = Duration.ofMillis(System.currentTimeMillis() - st.getModificationTime());
      boolean dead = diedOnThisHost(holder);
      if (idle.compareTo(TIMEOUT) < 0 && !dead) {
        throw new IllegalStateException(
            "date "
                + date
                + " is being written by "
                + holder
                + " (lease "
                + file
                + ", touched "
                + idle.toSeconds()
                + " s ago); this run stops without writing. Run again when it has finished, or"
                + " delete the lease if that run is known to be gone");
      }
      // Stale: its holder died. Move it aside (only one breaker's rename can succeed), then take
      // it.
      Path aside =
          new Path(file.getParent(), "." + file.getName() + ".broken-" + System.nanoTime());
      if (fs.rename(file, aside)) {
        String was = read(aside);
        fs.delete(aside, false);
        if (!was.equals(holder)) {
          throw new IllegalStateException(
              "date " + date + ": another run took the lease " + file + " while this one broke it");
        }
        LOG.warn(
            "broke the lease of date {} held by {}: untouched for {} min",
            date,
            holder,
            idle.toMinutes());
      }
    }
    throw new IllegalStateException("date " + date + ": could not take the lease " + file);
  }

  /**
   * Creates {@code file} holding {@code content} unless it exists, in one step: Hadoop's local file
   * system checks and then creates, so two runs could both succeed; the JDK's CREATE_NEW is the
   * operating system's O_EXCL. HDFS's create without overwrite is atomic in the NameNode.
   */
  private void createExclusive(Path file, byte[] content) throws IOException {
    if ("file".equals(fs.getUri().getScheme())) {
      java.nio.file.Path local = java.nio.file.Path.of(fs.makeQualified(file).toUri());
      java.nio.file.Files.createDirectories(local.getParent());
      try (java.nio.channels.SeekableByteChannel ch =
          java.nio.file.Files.newByteChannel(
              local,
              java.nio.file.StandardOpenOption.CREATE_NEW,
              java.nio.file.StandardOpenOption.WRITE)) {
        try {
          ch.write(java.nio.ByteBuffer.wrap(content));
        } catch (IOException e) {
          // A lease without its holder (a full disk) would look held: take it back.
          java.nio.file.Files.deleteIfExists(local);
          throw e;
        }
      }
      return;
    }
    OutputStream out = fs.create(file, false);
    try (out) {
      out.write(content);
    } catch (IOException e) {
      fs.delete(file, false);
      throw e;
    }
  }

  private static final java.util.regex.Pattern HOLDER =
      java.util.regex.Pattern.compile("^run \\S+ \\(pid (\\d+) on (\\S+),");

  /**
   * Whether a lease's holder ran on this machine and its process is gone (a run killed with
   * SIGKILL): its lease can be broken at once instead of after the timeout.
   */
  static boolean diedOnThisHost(String holder) {
    java.util.regex.Matcher m = HOLDER.matcher(holder);
    if (!m.find()) {
      return false;
    }
    try {
      if (!m.group(2).equals(InetAddress.getLocalHost().getHostName())) {
        return false;
      }
      long pid = Long.parseLong(m.group(1));
      return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private String read(Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return new String(in.readNBytes(4096), StandardCharsets.UTF_8);
    }
  }

  private void touch() {
    for (Path p : held) {
      try {
        fs.setTimes(p, System.currentTimeMillis(), -1);
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not touch the lease {}: {}", p, e.toString());
      }
    }
  }

  /**
   * Fails with an {@link IllegalStateException} unless every lease is still this run's: called
   * before each commit, so that a run that lost its lease writes nothing more.
   */
  void check() throws IOException {
    for (Path p : held) {
      String holder;
      try {
        holder = read(p);
      } catch (java.io.FileNotFoundException e) {
        holder = "nobody (the lease was deleted)";
      }
      if (!holder.equals(owner)) {
        throw new IllegalStateException(
            "lost the lease " + p + " to " + holder + "; this run stops before its next commit");
      }
    }
  }

  /** Releases the leases still this run's. */
  @Override
  public void close() {
    heartbeat.shutdownNow();
    for (Path p : held) {
      try {
        if (read(p).equals(owner)) {
          fs.delete(p, false);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not release the lease {}: {}", p, e.toString());
      }
    }
    held.clear();
  }
}
