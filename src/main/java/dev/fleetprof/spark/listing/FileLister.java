package dev.fleetprof.spark.listing;

import dev.fleetprof.spark.ReadOptions;
import dev.fleetprof.split.SplitPlanner.Block;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists the files behind the paths a user gave, on any Hadoop FileSystem, as Spark's file sources
 * do: globs are expanded, directories are listed recursively, names starting with {@code _} or
 * {@code .} (and {@code ._COPYING_} leftovers) are skipped inside directories, and {@code
 * pathGlobFilter} applies to file names.
 *
 * <p>Symbolic links to directories inside the listed directories are not followed unless asked
 * ({@code followSymlinks}): a link such as {@code loop -> ..} would otherwise list the tree again
 * under every longer path until the path is too long for the OS, silently multiplying the totals.
 * When they are followed, a link into a directory already listed (or one containing the link, a
 * loop) is not entered again. Links to files are read. The paths given are always resolved.
 *
 * <p>Files that are not regular files (FIFOs, sockets, devices) are listed with what they are, so
 * that the read reports them without opening them: opening a FIFO blocks until a writer comes.
 * Hadoop's local FileSystem reports them as files (its status comes from {@code java.io.File}), so
 * on the {@code file} scheme the listing asks {@code java.nio.file.Files}, without following links.
 */
public final class FileLister {
  private static final Logger LOG = LoggerFactory.getLogger(FileLister.class);

  /**
   * A listed file with its blocks (for preferred locations) and the directory its partition
   * directories ({@code key=value}) are read below: the input directory it was listed from, or the
   * file's parent for a file given by name, or {@code basePath}; its modification time (ms); and,
   * for a file that is not a regular file and must not be opened, what it is ({@code "a FIFO"}),
   * else null.
   */
  public record ListedFile(
      String path, long length, Block[] blocks, String root, long modified, String notRegular) {}

  /** What a listed path is, links to directories and files resolved as the listing treats them. */
  private enum Kind {
    DIRECTORY,
    LINK_TO_DIRECTORY,
    FILE,
    NOT_REGULAR,
    GONE
  }

  /** A path's kind, the status to list it with, and for {@link Kind#NOT_REGULAR} what it is. */
  private record Entry(Kind kind, FileStatus status, String what) {}

  private FileLister() {}

  /**
   * Fails with FileNotFoundException, as Spark does at load time, for a path that matches nothing.
   */
  public static void checkExists(List<String> paths, Configuration conf) throws IOException {
    if (paths.isEmpty()) {
      throw new IllegalArgumentException(
          "profile source: no path given (use .load(path) or OPTIONS (path '...'))");
    }
    for (String p : paths) {
      Path path = new Path(p);
      FileStatus[] found = path.getFileSystem(conf).globStatus(path);
      if (found == null || found.length == 0) {
        throw new FileNotFoundException("[PATH_NOT_FOUND] Path does not exist: " + p);
      }
    }
  }

  /**
   * Lists the files, with {@code basePath} (may be null) as every file's partition root when given.
   * A file deleted while being listed is skipped, as Spark's listing does.
   *
   * @param followSymlinks whether links to directories below the paths are followed
   */
  static List<ListedFile> list(
      List<String> paths,
      Configuration conf,
      String pathGlobFilter,
      String basePath,
      boolean followSymlinks)
      throws IOException {
    GlobFilter filter = pathGlobFilter == null ? null : new GlobFilter(pathGlobFilter);
    Map<String, ListedFile> out = new LinkedHashMap<>();
    for (String p : paths) {
      Path path = new Path(p);
      FileSystem fs = path.getFileSystem(conf);
      FileStatus[] matched = fs.globStatus(path);
      if (matched == null || matched.length == 0) {
        throw new FileNotFoundException("[PATH_NOT_FOUND] Path does not exist: " + p);
      }
      for (FileStatus st : matched) {
        Entry given = given(fs, st);
        if (given.kind() == Kind.GONE) {
          continue;
        }
        if (given.kind() == Kind.DIRECTORY) {
          String root = basePath != null ? qualified(basePath, conf) : st.getPath().toString();
          new Walk(fs, filter, out, root, followSymlinks).run(st.getPath());
        } else if (filter == null || filter.accept(st.getPath())) {
          String root =
              basePath != null ? qualified(basePath, conf) : st.getPath().getParent().toString();
          add(fs, out, given, null, root);
        }
      }
    }
    List<ListedFile> files = new ArrayList<>(out.values());
    files.sort((a, b) -> a.path().compareTo(b.path()));
    return files;
  }

