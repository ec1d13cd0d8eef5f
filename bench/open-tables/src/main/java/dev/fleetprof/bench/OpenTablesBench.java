package dev.fleetprof.bench;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * What making the fleet job's six datasets Delta tables costs a run, three ways, measured in one
 * JVM against the plain Parquet writes the job does today (docs/open-tables.md).
 *
 * <p>Each round replaces one date in six tables: {@code parquet} writes each dataset's rows into
 * {@code DATASET/date=D/run=R/} (one Spark job each, the job's writes today); {@code delta-spark}
 * writes them with Delta's own Spark writer, {@code mode=overwrite} and {@code replaceWhere "date =
 * D"}, once with Delta's defaults and once tuned for small tables; {@code iceberg} writes them
 * into Iceberg tables of its file-only (Hadoop) catalog, {@code overwrite(date = D)}; {@code
 * parquet + kernel commit}
 * writes the Parquet files as today, then commits each table's new files and the removal of the
 * date's old ones with Delta Kernel on the driver. Round 0 creates the tables (the first use of
 * each writer in the JVM); the later rounds replace the date, in an order rotated every round, and
 * their medians are compared with the Parquet writes of the same rounds.
 */
public final class OpenTablesBench {
  private static final List<String> DATASETS =
      List.of("host_stacks", "stacks", "locations", "functions", "modules", "summary");
  private static final String DATE = "2026-11-28";

  private static final StructType KERNEL_SCHEMA =
      new StructType()
          .add("id", LongType.LONG)
          .add("v", LongType.LONG)
          .add("date", DateType.DATE)
          .add("run", StringType.STRING);

  private final SparkSession spark;
  private final String root;
  private final long rows;
  private final AtomicInteger jobs = new AtomicInteger();
  private final Engine engine = DefaultEngine.create(new Configuration());

