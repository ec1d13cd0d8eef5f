package dev.fleetprof.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The local disk as a Hadoop FileSystem (scheme {@value #SCHEME}) that is full under one directory:
 * for a machine that cannot mount a small tmpfs to fill. Every file created below a directory named
 * by the system property {@value #FULL_UNDER} (in the JVM that writes) is created, then its first
 * write fails with the error a full disk gives ({@code No space left on device}, thrown as Hadoop's
 * local file system throws it: an {@link FSError}), as on a real full disk, where creating an empty
 * file still succeeds. Everything else is the local disk's own behaviour, reads and renames
 * included.
 *
 * <p>Spark finds it with {@code
 * spark.hadoop.fs.fulldisk.impl=dev.fleetprof.testing.FullDiskFileSystem}.
 */
public final class FullDiskFileSystem extends RawLocalFileSystem {
  public static final String SCHEME = "fulldisk";

  /** The system property naming the directory whose files cannot be written. */
  public static final String FULL_UNDER = "fleetprof.test.fullDiskUnder";

  @Override
  public URI getUri() {
    return URI.create(SCHEME + ":///");
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  protected OutputStream createOutputStream(Path f, boolean append) throws IOException {
    return full(f, super.createOutputStream(f, append));
  }

  @Override
  protected OutputStream createOutputStreamWithMode(Path f, boolean append, FsPermission permission)
      throws IOException {
    return full(f, super.createOutputStreamWithMode(f, append, permission));
  }

  /**
   * The error RawLocalFileSystem's own streams throw for a failed write; its constructor is
   * Hadoop's, package-private.
   */
  private static FSError noSpace(Path f) {
    try {
      java.lang.reflect.Constructor<FSError> error =
          FSError.class.getDeclaredConstructor(Throwable.class);
      error.setAccessible(true);
      return error.newInstance(new IOException("No space left on device: " + f));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static OutputStream full(Path f, OutputStream created) {
    String under = System.getProperty(FULL_UNDER);
    if (under == null || !("/" + f.toUri().getPath() + "/").contains("/" + under + "/")) {
      return created;
    }
    return new OutputStream() {
      @Override
      public void write(int b) {
        throw noSpace(f);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        if (len > 0) {
          write(b[off]);
        }
      }

      @Override
      public void close() throws IOException {
        created.close();
      }
    };
  }
}
