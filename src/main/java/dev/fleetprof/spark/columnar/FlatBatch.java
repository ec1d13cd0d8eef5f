package dev.fleetprof.spark.columnar;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A reusable batch of rows with flat columns, filled either row by row from any reader's rows, or,
 * by a reader that knows which of its columns change from record to record, with those columns'
 * values only and every other column held once as a constant of the batch (a file's path, format,
 * period, partition values). A constant batch holds rows of one file.
 */
public final class FlatBatch {
  /** Rows per batch, as Spark's own vectorized readers use. */
  public static final int CAPACITY = 4096;

  private final DataType[] types;
  private final FlatColumnVector[] vectors;
  private final ColumnarBatch batch;
  private int size;
  private boolean constants;

  public FlatBatch(StructType schema) {
    types = new DataType[schema.size()];
    vectors = new FlatColumnVector[schema.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = schema.fields()[i].dataType();
      vectors[i] = new FlatColumnVector(types[i], CAPACITY);
    }
    batch = new ColumnarBatch(vectors);
  }

  /** Empties the batch; its columns take a value per row until {@link #useConstants}. */
  public void reset() {
    size = 0;
    constants = false;
    for (FlatColumnVector v : vectors) {
      v.setVarying();
    }
  }

  /**
   * For an empty batch: every column but {@code varying} has {@code template}'s value in every row;
   * the varying ones are then set with {@link #putLong} for each row before {@link #endRow}.
   */
  public void useConstants(InternalRow template, int... varying) {
    if (size != 0) {
      throw new IllegalStateException("constants are set on an empty batch");
    }
    constants = true;
    for (int i = 0; i < vectors.length; i++) {
      vectors[i].setConstant(template.isNullAt(i) ? null : template.get(i, types[i]));
    }
    for (int i : varying) {
      if (i >= 0) {
        vectors[i].setVarying();
      }
    }
  }

  public boolean full() {
    return size == CAPACITY;
  }

  public int size() {
    return size;
  }

  /** Sets a varying 64-bit column of the row being added. */
  public void putLong(int ordinal, long value) {
    vectors[ordinal].putLong(size, value);
  }

  public void endRow() {
    size++;
  }

  /** Adds a copy of a row's values (they are immutable objects, so references are copied). */
  public void addRow(InternalRow row) {
    if (constants) {
      throw new IllegalStateException("a batch of constants takes varying values only");
    }
    for (int i = 0; i < vectors.length; i++) {
      vectors[i].put(size, row.isNullAt(i) ? null : row.get(i, types[i]));
    }
    size++;
  }

  /** The batch as Spark reads it; valid until the next {@link #reset}. */
  public ColumnarBatch batch() {
    batch.setNumRows(size);
    return batch;
  }

  public void close() {
    for (ColumnVector v : vectors) {
      v.close();
    }
  }
}
