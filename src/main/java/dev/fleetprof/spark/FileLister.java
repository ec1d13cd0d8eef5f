package dev.fleetprof.spark;

import dev.fleetprof.split.SplitPlanner.Block;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.Path;

/**
 * Lists the files behind the paths a user gave, on any Hadoop FileSystem, as Spark's file sources
 * do: globs are expanded, directories are listed recursively, names starting with {@code _} or
 * {@code .} (and {@code ._COPYING_} leftovers) are skipped inside directories, and {@code
 * pathGlobFilter} applies to file names.
 */
final class FileLister {
  /**
   * A listed file with its blocks (for preferred locations) and the directory its partition
   * directories ({@code key=value}) are read below: the input directory it was listed from, or the
   * file's parent for a file given by name, or {@code basePath}; and its modification time (ms).
   */
  record ListedFile(String path, long length, Block[] blocks, String root, long modified) {}

  private FileLister() {}

  /**
   * Fails with FileNotFoundException, as Spark does at load time, for a path that matches nothing.
   */
  static void checkExists(List<String> paths, Configuration conf) throws IOException {
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
   */
  static List<ListedFile> list(
      List<String> paths, Configuration conf, String pathGlobFilter, String basePath)
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
        if (st.isDirectory()) {
          String root = basePath != null ? qualified(basePath, conf) : st.getPath().toString();
          listDirectory(fs, st.getPath(), filter, out, root);
        } else if (filter == null || filter.accept(st.getPath())) {
          BlockLocation[] locs = fs.getFileBlockLocations(st, 0, st.getLen());
          String root =
              basePath != null ? qualified(basePath, conf) : st.getPath().getParent().toString();
          add(out, st, locs, root);
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
   * Lists one directory with its files' blocks. On the local file system, {@code listLocatedStatus}
   * forks {@code ls -ld} for every file and directory to read permissions (7.75 s for 500 files,
   * against under 0.5 s with {@code listStatus}); elsewhere (HDFS) it is the one call that returns
   * the blocks of a whole directory.
   */
  private static void listDirectory(
      FileSystem fs, Path dir, GlobFilter filter, Map<String, ListedFile> out, String root)
      throws IOException {
    List<FileStatus> children = new ArrayList<>();
    try {
      if ("file".equals(fs.getScheme())) {
        children.addAll(java.util.Arrays.asList(fs.listStatus(dir)));
      } else {
        org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it =
            fs.listLocatedStatus(dir);
        while (it.hasNext()) {
          children.add(it.next());
        }
      }
    } catch (FileNotFoundException e) {
      return; // deleted while we listed its parent
    }
    for (FileStatus st : children) {
      String name = st.getPath().getName();
      if (hidden(name)) {
        continue;
      }
      if (st.isDirectory()) {
        listDirectory(fs, st.getPath(), filter, out, root);
      } else if (filter == null || filter.accept(st.getPath())) {
        BlockLocation[] blocks =
            st instanceof org.apache.hadoop.fs.LocatedFileStatus located
                ? located.getBlockLocations()
                : fs.getFileBlockLocations(st, 0, st.getLen());
        add(out, st, blocks, root);
      }
    }
  }

  /** Spark's rule for names its file sources skip. */
  static boolean hidden(String name) {
    return (name.startsWith("_") && !name.contains("="))
        || name.startsWith(".")
        || name.endsWith("._COPYING_");
  }

  private static void add(
      Map<String, ListedFile> out, FileStatus file, BlockLocation[] locs, String root)
      throws IOException {
    Block[] blocks = new Block[locs == null ? 0 : locs.length];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = new Block(locs[i].getOffset(), locs[i].getLength(), locs[i].getHosts());
    }
    String key = file.getPath().toString();
    out.putIfAbsent(
        key, new ListedFile(key, file.getLen(), blocks, root, file.getModificationTime()));
  }
}
