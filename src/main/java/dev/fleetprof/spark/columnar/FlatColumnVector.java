package dev.fleetprof.spark.columnar;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One flat (non-nested) column of a batch, on Spark's public {@link ColumnVector} API: 64-bit
 * values in a primitive array, anything else (strings, partition values of any type) as the objects
 * an {@code InternalRow} holds; or one value for every row of the batch, as a file's path, format
 * and partition values are. Nested columns (call chains) are never read columnar: Spark would copy
 * them element by element out of vectors, more slowly than out of the rows the reader builds for
 * them.
 */
public final class FlatColumnVector extends ColumnVector {
  private final boolean primitiveLongs;
  private long[] longs;
  private boolean[] nulls;
  private Object[] objects;
  private boolean constant;
  private long constantLong;
  private Object constantObject;
  private boolean anyNull;

  FlatColumnVector(DataType type, int capacity) {
    super(type);
    primitiveLongs =
        type.equals(DataTypes.LongType)
            || type.equals(DataTypes.TimestampType)
            || type.equals(DataTypes.TimestampNTZType);
    if (primitiveLongs) {
      longs = new long[capacity];
      nulls = new boolean[capacity];
    } else {
      objects = new Object[capacity];
    }
  }

  /** Every row of the batch has this value (an InternalRow's object for the type, or null). */
  void setConstant(Object value) {
    constant = true;
    anyNull = value == null;
    constantObject = value;
    if (primitiveLongs && value != null) {
      constantLong = (Long) value;
    }
  }

  /** Starts a batch whose rows each have their own value. */
  void setVarying() {
    constant = false;
    anyNull = false;
  }

  void putLong(int rowId, long value) {
    longs[rowId] = value;
    nulls[rowId] = false;
  }

  /** An InternalRow's object for the type, or null. */
  void put(int rowId, Object value) {
    if (value == null) {
      anyNull = true;
    }
    if (primitiveLongs) {
      nulls[rowId] = value == null;
      longs[rowId] = value == null ? 0 : (Long) value;
    } else {
      objects[rowId] = value;
    }
  }

  private Object object(int rowId) {
    return constant ? constantObject : objects[rowId];
  }

  @Override
  public boolean hasNull() {
    return anyNull;
  }

  @Override
  public int numNulls() {
    throw new UnsupportedOperationException("numNulls of a batch built row by row");
  }

  @Override
  public boolean isNullAt(int rowId) {
    if (constant) {
      return constantObject == null;
    }
    return primitiveLongs ? nulls[rowId] : objects[rowId] == null;
  }

  @Override
  public long getLong(int rowId) {
    if (primitiveLongs) {
      return constant ? constantLong : longs[rowId];
    }
    return (Long) object(rowId);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return (UTF8String) object(rowId);
  }

  @Override
  public int getInt(int rowId) {
    return (Integer) object(rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return (Boolean) object(rowId);
  }

  @Override
  public byte getByte(int rowId) {
    return (Byte) object(rowId);
  }

  @Override
  public short getShort(int rowId) {
    return (Short) object(rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return (Float) object(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return (Double) object(rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return (Decimal) object(rowId);
  }

  @Override
  public byte[] getBinary(int rowId) {
    return (byte[]) object(rowId);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw new UnsupportedOperationException("a flat column has no arrays");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw new UnsupportedOperationException("a flat column has no maps");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw new UnsupportedOperationException("a flat column has no children");
  }

  /** Spark frees a batch's vectors when done with it unless they are reused, as these are. */
  @Override
  public void closeIfFreeable() {}

  @Override
  public void close() {
    longs = null;
    nulls = null;
    objects = null;
    constantObject = null;
  }
}
