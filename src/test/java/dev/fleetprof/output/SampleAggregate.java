package dev.fleetprof.output;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fleetprof.testing.CpuProfiles;
import dev.fleetprof.testing.DecodedRecord;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * The aggregate the fleet job would hand the writers for the real gperftools samples: read with the
 * {@code profile} source in a real Spark session and summed per {@code frames} as DECIMAL(38,0),
 * plus totals computed another way (the decoder, record by record) to check outputs against.
 */
public final class SampleAggregate {
  private static List<WeightedStack> stacks;
  private static ValueMeaning meaning;

  private SampleAggregate() {}

  public static synchronized List<WeightedStack> stacks() {
    if (stacks == null) {
      List<Row> groups =
          TestSpark.get()
              .read()
              .format("profile")
              .load(SampleData.GPERFTOOLS.toString())
              .groupBy(col("kind"), col("period"), col("period_unit"), col("frames"))
              .agg(sum(expr("CAST(count AS DECIMAL(38,0))")).as("count"))
              .collectAsList();
      List<WeightedStack> out = new ArrayList<>();
      for (Row r : groups) {
        ValueMeaning m = ValueMeaning.forKind(r.getString(0), r.getLong(1), r.getString(2));
        if (meaning != null) {
          assertEquals(meaning, m, "the gperftools samples share one kind and period");
        }
        meaning = m;
        List<Frame> frames = new ArrayList<>();
        for (Row f : r.<Row>getList(3)) {
          frames.add(new Frame(f.getString(0), f.getLong(1)));
        }
        out.add(WeightedStack.of(frames, r.getDecimal(4)));
      }
      stacks = List.copyOf(out);
    }
    return stacks;
  }

  /** What the samples' counts mean: samples of a 1000 microsecond period. */
  public static synchronized ValueMeaning meaning() {
    stacks();
    return meaning;
  }

  /** The sum of every record's count in every sample profile, from the decoder, not from Spark. */
  public static long decoderTotal() throws Exception {
    long total = 0;
    for (Path p : SampleData.gperftoolsProfiles()) {
      for (DecodedRecord r : CpuProfiles.decode(p.toString(), SampleData.read(p)).records()) {
        total = Math.addExact(total, r.count());
      }
    }
    return total;
  }
}
