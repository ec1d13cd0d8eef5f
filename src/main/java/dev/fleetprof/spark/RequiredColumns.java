package dev.fleetprof.spark;

import java.io.Serializable;
import org.apache.spark.sql.types.StructType;

/** Where each known column sits in the (pruned) read schema, or -1 when the query does not need it. */
record RequiredColumns(int width, int path, int format, int kind, int pcs, int count, int mapping,
    int frames, int period, int periodUnit, int recordOffset, int histogram, int dcpi) implements Serializable {

  static RequiredColumns of(StructType schema) {
    return new RequiredColumns(schema.fields().length, index(schema, ProfileSchema.PATH),
        index(schema, ProfileSchema.FORMAT), index(schema, ProfileSchema.KIND),
        index(schema, ProfileSchema.PCS), index(schema, ProfileSchema.COUNT),
        index(schema, ProfileSchema.MAPPING), index(schema, ProfileSchema.FRAMES),
        index(schema, ProfileSchema.PERIOD), index(schema, ProfileSchema.PERIOD_UNIT),
        index(schema, ProfileSchema.RECORD_OFFSET), index(schema, ProfileSchema.HISTOGRAM),
        index(schema, ProfileSchema.DCPI));
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

  /** Whether call chains must be decoded at all. */
  boolean needsPcs() {
    return pcs >= 0 || frames >= 0 || mapping >= 0;
  }

  /** Whether the file's mappings must be known. */
  boolean needsMappings() {
    return frames >= 0 || mapping >= 0;
  }
}
