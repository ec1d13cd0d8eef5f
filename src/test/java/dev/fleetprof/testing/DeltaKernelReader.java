package dev.fleetprof.testing;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * A reader of Delta tables that is neither Spark nor fleetprof: Delta Kernel's own, as another
 * engine reads the fleet job's tables (a dashboard's, another team's job). Reads a table's latest
 * version, some columns, into plain Java values: strings, dates as {@link LocalDate}, longs,
 * decimals.
 */
public final class DeltaKernelReader {
  private final Engine engine = DefaultEngine.create(new Configuration());

  /** A table's rows at one version, and that version. */
  public record Version(long version, List<Map<String, Object>> rows) {}

  /** The latest version of the table at {@code path}, its {@code columns}. */
  public Version latest(String path, List<String> columns) {
    try {
      Snapshot snapshot = Table.forPath(engine, path).getLatestSnapshot(engine);
      return new Version(snapshot.getVersion(), rows(snapshot, columns));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<Map<String, Object>> rows(Snapshot snapshot, List<String> columns)
      throws IOException {
    StructType wanted = new StructType();
    for (String c : columns) {
      wanted = wanted.add(snapshot.getSchema().get(c));
    }
    Scan scan = snapshot.getScanBuilder().withReadSchema(wanted).build();
    Row state = scan.getScanState(engine);
    StructType physical = ScanStateRow.getPhysicalDataReadSchema(engine, state);
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> scanFiles = scan.getScanFiles(engine)) {
      while (scanFiles.hasNext()) {
        try (CloseableIterator<Row> files = scanFiles.next().getRows()) {
          while (files.hasNext()) {
            Row file = files.next();
            CloseableIterator<ColumnarBatch> data =
                engine
                    .getParquetHandler()
                    .readParquetFiles(
                        Utils.singletonCloseableIterator(
                            InternalScanFileUtils.getAddFileStatus(file)),
                        physical,
                        Optional.empty());
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, state, file, data)) {
              while (logical.hasNext()) {
                addRows(logical.next(), rows);
              }
            }
          }
        }
      }
    }
    return rows;
  }

  private static void addRows(FilteredColumnarBatch filtered, List<Map<String, Object>> rows) {
    ColumnarBatch batch = filtered.getData();
    Optional<ColumnVector> selected = filtered.getSelectionVector();
    StructType schema = batch.getSchema();
    for (int r = 0; r < batch.getSize(); r++) {
      if (selected.isPresent() && (selected.get().isNullAt(r) || !selected.get().getBoolean(r))) {
        continue;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      for (int c = 0; c < schema.length(); c++) {
        StructField field = schema.at(c);
        row.put(field.getName(), value(batch.getColumnVector(c), field.getDataType(), r));
      }
      rows.add(row);
    }
  }

  private static Object value(ColumnVector v, DataType type, int row) {
    if (v.isNullAt(row)) {
      return null;
    }
    if (type instanceof StringType) {
      return v.getString(row);
    }
    if (type instanceof DateType) {
      return LocalDate.ofEpochDay(v.getInt(row));
    }
    if (type instanceof LongType) {
      return v.getLong(row);
    }
    if (type instanceof DecimalType) {
      return v.getDecimal(row);
    }
    throw new IllegalArgumentException("not read by this test reader: " + type);
  }
}
