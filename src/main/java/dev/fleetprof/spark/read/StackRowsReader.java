package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A partition's stack rows ({@code rows=stacks}, see {@link ProfileSchema#stacks}): the row
 * reader's rows merged into a {@link GroupTable} keyed on the file's values (path, kind, period,
 * problem, partition values, a pprof profile's sample type) and the raw chain. Per group it keeps
 * the exact sums of the counts (and of a pprof profile's {@code samples} values) and the number of
 * rows; {@code stack_id} is computed once per group, {@code frames} only for the first group of
 * each {@code stack_id} the task returns. When the table holds {@code maxBytes} its groups are
 * returned and it starts again, so a file's chain may come in more than one row; readers of stack
 * rows merge rows of equal columns, as Spark merges partial aggregates.
 *
 * <p>Two different chains with the same {@code stack_id} would make the second's frames missing
 * from the task's rows: a second fingerprint of each chain is compared, and a chain whose check
 * differs from the first one's gets its frames too, so that the reader of the rows sees two frames
 * for one id.
 */
public final class StackRowsReader implements PartitionReader<InternalRow> {
  private static final int PPROF_FIELDS = ProfileSchema.PPROF_TYPE.size();
  private static final int PPROF_VALUES = ProfileSchema.PPROF_TYPE.fieldIndex("values");
  private static final int PPROF_SAMPLE_TYPES = ProfileSchema.PPROF_TYPE.fieldIndex("sample_types");
  private static final int PPROF_COUNT_INDEX = ProfileSchema.PPROF_TYPE.fieldIndex("count_index");
  private static final int PPROF_LINES = ProfileSchema.PPROF_TYPE.fieldIndex("lines");
  private static final int PPROF_LABELS = ProfileSchema.PPROF_TYPE.fieldIndex("labels");
  private static final int LABEL_FIELDS = ProfileSchema.PPROF_LABEL_TYPE.size();
  private static final int LABEL_KEY = ProfileSchema.PPROF_LABEL_TYPE.fieldIndex("key");
  private static final int LABEL_STR = ProfileSchema.PPROF_LABEL_TYPE.fieldIndex("str");
  private static final int LABEL_NUM = ProfileSchema.PPROF_LABEL_TYPE.fieldIndex("num");
  private static final UTF8String SAMPLES = UTF8String.fromString("samples");

  /** The record columns a stack row is made of: everything but the chain's derived columns. */
  private static final Set<String> INPUT =
      Set.of(
          ProfileSchema.PATH,
          ProfileSchema.FORMAT,
          ProfileSchema.KIND,
          ProfileSchema.PCS,
          ProfileSchema.COUNT,
          ProfileSchema.PERIOD,
          ProfileSchema.PERIOD_UNIT,
          ProfileSchema.RECORD_OFFSET,
          ProfileSchema.PPROF,
          ProfileSchema.ERROR);

  /** A group's heap besides the table's: its sums, check and lines reference. */
  private static final int GROUP_BYTES = 6 * 8;

  private final ProfilePartitionReader rows;
  private final RequiredColumns in;
  private final long maxBytes;
  private final GroupTable table = new GroupTable(false);
  private final int[] partitionInputs;
  private final DataType[] partitionTypes;
  private final int sampleTypeAt;

  /** The label keys that split rows ({@code stackLabels}); null when none are named. */
  private final Set<UTF8String> labelKeys;

  /** Per group: the 128-bit sums (high and low words), the ids, a pprof profile's lines. */
  private long[] countHigh = new long[512];

  private long[] countLow = new long[512];
  private long[] samplesHigh = new long[512];
  private long[] samplesLow = new long[512];
  private long[] stackIds = new long[512];
  private long[] checks = new long[512];
  private Object[] lines = new Object[512];

  /** The check of the first chain of each stack_id this task returned (kept across emissions). */
  private final Map<Long, Long> returned = new HashMap<>();

  /** How many ids {@link #returned} keeps: a quarter of the table's budget, at ~96 bytes each. */
  private final long maxReturned;

  private final Map<List<Object>, Integer> contextIds = new HashMap<>();
  private final List<Context> contexts = new ArrayList<>();
  private final MappingSets mappingSets = new MappingSets();
  private long contextBytes;

  private InternalRow lastRow;
  private Object lastKind;
  private long lastPeriod;
  private Object lastPeriodUnit;
  private int lastContext = -1;
  private List<UTF8String> lastLabels;

  private final GenericInternalRow out;
  private boolean inputDone;
  private boolean emitting;
  private int emitNext;

  /**
   * What a group's file determines: the values of the leading columns, a pprof profile's sample
   * type and the place of its {@code samples} values (-1: none), the file's size and its mappings.
   */
  private record Context(
      Object[] values,
      Object sampleType,
      int samplesAt,
      long fileSize,
      int mappingSet,
      ArrayData labels) {}

  StackRowsReader(
      ProfilePartitionReader rows,
      RequiredColumns in,
      StructType inputSchema,
      long maxBytes,
      List<String> labelKeys) {
    this.rows = rows;
    this.in = in;
    this.maxBytes = maxBytes;
    this.maxReturned = Math.max(1024, maxBytes / 4 / 96);
    int[] partitions = in.partitions();
    this.partitionInputs = partitions;
    this.partitionTypes = new DataType[partitions.length];
    for (int i = 0; i < partitions.length; i++) {
      partitionTypes[i] = inputSchema.fields()[partitions[i]].dataType();
    }
    this.sampleTypeAt = 6 + partitions.length;
    if (labelKeys.isEmpty()) {
      this.labelKeys = null;
    } else {
      this.labelKeys = new java.util.HashSet<>();
      for (String k : labelKeys) {
        this.labelKeys.add(UTF8String.fromString(k));
      }
    }
    this.out = new GenericInternalRow(sampleTypeAt + (this.labelKeys == null ? 9 : 10));
  }

  /** The record columns (and partition columns) the row reader decodes for stack rows. */
  public static StructType inputSchema(StructType schema, StructType partitionSchema) {
    Set<String> partitions = Set.of(partitionSchema.fieldNames());
    StructType out = new StructType();
    for (StructField f : schema.fields()) {
      if (INPUT.contains(f.name()) || partitions.contains(f.name())) {
        out = out.add(f);
      }
    }
    return out;
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (emitting) {
        if (emitNext < table.size()) {
          fill(emitNext++);
          return true;
        }
        clear();
      }
      if (inputDone) {
        return false;
      }
      while (!emitting && rows.next()) {
        accept(rows.get());
      }
      if (!emitting) {
        inputDone = true;
        emitting = table.size() > 0;
      }
    }
  }

  private void accept(InternalRow r) throws IOException {
    int context = context(r);
    UnsafeArrayData pcs = (UnsafeArrayData) r.getArray(in.pcs());
    int depth = pcs.numElements();
    Object base = pcs.getBaseObject();
    long at = pcs.getBaseOffset() + UnsafeArrayData.calculateHeaderPortionInBytes(depth);
    int g = table.find(context, base, at, depth);
    if (g < 0) {
      long[] chain = pcs.toLongArray();
      UnsafeChains chains = mappingSets.chains(contexts.get(context).mappingSet());
      if (!chains.identify(chain, depth)) {
        ProfileFormatException e =
            UnsafeChains.framesTooLarge(
                rows.currentPath(),
                in.recordOffset() >= 0 ? r.getLong(in.recordOffset()) : 0,
                depth);
        if (rows.failCurrentSlice(e)) {
          accept(rows.get());
        }
        return;
      }
      g = table.insert(context, base, at, depth);
      grow(g);
      stackIds[g] = chains.lastStackId();
      checks[g] = chains.lastCheck();
      InternalRow pprof = pprof(r);
      lines[g] = pprof == null ? null : pprof.getArray(PPROF_LINES).copy();
    }
    long count = r.getLong(in.count());
    table.add(g, count);
    long low = countLow[g] + count;
    if (Long.compareUnsigned(low, countLow[g]) < 0) {
      countHigh[g]++;
    }
    countLow[g] = low;
    int samplesAt = contexts.get(context).samplesAt();
    if (samplesAt >= 0) {
      long v = pprof(r).getArray(PPROF_VALUES).getLong(samplesAt);
      long sl = samplesLow[g] + v;
      if (Long.compareUnsigned(sl, samplesLow[g]) < 0) {
        samplesHigh[g]++;
      }
      samplesLow[g] = sl;
    }
    if (table.bytes() + (long) GROUP_BYTES * table.size() + contextBytes + mappingSets.bytes()
        >= maxBytes) {
      emitting = true;
    }
  }

  private InternalRow pprof(InternalRow r) {
    return in.pprof() < 0 || r.isNullAt(in.pprof()) ? null : r.getStruct(in.pprof(), PPROF_FIELDS);
  }

  private void grow(int g) {
    if (g < countLow.length) {
      return;
    }
    int n = Math.max(g + 1, countLow.length * 2);
    countHigh = Arrays.copyOf(countHigh, n);
    countLow = Arrays.copyOf(countLow, n);
    samplesHigh = Arrays.copyOf(samplesHigh, n);
    samplesLow = Arrays.copyOf(samplesLow, n);
    stackIds = Arrays.copyOf(stackIds, n);
    checks = Arrays.copyOf(checks, n);
    lines = Arrays.copyOf(lines, n);
  }

  /**
   * The context id of a row: cached while rows come from the same file with the same kind and
   * period (the row reader reuses its row per file, and its kind and period unit strings while they
   * stay the same; error rows, each with its own problem, are never cached).
   */
  private int context(InternalRow r) {
    boolean error = rows.errorRow();
    Object kind = r.getUTF8String(in.kind());
    long period = r.isNullAt(in.period()) ? -1 : r.getLong(in.period());
    Object periodUnit = r.isNullAt(in.periodUnit()) ? null : r.getUTF8String(in.periodUnit());
    List<UTF8String> labels = labelKeys == null ? null : labels(r);
    if (!error
        && r == lastRow
        && kind == lastKind
        && period == lastPeriod
        && periodUnit == lastPeriodUnit
        && lastContext >= 0
        && java.util.Objects.equals(labels, lastLabels)) {
      return lastContext;
    }
    Object[] values = new Object[6 + partitionInputs.length];
    values[0] = value(r, in.path(), DataTypes.StringType);
    values[1] = value(r, in.format(), DataTypes.StringType);
    values[2] = value(r, in.kind(), DataTypes.StringType);
    values[3] = r.isNullAt(in.period()) ? null : r.getLong(in.period());
    values[4] = value(r, in.periodUnit(), DataTypes.StringType);
    values[5] = value(r, in.error(), DataTypes.StringType);
    for (int j = 0; j < partitionInputs.length; j++) {
      values[6 + j] = value(r, partitionInputs[j], partitionTypes[j]);
    }
    long bytes = 256;
    for (Object v : values) {
      bytes += v instanceof UTF8String s ? s.numBytes() + 40 : 16;
    }
    Object sampleType = null;
    int samplesAt = -1;
    InternalRow pprof = pprof(r);
    if (pprof != null) {
      ArrayData types = pprof.getArray(PPROF_SAMPLE_TYPES);
      int countIndex = pprof.getInt(PPROF_COUNT_INDEX);
      if (countIndex >= 0 && countIndex < types.numElements()) {
        sampleType = types.getStruct(countIndex, 2).copy();
      }
      for (int i = 0; i < types.numElements() && samplesAt < 0; i++) {
        if (SAMPLES.equals(types.getStruct(i, 2).getUTF8String(0))) {
          samplesAt = i;
        }
      }
    }
    int mappingSet = mappingSets.id(rows.currentMappings(), rows.currentCallersMinusOne());
    List<Object> key = new ArrayList<>(Arrays.asList(values));
    key.add(sampleType);
    key.add(mappingSet);
    key.add(labels);
    Integer id = contextIds.get(key);
    if (id == null) {
      id = contexts.size();
      contextIds.put(key, id);
      contexts.add(
          new Context(
              values,
              sampleType,
              samplesAt,
              rows.currentFileLength(),
              mappingSet,
              labelArray(labels)));
      if (labels != null) {
        for (UTF8String l : labels) {
          bytes += 2L * (l.numBytes() + 40);
        }
      }
      contextBytes += 2 * bytes;
    }
    if (error) {
      lastRow = null;
    } else {
      lastRow = r;
      lastKind = kind;
      lastPeriod = period;
      lastPeriodUnit = periodUnit;
      lastContext = id;
      lastLabels = labels;
    }
    return id;
  }

  /**
   * A pprof row's labels whose keys {@link #labelKeys} names, as key, value, key, value..., sorted
   * by key and value (a numeric label's value is its number in decimal); null on other rows.
   */
  private List<UTF8String> labels(InternalRow r) {
    InternalRow pprof = pprof(r);
    if (pprof == null) {
      return null;
    }
    ArrayData all = pprof.getArray(PPROF_LABELS);
    List<UTF8String[]> named = null;
    for (int i = 0; i < all.numElements(); i++) {
      InternalRow l = all.getStruct(i, LABEL_FIELDS);
      UTF8String key = l.getUTF8String(LABEL_KEY);
      if (!labelKeys.contains(key)) {
        continue;
      }
      UTF8String value =
          !l.isNullAt(LABEL_STR)
              ? l.getUTF8String(LABEL_STR).clone()
              : l.isNullAt(LABEL_NUM)
                  ? null
                  : UTF8String.fromString(Long.toString(l.getLong(LABEL_NUM)));
      if (value != null) {
        if (named == null) {
          named = new ArrayList<>(2);
        }
        named.add(new UTF8String[] {key.clone(), value});
      }
    }
    if (named == null) {
      return List.of();
    }
    named.sort(
        (a, b) -> {
          int byKey = a[0].compareTo(b[0]);
          return byKey != 0 ? byKey : a[1].compareTo(b[1]);
        });
    List<UTF8String> out = new ArrayList<>(2 * named.size());
    for (UTF8String[] kv : named) {
      out.add(kv[0]);
      out.add(kv[1]);
    }
    return out;
  }

  /** The {@link ProfileSchema#STACK_LABELS} value of {@link #labels}. */
  private static ArrayData labelArray(List<UTF8String> labels) {
    if (labels == null) {
      return null;
    }
    Object[] entries = new Object[labels.size() / 2];
    for (int i = 0; i < entries.length; i++) {
      entries[i] = new GenericInternalRow(new Object[] {labels.get(2 * i), labels.get(2 * i + 1)});
    }
    return new org.apache.spark.sql.catalyst.util.GenericArrayData(entries);
  }

  /** A column's value, strings copied out of the row reader's reused buffers. */
  private static Object value(InternalRow r, int ordinal, DataType type) {
    if (r.isNullAt(ordinal)) {
      return null;
    }
    Object v = r.get(ordinal, type);
    return v instanceof UTF8String s ? s.clone() : v;
  }

  private void fill(int g) {
    Context c = contexts.get(table.context(g));
    Object[] values = c.values();
    for (int j = 0; j < values.length; j++) {
      out.update(j, values[j]);
    }
    int at = sampleTypeAt;
    out.update(at, c.sampleType());
    long id = stackIds[g];
    out.setLong(at + 1, id);
    if (returned.size() >= maxReturned) {
      returned.clear(); // later rows give frames again: more rows with frames, never fewer
    }
    Long first = returned.putIfAbsent(id, checks[g]);
    if (first == null || first != checks[g]) {
      long[] chain = table.chain(g);
      out.update(at + 2, mappingSets.chains(c.mappingSet()).frames(chain, chain.length));
      out.update(at + 3, lines[g]);
    } else {
      out.setNullAt(at + 2);
      out.setNullAt(at + 3);
    }
    out.update(at + 4, sum(countHigh[g], countLow[g]));
    out.update(at + 5, c.samplesAt() < 0 ? null : sum(samplesHigh[g], samplesLow[g]));
    out.setLong(at + 6, table.count(g));
    out.setLong(at + 7, c.fileSize());
    out.update(at + 8, mappingSets.buildIds(c.mappingSet()));
    if (labelKeys != null) {
      out.update(at + 9, c.labels());
    }
  }

  /** The unsigned 128-bit value {@code high:low} as a DECIMAL(38,0). */
  private static Decimal sum(long high, long low) {
    if (high == 0 && low >= 0) {
      return Decimal.apply(low, 38, 0);
    }
    BigInteger v =
        BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
    return Decimal.apply(new java.math.BigDecimal(v), 38, 0);
  }

  /** Forgets the returned groups and the contexts they referred to. */
  private void clear() {
    table.clear();
    emitting = false;
    emitNext = 0;
    contextIds.clear();
    contexts.clear();
    mappingSets.clear();
    contextBytes = 0;
    lastRow = null;
    lastContext = -1;
    lastLabels = null;
    Arrays.fill(countHigh, 0);
    Arrays.fill(countLow, 0);
    Arrays.fill(samplesHigh, 0);
    Arrays.fill(samplesLow, 0);
    Arrays.fill(lines, null);
  }

  @Override
  public InternalRow get() {
    return out;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return rows.currentMetricsValues();
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}