  private OpenTablesBench(SparkSession spark, String root, long rows) {
    this.spark = spark;
    this.root = root;
    this.rows = rows;
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onJobStart(SparkListenerJobStart start) {
                jobs.incrementAndGet();
              }
            });
  }

  /** One way of replacing the date in the six tables. */
  private interface Writer {
    void replaceDate(String run) throws IOException;
  }

  /** A writer's times and Spark jobs: round 0 first, then one entry per replacing round. */
  private record Measured(List<Double> millis, List<Integer> jobs) {}

  public static void main(String[] args) throws Exception {
    String root = args.length > 0 ? args[0] : "target/open-tables";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    long rows = args.length > 2 ? Long.parseLong(args[2]) : 20_000;
    FileSystem.getLocal(new Configuration()).delete(new Path(root), true);
    SparkSession spark =
        SparkSession.builder()
            .master("local[*]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "256")
            .config("spark.sql.adaptive.enabled", "true")
            .config("spark.sql.parquet.compression.codec", "zstd")
            // Delta's writer refuses to run without them; the other writers ignore them.
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            // Iceberg's file-only catalog: the one that needs no server.
            .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.bench.type", "hadoop")
            .config("spark.sql.catalog.bench.warehouse", root + "/iceberg")
            .getOrCreate();
    try {
      new OpenTablesBench(spark, root, rows).run(rounds);
    } finally {
      spark.stop();
    }
  }

  private void run(int rounds) throws IOException {
    // Spark's own first write is paid before any writer is measured.
    spark.range(10).write().mode("overwrite").parquet(root + "/warm-up");

    Map<String, Writer> writers = new LinkedHashMap<>();
    writers.put("parquet (the job today)", run -> writeParquet(root + "/parquet", run));
    writers.put("delta-spark, defaults", run -> writeDeltaSpark(root + "/delta-spark", run, false));
    writers.put(
        "delta-spark, tuned for small tables",
        run -> writeDeltaSpark(root + "/delta-spark-tuned", run, true));
    writers.put("iceberg, hadoop catalog", this::writeIceberg);
    writers.put(
        "parquet + kernel commit",
        run -> {
          writeParquet(root + "/kernel", run);
          for (String dataset : DATASETS) {
            commitWithKernel(root + "/kernel/" + dataset, run);
          }
        });

    Map<String, Measured> measured = new LinkedHashMap<>();
    writers.keySet().forEach(w -> measured.put(w, new Measured(new ArrayList<>(), new ArrayList<>())));
    List<String> names = new ArrayList<>(writers.keySet());
    for (int round = 0; round <= rounds; round++) {
      String run = "r" + round;
      for (int i = 0; i < names.size(); i++) {
        // Round 0 in declaration order; later rounds rotate it, so no writer always goes first.
        String name = names.get((i + round) % names.size());
        int jobsBefore = jobs.get();
        long start = System.nanoTime();
        writers.get(name).replaceDate(run);
        measured.get(name).millis().add((System.nanoTime() - start) / 1e6);
        measured.get(name).jobs().add(jobs.get() - jobsBefore);
      }
      System.out.printf("round %d done%n", round);
    }
    print(measured, names.get(0), rounds);
    check(rounds);
  }

  private void writeParquet(String table, String run) {
    for (String dataset : DATASETS) {
      spark
          .range(rows)
          .selectExpr("id", "id * 10 as v")
          .write()
          .mode("overwrite")
          .parquet(table + "/" + dataset + "/date=" + DATE + "/run=" + run);
    }
  }

  private void writeDeltaSpark(String table, String run, boolean tuned) {
    // Snapshot state in one partition, no per-file statistics, no check that the rows match the
    // predicate (they do by construction), no checksum file after each commit.
    spark.conf().set("spark.databricks.delta.snapshotPartitions", tuned ? "1" : "50");
    spark.conf().set("spark.databricks.delta.stats.collect", String.valueOf(!tuned));
    spark
        .conf()
        .set("spark.databricks.delta.replaceWhere.constraintCheck.enabled", String.valueOf(!tuned));
    spark.conf().set("spark.databricks.delta.writeChecksumFile.enabled", String.valueOf(!tuned));
    for (String dataset : DATASETS) {
      spark
          .range(rows)
          .selectExpr(
              "id", "id * 10 as v", "date '" + DATE + "' as date", "'" + run + "' as run")
          .write()
          .format("delta")
          .mode("overwrite")
          .option("replaceWhere", "date = '" + DATE + "'")
          .partitionBy("date", "run")
          .save(table + "/" + dataset);
    }
  }

  private void writeIceberg(String run) {
    for (String dataset : DATASETS) {
      String table = "bench.fleet." + dataset;
      var rowsOfRun =
          spark
              .range(rows)
              .selectExpr(
                  "id", "id * 10 as v", "date '" + DATE + "' as date", "'" + run + "' as run");
      if (!spark.catalog().tableExists(table)) {
        try {
          rowsOfRun.writeTo(table).partitionedBy(new org.apache.spark.sql.Column("date")).create();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      } else {
        try {
          rowsOfRun.writeTo(table).overwrite(org.apache.spark.sql.functions.expr("date = date '" + DATE + "'"));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /**
   * One Delta commit that replaces the date's files with the run's: the table is created by the
   * first commit; the date's current files (found through the snapshot's partition values) are
   * removed in the same commit that adds the new ones.
   */
  private long commitWithKernel(String table, String run) throws IOException {
    Table delta = Table.forPath(engine, table);
    boolean exists;
    try {
      delta.getLatestSnapshot(engine);
      exists = true;
    } catch (TableNotFoundException e) {
      exists = false;
    }
    var builder =
        delta.createTransactionBuilder(
            engine, "fleetprof", exists ? Operation.WRITE : Operation.CREATE_TABLE);
    if (!exists) {
      builder =
          builder.withSchema(engine, KERNEL_SCHEMA).withPartitionColumns(engine, List.of("date", "run"));
    }
    Transaction txn = builder.build(engine);
    Row state = txn.getTransactionState(engine);
    int epochDay = (int) LocalDate.parse(DATE).toEpochDay();
    List<Row> actions = new ArrayList<>();
    if (exists) {
      Scan scan =
          delta
              .getSnapshotAsOfVersion(engine, txn.getReadTableVersion())
              .getScanBuilder()
              .withFilter(new Predicate("=", new Column("date"), Literal.ofDate(epochDay)))
              .build();
      long now = System.currentTimeMillis();
      try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
        while (files.hasNext()) {
          try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
            while (scanFiles.hasNext()) {
              AddFile file = new AddFile(scanFiles.next().getStruct(0));
              if (DATE.equals(partitionValue(file.getPartitionValues(), "date"))) {
                actions.add(
                    SingleAction.createRemoveFileSingleAction(
                        file.toRemoveFileRow(true, Optional.of(now))));
              }
            }
          }
        }
      }
    }
    Path dir = new Path(table + "/date=" + DATE + "/run=" + run);
    List<DataFileStatus> written = new ArrayList<>();
    for (var st : dir.getFileSystem(new Configuration()).listStatus(dir, p -> p.getName().endsWith(".parquet"))) {
      written.add(
          new DataFileStatus(
              st.getPath().toUri().toString(), st.getLen(), st.getModificationTime(), Optional.empty()));
    }
    DataWriteContext context =
        Transaction.getWriteContext(
            engine, state, Map.of("date", Literal.ofDate(epochDay), "run", Literal.ofString(run)));
    try (CloseableIterator<Row> adds =
        Transaction.generateAppendActions(engine, state, closeable(written.iterator()), context)) {
      adds.forEachRemaining(actions::add);
    }
    return txn.commit(engine, CloseableIterable.inMemoryIterable(closeable(actions.iterator())))
        .getVersion();
  }

  private static String partitionValue(MapValue values, String key) {
    for (int i = 0; i < values.getSize(); i++) {
      if (key.equals(values.getKeys().getString(i))) {
        return values.getValues().getString(i);
      }
    }
    return null;
  }

  private static <T> CloseableIterator<T> closeable(Iterator<T> it) {
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public T next() {
        return it.next();
      }

      @Override
      public void close() {}
    };
  }

  private static void print(Map<String, Measured> measured, String reference, int rounds) {
    Measured ref = measured.get(reference);
    System.out.printf(
        "%nsix tables, one date replaced per round, %d replacing rounds (medians)%n%n", rounds);
    System.out.println(
        "| writer | round 0 (creates; first use in the JVM) | jobs | replace a date | jobs | x parquet |");
    System.out.println("|---|--:|--:|--:|--:|--:|");
    for (var e : measured.entrySet()) {
      Measured m = e.getValue();
      List<Double> ratios = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        ratios.add(m.millis().get(r) / ref.millis().get(r));
      }
      System.out.printf(
          "| %s | %.0f ms | %d | %.0f ms | %d | %.2fx |%n",
          e.getKey(),
          m.millis().get(0),
          m.jobs().get(0),
          median(m.millis().subList(1, rounds + 1)),
          m.jobs().get(rounds),
          median(ratios));
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * What the kernel-committed tables hold, read three ways: Delta's Spark reader and the kernel
   * see the last round only; a bare Parquet reader of the same directory sees every round.
   */
  private void check(int rounds) {
    String table = root + "/kernel/functions";
    long delta = spark.read().format("delta").load(table).count();
    long firstVersion = spark.read().format("delta").option("versionAsOf", 0).load(table)
        .where("run = 'r0'").count();
    long bare = spark.read().parquet(table).count();
    System.out.printf(
        "%nkernel-committed %s: Delta's Spark reader sees %d rows (one run: %s), version 0 %d rows of"
            + " run r0; a bare Parquet reader of the same directory %d rows (%d runs)%n",
        table, delta, delta == rows ? "yes" : "NO", firstVersion, bare, bare / rows);
    if (delta != rows || firstVersion != rows || bare != rows * (rounds + 1)) {
      throw new IllegalStateException("the kernel-committed table does not hold what was committed");
    }
  }
}
