package dev.fleetprof.spark.read;

import dev.fleetprof.format.MappingIndex;
import dev.fleetprof.spark.columnar.FlatBatch;
import java.io.Closeable;
import java.io.IOException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;

/** The rows of one slice of one file. */
interface RowSource extends Closeable {
  RowSource EMPTY =
      new RowSource() {
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

  /** The executable mappings of the file, for building chain columns from its pcs. */
  default MappingIndex mappings() {
    return MappingIndex.EMPTY;
  }

  /**
   * Whether the chain columns built from {@link #mappings} put callers' frames at their return
   * address minus one (see {@code gperftools.callerAddress}).
   */
  default boolean callersMinusOne() {
    return false;
  }

  /**
   * Columnar reads: adds this source's next rows to an empty batch until it is full or the source
   * ends; false when there were none. A problem found after some rows throws and leaves them in the
   * batch. Sources that can skip building rows override this.
   */
  default boolean fillBatch(FlatBatch batch) throws IOException {
    while (!batch.full() && next()) {
      batch.addRow(row());
    }
    return batch.size() > 0;
  }
}
