package org.loaderx.spark;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;

/**
 * How one Spark column is kept as loaderx stores, and its values' bytes. A numeric column
 * (byte, short, int, long, float, double) is a dense store of scalars; an array of a numeric
 * type is a ragged store of one-dimensional records, or a dense store of {@code width}-item
 * records when the write gives the column a fixed width (option {@code width.<column>}); binary
 * is a ragged store of {@code |u1}. Values are little-endian. Nulls and empty arrays or binary
 * values have no loaderx record and are refused, naming the column. Immutable.
 */
final class ColumnLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  final String name;
  final DataType type;
  /** The element type for arrays and binary (ByteType), else {@link #type}. */
  final DataType element;
  final boolean dense;
  /** Items per dense record: 0 for a scalar column, else the fixed array width. */
  final int width;

  private ColumnLayout(String name, DataType type, DataType element, boolean dense, int width) {
    this.name = name;
    this.type = type;
    this.element = element;
    this.dense = dense;
    this.width = width;
  }

  /**
   * The layout of {@code field}; {@code width} is 0, or the fixed item count of an array
   * column's every value.
   *
   * @throws IllegalArgumentException for a type loaderx cannot hold, or a width on a column
   *     that is not an array
   */
  static ColumnLayout of(StructField field, int width) {
    DataType type = field.dataType();
    if (isNumeric(type)) {
      if (width != 0) throw new IllegalArgumentException(
          "loaderx: column '" + field.name() + "' is not an array; it cannot have a width");
      return new ColumnLayout(field.name(), type, type, true, 0);
    }
    if (type instanceof ArrayType array && isNumeric(array.elementType())) {
      if (width < 0) throw new IllegalArgumentException(
          "loaderx: column '" + field.name() + "' has a negative width " + width);
      return new ColumnLayout(field.name(), type, array.elementType(), width > 0, width);
    }
    if (type instanceof BinaryType) {
      if (width != 0) throw new IllegalArgumentException(
          "loaderx: binary column '" + field.name() + "' cannot have a width");
      return new ColumnLayout(field.name(), type, org.apache.spark.sql.types.DataTypes.ByteType, false, 0);
    }
    throw new IllegalArgumentException(
        "loaderx: column '" + field.name() + "' has type " + type.simpleString()
            + "; loaderx holds numeric columns, arrays of numbers and binary");
  }

  private static boolean isNumeric(DataType t) {
    return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType
        || t instanceof LongType || t instanceof FloatType || t instanceof DoubleType;
  }

  /** {@return the stores' dtype: the element type's numpy-style name, little-endian} */
  String dtype() {
    if (element instanceof ByteType) return type instanceof BinaryType ? "|u1" : "|i1";
    if (element instanceof ShortType) return "<i2";
    if (element instanceof IntegerType) return "<i4";
    if (element instanceof LongType) return "<i8";
    if (element instanceof FloatType) return "<f4";
    return "<f8";
  }

  /** {@return bytes per element} */
  int itemSize() {
    return element.defaultSize();
  }

  /** {@return the dense stores' item shape: empty for scalars, {width} for arrays} */
  long[] itemShape() {
    return width == 0 ? new long[0] : new long[] {width};
  }

  /** {@return bytes per dense record} */
  int recordBytes() {
    return itemSize() * Math.max(1, width);
  }

  /** {@return how many elements column {@code ordinal} of {@code row} holds, checking it} */
  int items(InternalRow row, int ordinal) {
    if (row.isNullAt(ordinal)) throw new IllegalArgumentException(
        "loaderx: column '" + name + "' holds a null; loaderx records cannot be null");
    int n;
    if (type instanceof BinaryType) n = row.getBinary(ordinal).length;
    else if (type instanceof ArrayType) n = row.getArray(ordinal).numElements();
    else return 1;
    if (n == 0) throw new IllegalArgumentException(
        "loaderx: column '" + name + "' holds an empty value; loaderx records have items");
    if (dense && n != width) throw new IllegalArgumentException(
        "loaderx: column '" + name + "' has width " + width + " but holds a value of " + n);
    return n;
  }

  /** Puts column {@code ordinal} of {@code row} into {@code out} (little-endian). */
  void put(InternalRow row, int ordinal, ByteBuffer out) {
    if (type instanceof BinaryType) {
      out.put(row.getBinary(ordinal));
      return;
    }
    if (type instanceof ArrayType) {
      ArrayData a = row.getArray(ordinal);
      int n = a.numElements();
      for (int i = 0; i < n; i++) {
        if (a.isNullAt(i)) throw new IllegalArgumentException(
            "loaderx: column '" + name + "' holds an array with a null element");
        putElement(a, i, out);
      }
      return;
    }
    if (element instanceof ByteType) out.put(row.getByte(ordinal));
    else if (element instanceof ShortType) out.putShort(row.getShort(ordinal));
    else if (element instanceof IntegerType) out.putInt(row.getInt(ordinal));
    else if (element instanceof LongType) out.putLong(row.getLong(ordinal));
    else if (element instanceof FloatType) out.putFloat(row.getFloat(ordinal));
    else out.putDouble(row.getDouble(ordinal));
  }

  private void putElement(ArrayData a, int i, ByteBuffer out) {
    if (element instanceof ByteType) out.put(a.getByte(i));
    else if (element instanceof ShortType) out.putShort(a.getShort(i));
    else if (element instanceof IntegerType) out.putInt(a.getInt(i));
    else if (element instanceof LongType) out.putLong(a.getLong(i));
    else if (element instanceof FloatType) out.putFloat(a.getFloat(i));
    else out.putDouble(a.getDouble(i));
  }

  /**
   * {@return the Spark value of one record: {@code bytes} from its position, {@code items}
   * elements} (a boxed number, a byte[], or array data)
   */
  Object value(ByteBuffer bytes, int items) {
    ByteBuffer in = bytes.order(ByteOrder.LITTLE_ENDIAN);
    if (type instanceof BinaryType) {
      byte[] b = new byte[items];
      in.get(b);
      return b;
    }
    if (type instanceof ArrayType) {
      if (element instanceof ByteType) {
        byte[] v = new byte[items];
        in.get(v);
        return UnsafeArrayData.fromPrimitiveArray(v);
      }
      if (element instanceof ShortType) {
        short[] v = new short[items];
        in.asShortBuffer().get(v);
        in.position(in.position() + 2 * items);
        return UnsafeArrayData.fromPrimitiveArray(v);
      }
      if (element instanceof IntegerType) {
        int[] v = new int[items];
        in.asIntBuffer().get(v);
        in.position(in.position() + 4 * items);
        return UnsafeArrayData.fromPrimitiveArray(v);
      }
      if (element instanceof LongType) {
        long[] v = new long[items];
        in.asLongBuffer().get(v);
        in.position(in.position() + 8 * items);
        return UnsafeArrayData.fromPrimitiveArray(v);
      }
      if (element instanceof FloatType) {
        float[] v = new float[items];
        in.asFloatBuffer().get(v);
        in.position(in.position() + 4 * items);
        return UnsafeArrayData.fromPrimitiveArray(v);
      }
      double[] v = new double[items];
      in.asDoubleBuffer().get(v);
      in.position(in.position() + 8 * items);
      return UnsafeArrayData.fromPrimitiveArray(v);
    }
    if (element instanceof ByteType) return in.get();
    if (element instanceof ShortType) return in.getShort();
    if (element instanceof IntegerType) return in.getInt();
    if (element instanceof LongType) return in.getLong();
    if (element instanceof FloatType) return in.getFloat();
    return in.getDouble();
  }
}
