package dev.fleetprof.spark.pushdown;

import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.split.SplitPlanner.Slice;
import java.io.Serializable;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Where each known column sits in the (pruned) read schema, or -1 when the query does not need it;
 * {@code partitions[i]} is where partition column i goes.
 */
public record RequiredColumns(
    int width,
    int path,
    int format,
    int kind,
    int pcs,
    int count,
    int mapping,
    int frames,
    int period,
    int periodUnit,
    int recordOffset,
    int histogram,
    int dcpi,
    int pprof,
    int error,
    int stackId,
    int metadata,
    int[] partitions,
    boolean keepMappings)
    implements Serializable {

  static RequiredColumns of(StructType schema, StructType partitionSchema) {
    return of(schema, partitionSchema, false);
  }

  /**
   * @param keepMappings whether files' mappings are decoded even when no column of {@code schema}
   *     needs them (a pushed aggregation builds chain columns from them once per distinct chain)
   */
  public static RequiredColumns of(
      StructType schema, StructType partitionSchema, boolean keepMappings) {
    int[] partitions = new int[partitionSchema.size()];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = index(schema, partitionSchema.fields()[i].name());
    }
    return new RequiredColumns(
        schema.fields().length,
        index(schema, ProfileSchema.PATH),
        index(schema, ProfileSchema.FORMAT),
        index(schema, ProfileSchema.KIND),
        index(schema, ProfileSchema.PCS),
        index(schema, ProfileSchema.COUNT),
        index(schema, ProfileSchema.MAPPING),
        index(schema, ProfileSchema.FRAMES),
        index(schema, ProfileSchema.PERIOD),
        index(schema, ProfileSchema.PERIOD_UNIT),
        index(schema, ProfileSchema.RECORD_OFFSET),
        index(schema, ProfileSchema.HISTOGRAM),
        index(schema, ProfileSchema.DCPI),
        index(schema, ProfileSchema.PPROF),
        index(schema, ProfileSchema.ERROR),
        index(schema, ProfileSchema.STACK_ID),
        index(schema, ProfileSchema.METADATA),
        partitions,
        keepMappings);
  }

  private static int index(StructType schema, String name) {
    String[] names = schema.fieldNames();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Where a column only some format fills ({@link dev.fleetprof.format.ProfileFormat#columns()})
   * sits in the read schema, or -1 when the query does not read it or the schema has no such
   * column.
   */
  public int formatColumn(String name) {
    return switch (name) {
      case ProfileSchema.HISTOGRAM -> histogram;
      case ProfileSchema.DCPI -> dcpi;
      case ProfileSchema.PPROF -> pprof;
      default -> -1;
    };
  }

  /** Whether call chains must be decoded at all. */
  public boolean needsPcs() {
    return pcs >= 0 || frames >= 0 || mapping >= 0 || stackId >= 0;
  }

  /** Whether the file's mappings must be known. */
  public boolean needsMappings() {
    return frames >= 0 || mapping >= 0 || stackId >= 0 || keepMappings;
  }

  /** Puts a file's partition values (null: none) into a row that readers then reuse. */
  public void setPartitionValues(GenericInternalRow row, Object[] values) {
    for (int i = 0; i < partitions.length; i++) {
      if (partitions[i] >= 0) {
        row.update(partitions[i], values == null ? null : values[i]);
      }
    }
  }

  /**
   * Puts the {@code _metadata} of a slice into a row that readers then reuse (nothing when the
   * query does not read it).
   */
  public void setFileMetadata(GenericInternalRow row, Slice slice, long modifiedMillis) {
    if (metadata < 0) {
      return;
    }
    Path path = new Path(slice.path());
    row.update(
        metadata,
        new GenericInternalRow(
            new Object[] {
              UTF8String.fromString(path.toUri().toString()),
              UTF8String.fromString(path.getName()),
              slice.fileLength(),
              slice.start(),
              slice.end() - slice.start(),
              modifiedMillis * 1000
            }));
  }
}
