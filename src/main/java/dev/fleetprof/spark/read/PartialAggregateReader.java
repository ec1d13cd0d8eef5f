package dev.fleetprof.spark.read;

import dev.fleetprof.format.ProfileFormatException;
import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.pushdown.PushedAggregation;
import dev.fleetprof.spark.pushdown.RequiredColumns;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A partition's rows merged by a {@link PushedAggregation}: the row reader's rows (records and,
 * under PERMISSIVE, error rows, which are rows like any other to the aggregation) are merged into a
 * {@link GroupTable} keyed on the values the file determines and the raw pcs; {@code frames},
 * {@code mapping} and {@code pcs} are then built once per group instead of once per record. When
 * the table holds {@code maxBytes}, its groups are emitted as partial rows and it starts again:
 * Spark merges partial rows of equal groups, so an early emission costs rows, never correctness.
 *
 * <p>Error rows count as rows (in {@code COUNT(*)}) with count 0 and an empty chain, exactly as the
 * query without pushdown sees them; modes that drop or fail behave as in the row reader, which this
 * reads through.
 */
final class PartialAggregateReader implements PartitionReader<InternalRow> {
  private static final int FILE = 0;
  private static final int PCS = 1;
  private static final int FRAMES = 2;
  private static final int MAPPING = 3;
  private static final int STACK_ID = 4;

  private final ProfilePartitionReader rows;
  private final PushedAggregation aggregation;
  private final RequiredColumns in;
  private final long maxBytes;
  private final GroupTable table;

  /** Per group column: where its value comes from ({@link #FILE}, {@link #PCS}, ...). */
  private final int[] sources;

  /** Per group column from the file: its place in the input row and in a context's values. */
  private final int[] inputColumns;

  private final DataType[] inputTypes;
  private final int[] contextSlots;
  private final int fileValues;
  private final boolean keyedOnChain;
  private final boolean needsMappings;
  private final boolean checksFrames;

  /** A context is the values of the file-determined group columns (and the file's mappings). */
  private final Map<List<Object>, Integer> contextIds = new HashMap<>();

  private final List<Object[]> contexts = new ArrayList<>();
  private final List<Integer> contextMappings = new ArrayList<>();
  private final MappingSets mappingSets = new MappingSets();
  private long contextBytes;

  // The last record's context, reused while the rows come from the same file, kind and period.
  private InternalRow lastRow;
  private Object lastKind;
  private long lastPeriod;
  private Object lastPeriodUnit;
  private int lastContext = -1;
  private int lastGroup = -1;

  private final GenericInternalRow out;
  private boolean inputDone;
  private boolean emitting;
  private boolean emittedAny;
  private int emitNext;