  private static String qualified(String path, Configuration conf) throws IOException {
    Path p = new Path(path);
    return p.getFileSystem(conf).makeQualified(p).toString();
  }

  /**
   * One input directory's walk: the directories of the tree itself first, then the links to
   * directories (when followed), so that a link into the tree finds its target already listed and
   * the files keep their own paths. Iterative: a deep tree cannot overflow the stack.
   */
  private static final class Walk {
    private final FileSystem fs;
    private final GlobFilter filter;
    private final Map<String, ListedFile> out;
    private final String root;
    private final boolean followSymlinks;

    /** The real paths of the directories listed (only kept when links are followed). */
    private final Set<String> listed = new HashSet<>();

    private final Deque<Path> directories = new ArrayDeque<>();
    private final Deque<Path> links = new ArrayDeque<>();

    Walk(
        FileSystem fs,
        GlobFilter filter,
        Map<String, ListedFile> out,
        String root,
        boolean followSymlinks) {
      this.fs = fs;
      this.filter = filter;
      this.out = out;
      this.root = root;
      this.followSymlinks = followSymlinks;
    }

    void run(Path top) throws IOException {
      if (followSymlinks) {
        listed.add(realPath(fs, top));
      }
      directories.push(top);
      while (!directories.isEmpty() || !links.isEmpty()) {
        if (!directories.isEmpty()) {
          listDirectory(directories.pop());
        } else {
          enterLink(links.removeFirst());
        }
      }
    }

    /** Follows a link to a directory unless that directory is already listed. */
    private void enterLink(Path link) throws IOException {
      String target;
      try {
        target = realPath(fs, link);
      } catch (FileNotFoundException e) {
        return; // deleted (or its target was) while we listed
      }
      if (listed.add(target)) {
        directories.push(link);
        return;
      }
      String where = realPath(fs, link.getParent());
      boolean loop = where.equals(target) || where.startsWith(target + "/");
      LOG.warn(
          "profile source: did not follow the symbolic link {} to {}: {}",
          link,
          target,
          loop ? "a loop (that directory contains the link)" : "that directory is already listed");
    }

    private void listDirectory(Path dir) throws IOException {
      List<FileStatus> children = new ArrayList<>();
      try {
        if ("file".equals(fs.getScheme())) {
          children.addAll(List.of(fs.listStatus(dir)));
        } else {
          RemoteIterator<LocatedFileStatus> it = fs.listLocatedStatus(dir);
          while (it.hasNext()) {
            children.add(it.next());
          }
        }
      } catch (FileNotFoundException e) {
        return; // deleted while we listed its parent
      }
      // By name, so that which of two links to one directory is followed does not vary by run.
      children.sort(Comparator.comparing((FileStatus st) -> st.getPath().getName()));
      for (FileStatus st : children) {
        if (hidden(st.getPath().getName())) {
          continue;
        }
        Entry child = child(fs, st);
        switch (child.kind()) {
          case GONE -> {}
          case DIRECTORY -> {
            // Inside a followed link's tree, a directory may be one another link already listed.
            if (!followSymlinks || listed.add(realPath(fs, st.getPath()))) {
              directories.push(st.getPath());
            } else {
              LOG.warn(
                  "profile source: did not list {} again: it was listed through a symbolic link",
                  st.getPath());
            }
          }
          case LINK_TO_DIRECTORY -> {
            if (followSymlinks) {
              links.addLast(st.getPath());
            } else {
              LOG.info(
                  "profile source: did not follow the symbolic link {} to a directory (option {}"
                      + " is false)",
                  st.getPath(),
                  ReadOptions.FOLLOW_SYMLINKS);
            }
          }
          default -> {
            if (filter == null || filter.accept(st.getPath())) {
              add(fs, out, child, st, root);
            }
          }
        }
      }
    }
  }

  /** What a path the user gave (or a glob matched) is: links are resolved. */
  private static Entry given(FileSystem fs, FileStatus st) throws IOException {
    if ("file".equals(fs.getScheme())) {
      java.nio.file.Path p = localPath(st.getPath());
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(p, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        return new Entry(Kind.GONE, st, null);
      }
      return localEntry(st, p, a);
    }
    FileStatus resolved = st.isSymlink() ? resolve(fs, st) : st;
    if (resolved == null) {
      return new Entry(Kind.GONE, st, null);
    }
    return resolved.isDirectory()
        ? new Entry(Kind.DIRECTORY, resolved, null)
        : otherFile(st, resolved);
  }

