package dev.fleetprof.jobs;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionBuilder;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.types.DataTypeJsonSerDe;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.storage.HDFSLogStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSError;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output's datasets as Delta tables (docs/open-tables.md), so that any engine given a dataset's
 * path reads one run of each date. Spark writes a run's Parquet files as before ({@code
 * DATASET/date=D/run=R/}); this class then commits them with Delta Kernel, on the driver and with
 * no Spark job: one commit per table adds the run's files and removes the files the table held for
 * the run's dates, so a reader of the table sees the old run of a date or the new one, and a run
 * with no rows for a date empties it. The commit's version goes into the run record.
 *
 * <p>No Spark here, only Hadoop's file systems and the Kernel: the Spark layer stays thin on top.
 */
final class DeltaTables {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTables.class);

  /** The partition columns of every table: the date, and the run whose files hold its rows. */
  static final List<String> PARTITION_COLUMNS = List.of("date", FleetOutput.RUN);

  /** Who commits, as Delta's commit info names it. */
  private static final String ENGINE_INFO = "fleetprof";

  /** How often a commit loses to another run's (other dates, same table) before giving up. */
  private static final int ATTEMPTS = 20;

  /** The log of a table: what makes a dataset's directory a Delta table. */
  static final String LOG_DIRECTORY = "_delta_log";

  private DeltaTables() {}

  /**
   * Commits a run's files of {@code dates} to a dataset's table, replacing what the table held for
   * those dates; creates the table first if there is none, with {@code alsoPublished}'s runs (date
   * to run: what an output written before the tables publishes) as its first rows. The caller holds
   * the dates' leases, so no other run commits these dates meanwhile; runs of other dates may
   * commit to the same table, and a commit that loses to one is made again on the new version.
   *
   * @param sparkSchemaJson the rows' schema as Spark writes it ({@code StructType.json()}), with
   *     {@code date} and {@code run}: Delta's schema format is Spark's
   * @return the table's version that holds the run
   */
  static long commitRun(
      Configuration conf,
      Path table,
      String sparkSchemaJson,
      List<Object> dates,
      String run,
      Map<String, String> alsoPublished)
      throws IOException {
    Engine engine = DefaultEngine.create(withExclusiveCommits(conf, table));
    FileSystem fs = table.getFileSystem(conf);
    Table delta = Table.forPath(engine, fs.makeQualified(table).toString());
    for (int attempt = 1; ; attempt++) {
      try {
        Prepared commit =
            prepare(engine, fs, delta, table, sparkSchemaJson, dates, run, alsoPublished);
        TransactionCommitResult result =
            commit
                .txn()
                .commit(
                    engine,
                    CloseableIterable.inMemoryIterable(
                        Utils.toCloseableIterator(commit.actions().iterator())));
        for (PostCommitHook hook : result.getPostCommitHooks()) {
          // A checkpoint every ten commits (Delta's default), so a reader's log stays short.
          try {
            hook.threadSafeInvoke(engine);
          } catch (IOException | RuntimeException e) {
            LOG.warn("{}: post-commit {} failed: {}", table, hook.getType(), e.toString());
          }
        }
        LOG.debug(
            "{}: version {} holds run {} of {}", table, result.getVersion(), run, commit.dates());
        return result.getVersion();
      } catch (ConcurrentWriteException | TableAlreadyExistsException e) {
        if (attempt >= ATTEMPTS) {
          throw new IOException(
              table + ": " + attempt + " commits lost to other runs' commits: " + e.getMessage(),
              e);
        }
        LOG.info("{}: another run committed first, committing again: {}", table, e.getMessage());
      } catch (UncheckedIOException e) {
        throw e.getCause();
      } catch (FSError e) {
        // Hadoop's local file system throws a failed write (a full disk) as an Error.
        throw new IOException("could not commit to " + table + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Whether the latest version of a table holds files of {@code run}'s rows of {@code date}: a run
   * that committed its tables and died before it published them (so no pointer names it) still has
   * readers through the table until a later run of the date replaces it there.
   */
  static boolean holds(Configuration conf, Path table, String date, String run) throws IOException {
    FileSystem fs = table.getFileSystem(conf);
    if (!exists(fs, table)) {
      return false;
    }
    Engine engine = DefaultEngine.create(conf);
    Snapshot snapshot =
        Table.forPath(engine, fs.makeQualified(table).toString()).getLatestSnapshot(engine);
    for (AddFile file : filesOf(engine, snapshot, Set.of(date))) {
      if (run.equals(partitionValue(file.getPartitionValues(), FleetOutput.RUN))) {
        return true;
      }
    }
    return false;
  }

  /** A commit ready to be made: its transaction, its actions, the dates it replaces. */
  private record Prepared(Transaction txn, List<Row> actions, Set<String> dates) {}

  private static Prepared prepare(
      Engine engine,
      FileSystem fs,
      Table delta,
      Path table,
      String sparkSchemaJson,
      List<Object> dates,
      String run,
      Map<String, String> alsoPublished)
      throws IOException {
    boolean exists = exists(delta, engine);
    TransactionBuilder builder =
        delta.createTransactionBuilder(
            engine, ENGINE_INFO, exists ? Operation.WRITE : Operation.CREATE_TABLE);
    if (!exists) {
      builder =
          builder
              .withSchema(engine, DataTypeJsonSerDe.deserializeStructType(sparkSchemaJson))
              .withPartitionColumns(engine, PARTITION_COLUMNS);
    }
    Transaction txn = builder.build(engine);
    List<Row> actions = new ArrayList<>();
    Set<String> replaced = new LinkedHashSet<>();
    dates.forEach(d -> replaced.add(String.valueOf(d)));
    if (exists) {
      removals(delta, engine, txn.getReadTableVersion(), replaced, actions);
    } else {
      for (Map.Entry<String, String> e : alsoPublished.entrySet()) {
        if (!replaced.contains(e.getKey())) {
          additions(fs, engine, txn, table, e.getKey(), e.getValue(), actions);
        }
      }
    }
    for (String date : replaced) {
      additions(fs, engine, txn, table, date, run, actions);
    }
    return new Prepared(txn, actions, replaced);
  }

  /**
   * Prepares, without making it, the commit a run will make to a table: the Kernel's classes load
   * while the run's Spark jobs work, not at its publish, where nothing else runs. Never fails.
   */
  static void warmUp(Configuration conf, Path table, List<Object> dates) {
    try {
      Engine engine = DefaultEngine.create(withExclusiveCommits(conf, table));
      FileSystem fs = table.getFileSystem(conf);
      Table delta = Table.forPath(engine, fs.makeQualified(table).toString());
      String schema =
          "{\"type\":\"struct\",\"fields\":["
              + "{\"name\":\"date\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},"
              + "{\"name\":\"run\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}";
      prepare(engine, fs, delta, table, schema, dates, "warm-up", Map.of());
    } catch (IOException | RuntimeException e) {
      LOG.debug("{}: warming up the commit failed: {}", table, e.toString());
    }
  }

  /** Whether a table has a log (and so a version). */
  static boolean exists(FileSystem fs, Path table) throws IOException {
    return fs.exists(new Path(table, LOG_DIRECTORY));
  }

  private static boolean exists(Table delta, Engine engine) {
    try {
      delta.getLatestSnapshot(engine);
      return true;
    } catch (TableNotFoundException e) {
      return false;
    }
  }

  /** Removals of every file the table's {@code version} holds for {@code dates}. */
  private static void removals(
      Table delta, Engine engine, long version, Set<String> dates, List<Row> actions)
      throws IOException {
    long now = System.currentTimeMillis();
    for (AddFile file : filesOf(engine, delta.getSnapshotAsOfVersion(engine, version), dates)) {
      actions.add(
          SingleAction.createRemoveFileSingleAction(file.toRemoveFileRow(true, Optional.of(now))));
    }
  }

  /** The files a snapshot holds for {@code dates}. */
  private static List<AddFile> filesOf(Engine engine, Snapshot snapshot, Set<String> dates)
      throws IOException {
    DataType dateType = snapshot.getSchema().get("date").getDataType();
    Predicate anyDate = null;
    for (String d : dates) {
      Predicate one = new Predicate("=", new Column("date"), literal(dateType, d));
      anyDate = anyDate == null ? one : new Predicate("OR", anyDate, one);
    }
    List<AddFile> files = new ArrayList<>();
    Scan scan = snapshot.getScanBuilder().withFilter(anyDate).build();
    try (CloseableIterator<Row> scanFiles = Utils.intoRows(scan.getScanFiles(engine))) {
      while (scanFiles.hasNext()) {
        AddFile file = new AddFile(scanFiles.next().getStruct(0));
        // The filter prunes by partition; this keeps exactly the dates asked for.
        if (dates.contains(partitionValue(file.getPartitionValues(), "date"))) {
          files.add(file);
        }
      }
    }
    return files;
  }

  /** Additions of a run's files of a date: none when the run wrote no rows for it. */
  private static void additions(
      FileSystem fs,
      Engine engine,
      Transaction txn,
      Path table,
      String date,
      String run,
      List<Row> actions)
      throws IOException {
    Path dir = new Path(table, "date=" + date + "/" + FleetOutput.RUN + "=" + run);
    FileStatus[] listed;
    try {
      listed =
          fs.listStatus(dir, p -> !p.getName().startsWith("_") && !p.getName().startsWith("."));
    } catch (FileNotFoundException e) {
      return;
    }
    List<DataFileStatus> files = new ArrayList<>();
    for (FileStatus st : listed) {
      if (st.isFile()) {
        files.add(
            new DataFileStatus(
                fs.makeQualified(st.getPath()).toString(),
                st.getLen(),
                st.getModificationTime(),
                Optional.empty()));
      }
    }
    if (files.isEmpty()) {
      return;
    }
    Row state = txn.getTransactionState(engine);
    DataType dateType = txn.getSchema(engine).get("date").getDataType();
    DataWriteContext context =
        Transaction.getWriteContext(
            engine,
            state,
            Map.of("date", literal(dateType, date), FleetOutput.RUN, Literal.ofString(run)));
    try (CloseableIterator<Row> adds =
        Transaction.generateAppendActions(
            engine, state, Utils.toCloseableIterator(files.iterator()), context)) {
      adds.forEachRemaining(actions::add);
    }
  }

  private static Literal literal(DataType type, String date) {
    return type instanceof DateType
        ? Literal.ofDate((int) LocalDate.parse(date).toEpochDay())
        : Literal.ofString(date);
  }

  private static String partitionValue(MapValue values, String key) {
    for (int i = 0; i < values.getSize(); i++) {
      if (key.equals(values.getKeys().getString(i))) {
        return values.getValues().getString(i);
      }
    }
    return null;
  }

  /**
   * A copy of {@code conf} whose commits to {@code table}, unless it is on an object store, go
   * through {@link FileSystemLogStore}.
   */
  private static Configuration withExclusiveCommits(Configuration conf, Path table)
      throws IOException {
    Configuration copy = new Configuration(conf);
    String scheme = table.getFileSystem(conf).getUri().getScheme();
    if (!FleetOutput.OBJECT_STORES.contains(scheme)) {
      copy.set("io.delta.kernel.logStore." + scheme + ".impl", FileSystemLogStore.class.getName());
    }
    return copy;
  }

  /**
   * Delta's log store for HDFS, writing a commit through Hadoop's {@link FileSystem} API rather
   * than its {@code FileContext} (which only file systems with an {@code AbstractFileSystem}
   * binding have). A commit must fail when its version exists, atomically: on a local disk it is
   * made by a hard link ({@code link(2)} fails when the file exists; Kernel's default checks, then
   * renames, and two processes could both pass the check); elsewhere by a rename that does not
   * overwrite (atomic on HDFS).
   */
  public static final class FileSystemLogStore extends HDFSLogStore {
    public FileSystemLogStore(Configuration conf) {
      super(conf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
        throws IOException {
      StringBuilder text = new StringBuilder();
      actions.forEachRemaining(a -> text.append(a).append('\n'));
      byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
      FileSystem fs = path.getFileSystem(conf);
      FileSystem raw = fs instanceof LocalFileSystem local ? local.getRaw() : fs;
      if (raw instanceof RawLocalFileSystem local) {
        writeLocal(local.pathToFile(path).toPath(), bytes, overwrite, path);
        return;
      }
      Path tmp =
          new Path(path.getParent(), "." + path.getName() + "." + UUID.randomUUID() + ".tmp");
      try {
        try (OutputStream out = fs.create(tmp, false)) {
          out.write(bytes);
        }
        if (overwrite) {
          fs.delete(path, false);
        }
        if (!fs.rename(tmp, path)) {
          if (fs.exists(path)) {
            throw new java.nio.file.FileAlreadyExistsException(path.toString());
          }
          throw new IOException("could not rename " + tmp + " to " + path);
        }
      } finally {
        fs.delete(tmp, false);
      }
    }

    private static void writeLocal(
        java.nio.file.Path target, byte[] bytes, boolean overwrite, Path path) throws IOException {
      java.nio.file.Files.createDirectories(target.getParent());
      java.nio.file.Path tmp =
          java.nio.file.Files.createTempFile(
              target.getParent(), "." + target.getFileName(), ".tmp");
      try {
        java.nio.file.Files.write(tmp, bytes);
        if (overwrite) {
          java.nio.file.Files.move(
              tmp,
              target,
              java.nio.file.StandardCopyOption.ATOMIC_MOVE,
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          return;
        }
        try {
          java.nio.file.Files.createLink(target, tmp);
        } catch (java.nio.file.FileAlreadyExistsException e) {
          throw new java.nio.file.FileAlreadyExistsException(path.toString());
        }
      } finally {
        java.nio.file.Files.deleteIfExists(tmp);
      }
    }
  }
}