  PartialAggregateReader(
      ProfilePartitionReader rows,
      PushedAggregation aggregation,
      RequiredColumns in,
      StructType inputSchema,
      long maxBytes,
      boolean exactSums) {
    this.rows = rows;
    this.aggregation = aggregation;
    this.in = in;
    this.maxBytes = maxBytes;
    this.table = new GroupTable(exactSums);
    String[] groupBy = aggregation.groupBy();
    sources = new int[groupBy.length];
    inputColumns = new int[groupBy.length];
    inputTypes = new DataType[groupBy.length];
    contextSlots = new int[groupBy.length];
    int values = 0;
    for (int j = 0; j < groupBy.length; j++) {
      switch (groupBy[j]) {
        case ProfileSchema.PCS -> sources[j] = PCS;
        case ProfileSchema.FRAMES -> sources[j] = FRAMES;
        case ProfileSchema.MAPPING -> sources[j] = MAPPING;
        case ProfileSchema.STACK_ID -> sources[j] = STACK_ID;
        default -> {
          sources[j] = FILE;
          inputColumns[j] = inputSchema.fieldIndex(groupBy[j]);
          inputTypes[j] = inputSchema.fields()[inputColumns[j]].dataType();
          contextSlots[j] = values++;
        }
      }
    }
    this.fileValues = values;
    this.keyedOnChain = aggregation.groupsByChain();
    this.needsMappings = aggregation.needsMappings();
    this.checksFrames = aggregation.groups(ProfileSchema.FRAMES);
    this.out = new GenericInternalRow(aggregation.outputSchema().size());
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (emitting) {
        if (emitNext < table.size()) {
          fill(emitNext++);
          emittedAny = true;
          return true;
        }
        clear();
      }
      if (inputDone) {
        if (aggregation.groupBy().length == 0 && !emittedAny) {
          emptyGlobalRow(); // a global aggregation has a row for every partition, even empty
          emittedAny = true;
          return true;
        }
        return false;
      }
      consume();
    }
  }

  /** Merges rows until the table is full or the partition ends; then emits what it holds. */
  private void consume() throws IOException {
    while (!emitting && rows.next()) {
      accept(rows.get());
    }
    if (!emitting) {
      inputDone = true;
      emitting = table.size() > 0;
    }
  }

  /** Merges one row, and starts emitting when the table is full. */
  private void accept(InternalRow r) throws IOException {
    int context = context(r);
    int g;
    if (keyedOnChain) {
      UnsafeArrayData pcs = (UnsafeArrayData) r.getArray(in.pcs());
      int depth = pcs.numElements();
      Object base = pcs.getBaseObject();
      long at = pcs.getBaseOffset() + UnsafeArrayData.calculateHeaderPortionInBytes(depth);
      g = table.find(context, base, at, depth);
      if (g < 0) {
        if (checksFrames && !framesFit(context, pcs.toLongArray(), r)) {
          return;
        }
        g = table.insert(context, base, at, depth);
      }
    } else if (lastGroup >= 0 && table.context(lastGroup) == context) {
      g = lastGroup;
    } else {
      g = table.find(context, null, 0, 0);
      if (g < 0) {
        g = table.insert(context, null, 0, 0);
      }
      lastGroup = g;
    }
    table.add(g, aggregation.needsCount() ? r.getLong(in.count()) : 0);
    if (table.bytes() + contextBytes + mappingSets.bytes() >= maxBytes) {
      emitting = true;
    }
  }

  /**
   * Whether a new group's frames fit in a row, checked as the row reader checks every record's when
   * {@code frames} is read. When not, the record's file has a problem, handled by the row reader as
   * the mode says (the error row it may make is merged), and the record is not merged.
   */
  private boolean framesFit(int context, long[] chain, InternalRow r) throws IOException {
    if (chains(context).frames(chain, chain.length) != null) {
      return true;
    }
    ProfileFormatException e =
        UnsafeChains.framesTooLarge(
            rows.currentPath(),
            in.recordOffset() >= 0 ? r.getLong(in.recordOffset()) : 0,
            chain.length);
    if (rows.failCurrentSlice(e)) {
      accept(rows.get());
    }
    return false;
  }

  /**
   * The context id of a row: cached while rows come from the same file with the same kind and
   * period (the row reader reuses its row per file, and its kind and period unit strings while they
   * stay the same; error rows, each with its own problem, are never cached).
   */
  private int context(InternalRow r) {
    boolean error = rows.errorRow();
    Object kind = in.kind() >= 0 ? r.getUTF8String(in.kind()) : null;
    long period = in.period() < 0 || r.isNullAt(in.period()) ? -1 : r.getLong(in.period());
    Object periodUnit =
        in.periodUnit() < 0 || r.isNullAt(in.periodUnit())
            ? null
            : r.getUTF8String(in.periodUnit());
    if (!error
        && r == lastRow
        && kind == lastKind
        && period == lastPeriod
        && periodUnit == lastPeriodUnit
        && lastContext >= 0) {
      return lastContext;
    }
    Object[] values = new Object[fileValues + (needsMappings ? 1 : 0)];
    long bytes = 64;
    for (int j = 0; j < sources.length; j++) {
      if (sources[j] == FILE) {
        Object v = r.isNullAt(inputColumns[j]) ? null : r.get(inputColumns[j], inputTypes[j]);
        if (v instanceof UTF8String s) {
          v = s.clone();
          bytes += s.numBytes() + 24;
        }
        values[contextSlots[j]] = v;
        bytes += 16;
      }
    }
    if (needsMappings) {
      values[fileValues] = mappingSets.id(rows.currentMappings(), rows.currentCallersMinusOne());
    }
    List<Object> key = Arrays.asList(values);
    Integer id = contextIds.get(key);
    if (id == null) {
      id = contexts.size();
      contextIds.put(key, id);
      contexts.add(values);
      contextMappings.add(needsMappings ? (Integer) values[fileValues] : -1);
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
    }
    return id;
  }

  private UnsafeChains chains(int context) {
    return mappingSets.chains(contextMappings.get(context));
  }

  private void fill(int g) {
    int context = table.context(g);
    long[] chain = table.chain(g);
    String[] groupBy = aggregation.groupBy();
    for (int j = 0; j < groupBy.length; j++) {
      switch (sources[j]) {
        case PCS -> out.update(j, UnsafeArrayData.fromPrimitiveArray(chain));
        case FRAMES -> out.update(j, chains(context).frames(chain, chain.length));
        case MAPPING -> out.update(j, chain.length > 0 ? chains(context).mapping(chain[0]) : null);
        case STACK_ID -> out.setLong(j, chains(context).stackId(chain, chain.length));
        default -> out.update(j, contexts.get(context)[contextSlots[j]]);
      }
    }
    PushedAggregation.Function[] functions = aggregation.functions();
    for (int i = 0; i < functions.length; i++) {
      int at = groupBy.length + i;
      switch (functions[i]) {
        case SUM -> out.setLong(at, table.sum(g));
        case COUNT -> out.setLong(at, table.count(g));
        case MIN -> out.setLong(at, table.min(g));
        case MAX -> out.setLong(at, table.max(g));
      }
    }
  }

  private void emptyGlobalRow() {
    PushedAggregation.Function[] functions = aggregation.functions();
    for (int i = 0; i < functions.length; i++) {
      if (functions[i] == PushedAggregation.Function.COUNT) {
        out.setLong(i, 0);
      } else {
        out.setNullAt(i);
      }
    }
  }

  /** Forgets the emitted groups and the contexts they referred to. */
  private void clear() {
    table.clear();
    emitting = false;
    emitNext = 0;
    contextIds.clear();
    contexts.clear();
    contextMappings.clear();
    mappingSets.clear();
    contextBytes = 0;
    lastRow = null;
    lastContext = -1;
    lastGroup = -1;
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