  /** What a path found in a directory is: links are not resolved to directories. */
  private static Entry child(FileSystem fs, FileStatus st) throws IOException {
    if ("file".equals(fs.getScheme())) {
      java.nio.file.Path p = localPath(st.getPath());
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
          a = Files.readAttributes(p, BasicFileAttributes.class);
          if (a.isDirectory()) {
            return new Entry(Kind.LINK_TO_DIRECTORY, st, null);
          }
        }
      } catch (NoSuchFileException e) {
        return new Entry(Kind.GONE, st, null);
      }
      return localEntry(st, p, a);
    }
    if (st.isSymlink()) {
      FileStatus target = resolve(fs, st);
      if (target == null) {
        return new Entry(Kind.GONE, st, null);
      }
      return target.isDirectory()
          ? new Entry(Kind.LINK_TO_DIRECTORY, st, null)
          : otherFile(st, target);
    }
    return st.isDirectory() ? new Entry(Kind.DIRECTORY, st, null) : otherFile(st, st);
  }

  /** A local directory, regular file or other file, by its attributes. */
  private static Entry localEntry(FileStatus st, java.nio.file.Path p, BasicFileAttributes a) {
    if (a.isDirectory()) {
      return new Entry(Kind.DIRECTORY, st, null);
    }
    return a.isRegularFile()
        ? new Entry(Kind.FILE, st, null)
        : new Entry(Kind.NOT_REGULAR, st, describe(p));
  }

  /** A non-directory elsewhere than on the local file system; {@code target} is its status. */
  private static Entry otherFile(FileStatus st, FileStatus target) {
    // The listed path stays the link's own, with the target's length and times.
    FileStatus status =
        target == st
            ? st
            : new FileStatus(
                target.getLen(),
                false,
                target.getReplication(),
                target.getBlockSize(),
                target.getModificationTime(),
                st.getPath());
    return target.isFile()
        ? new Entry(Kind.FILE, status, null)
        : new Entry(Kind.NOT_REGULAR, status, "not a file or a directory");
  }

  /** The status a link leads to, or null when it leads nowhere (now). */
  private static FileStatus resolve(FileSystem fs, FileStatus link) throws IOException {
    try {
      return fs.getFileStatus(link.getPath());
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /**
   * The local path of a {@code file:} path, as Hadoop's local FileSystem maps it (from the URI's
   * decoded path: {@code Path.of(URI)} refuses names with characters outside ASCII).
   */
  private static java.nio.file.Path localPath(Path path) {
    return java.nio.file.Path.of(path.toUri().getPath());
  }

  /** A directory's path with every link resolved, to know two names of one directory. */
  private static String realPath(FileSystem fs, Path dir) throws IOException {
    if ("file".equals(fs.getScheme())) {
      try {
        return localPath(fs.makeQualified(dir)).toRealPath().toString();
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException(e.getMessage());
      }
    }
    return fs.resolvePath(dir).toUri().getPath();
  }

  /** What a local file that is neither a regular file nor a directory is, from its mode bits. */
  private static String describe(java.nio.file.Path p) {
    int type;
    try {
      type = ((Integer) Files.getAttribute(p, "unix:mode")) & 0170000;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "not a file or a directory";
    }
    return switch (type) {
      case 0010000 -> "a FIFO";
      case 0140000 -> "a socket";
      case 0020000 -> "a character device";
      case 0060000 -> "a block device";
      default -> "not a file or a directory";
    };
  }

  /** Spark's rule for names its file sources skip. */
  static boolean hidden(String name) {
    return (name.startsWith("_") && !name.contains("="))
        || name.startsWith(".")
        || name.endsWith("._COPYING_");
  }

  /**
   * Adds a file once. A file not to be opened gets no blocks and length 0: the planner neither
   * splits it nor reads its head.
   */
  private static void add(
      FileSystem fs, Map<String, ListedFile> out, Entry entry, FileStatus listed, String root)
      throws IOException {
    FileStatus file = entry.status();
    String key = file.getPath().toString();
    if (out.containsKey(key)) {
      return;
    }
    if (entry.kind() == Kind.NOT_REGULAR) {
      out.put(
          key,
          new ListedFile(key, 0, new Block[0], root, file.getModificationTime(), entry.what()));
      return;
    }
    BlockLocation[] locs =
        listed instanceof LocatedFileStatus located && listed == file
            ? located.getBlockLocations()
            : fs.getFileBlockLocations(file, 0, file.getLen());
    Block[] blocks = new Block[locs == null ? 0 : locs.length];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = new Block(locs[i].getOffset(), locs[i].getLength(), locs[i].getHosts());
    }
    out.put(
        key, new ListedFile(key, file.getLen(), blocks, root, file.getModificationTime(), null));
  }
}
