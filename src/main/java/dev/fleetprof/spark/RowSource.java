package dev.fleetprof.spark;

import java.io.Closeable;
import java.io.IOException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;

/** The rows of one slice of one file. */
interface RowSource extends Closeable {
  RowSource EMPTY = new RowSource() {
    @Override
    public boolean next() {
      return false;
    }

    @Override
    public GenericInternalRow row() {
      throw new IllegalStateException("no rows");
    }

    @Override
    public void close() {}
  };

  boolean next() throws IOException;

  /** The current row; valid until the next call to {@link #next()}. */
  GenericInternalRow row();
}
