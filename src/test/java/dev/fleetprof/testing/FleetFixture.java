package dev.fleetprof.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A fleet's profiles laid out as the jobs read them, {@code root/date=YYYY-MM-DD/host=NAME/FILE},
 * made of copies of the sample files (or of given bytes) in a test's temporary folder.
 */
public final class FleetFixture {
  private final Path root;

  public FleetFixture(Path root) {
    this.root = root;
  }

  /** The folder to give the jobs as their input. */
  public Path root() {
    return root;
  }

  /** The folder of one host's profiles of one day, created. */
  public Path host(String date, String host) {
    try {
      return Files.createDirectories(root.resolve("date=" + date).resolve("host=" + host));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies sample files into one host's folder of one day, under their own names. */
  public FleetFixture copy(String date, String host, List<Path> samples) {
    for (Path sample : samples) {
      copy(date, host, sample, sample.getFileName().toString());
    }
    return this;
  }

  /** Copies a sample file into one host's folder of one day as {@code name}. */
  public FleetFixture copy(String date, String host, Path sample, String name) {
    return write(date, host, name, SampleData.read(sample));
  }

  /**
   * Writes a file into one host's folder of one day; {@code name} may lead through folders below
   * the host's (they are created).
   */
  public FleetFixture write(String date, String host, String name, byte[] data) {
    Path file = host(date, host).resolve(name);
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
