package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import dev.fleetprof.output.ValueMeaning;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Exports one aggregate of the fleet job's output (a date, a host on a date, or the difference of two
 * dates) as pprof {@code profile.proto}, folded stacks or a flame graph page, for the tools people
 * already use: {@code go tool pprof -http=: day.pb.gz}.
 */
public final class ExportProfile {
  static final String USAGE = String.join("\n",
      "Usage: jobs/export-profile --from DIR --date YYYY-MM-DD [--host H] [--base YYYY-MM-DD]",
      "                           [--format F] [--kind K] (--pprof F | --folded F | --flamegraph F)...",
      "",
      "Reads the fleet job's output (--from, its --output) and writes one aggregate:",
      "  --date D       the day (required)",
      "  --host H       only this host's stacks (from host_stacks/)",
      "  --base D0      the difference D - D0, D0 scaled to D's total samples so that only shifts in",
      "                 where time goes show (pprof only: folded stacks and flame graphs cannot show",
      "                 negative weights)",
      "  --format F     gperftools (default), gprof or dcpi",
      "  --kind K       sample (default), histogram, arc, basic_block",
      "  --pprof F, --folded F, --flamegraph F   the files to write (at least one)");

  private ExportProfile() {}

  record Args(String from, LocalDate date, String host, LocalDate base, String format, String kind,
      StandardOutputs.Targets targets) {
    static Args parse(String[] argv) {
      String from = null;
      String host = null;
      String format = "gperftools";
      String kind = "sample";
      LocalDate date = null;
      LocalDate base = null;
      String pprof = null;
      String folded = null;
      String flamegraph = null;
      for (int i = 0; i < argv.length; i++) {
        String a = argv[i];
        if (i + 1 >= argv.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        String v = argv[++i];
        switch (a) {
          case "--from" -> from = v;
          case "--date" -> date = FleetAggregate.Args.date(v);
          case "--host" -> host = v;
          case "--base" -> base = FleetAggregate.Args.date(v);
          case "--format" -> format = v;
          case "--kind" -> kind = v;
          case "--pprof" -> pprof = v;
          case "--folded" -> folded = v;
          case "--flamegraph" -> flamegraph = v;
          default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
        }
      }
      StandardOutputs.Targets targets = new StandardOutputs.Targets(pprof, folded, flamegraph);
      if (from == null || date == null || !targets.any()) {
        throw new IllegalArgumentException("--from, --date and an output file are required");
      }
      if (base != null && (folded != null || flamegraph != null)) {
        throw new IllegalArgumentException("a difference (--base) can only be written as --pprof");
      }
      return new Args(from, date, host, base, format, kind, targets);
    }
  }

  public static void main(String[] argv) throws IOException {
    Sessions.main("export-profile", USAGE, argv, true, Args::parse, ExportProfile::run);
  }

  static void run(SparkSession spark, Args args) throws IOException {
    Dataset<Row> table = spark.read().parquet(args.from() + "/"
        + (args.host() != null ? "host_stacks" : "stacks"))
        .where(col("format").equalTo(args.format()).and(col("kind").equalTo(args.kind())));
    if (args.host() != null) {
      table = table.where(col("host").equalTo(args.host()));
    }
    Dataset<Row> day = table.where(col("date").equalTo(lit(args.date())));
    ValueMeaning meaning = StandardOutputs.meaningOf(day);
    String title = "fleetprof: " + args.format() + " " + args.kind() + " " + args.date()
        + (args.host() != null ? " host " + args.host() : "");
    Dataset<Row> aggregate = day.select("format", "frames", "count");
    if (args.base() != null) {
      Dataset<Row> base = table.where(col("date").equalTo(lit(args.base())));
      BigDecimal dayTotal = total(day);
      BigDecimal baseTotal = total(base);
      if (baseTotal.signum() == 0) {
        throw new IllegalArgumentException("the base date " + args.base() + " has no such stacks");
      }
      // Base counts scaled to the day's total, negated: the sum per stack is the day's count minus
      // what the base would have given it on a fleet of the day's size.
      String scale = dayTotal.toPlainString() + "BD / " + baseTotal.toPlainString() + "BD";
      aggregate = aggregate.union(base.selectExpr("format", "frames",
          "CAST(round(-count * " + scale + ") AS DECIMAL(38,0)) AS count"));
      title += " minus " + args.base() + " (scaled by " + scale.replace("BD", "") + ")";
    }
    StandardOutputs.write(spark, aggregate, symbols(spark, args), meaning, args.targets(), title);
  }

  /**
   * The names the fleet job gave the locations of the dates written ({@code locations/}'s
   * {@code lines}), or null for an output written before it symbolized.
   */
  private static Dataset<Row> symbols(SparkSession spark, Args args) {
    Dataset<Row> locations = spark.read().parquet(args.from() + "/locations");
    if (!java.util.Arrays.asList(locations.columns()).contains("lines")) {
      return null;
    }
    Column dates = col("date").equalTo(lit(args.date()));
    if (args.base() != null) {
      dates = dates.or(col("date").equalTo(lit(args.base())));
    }
    return locations.where(dates.and(col("format").equalTo(args.format())))
        .select("format", "module", "offset", "lines")
        .dropDuplicates("format", "module", "offset");
  }

  private static BigDecimal total(Dataset<Row> stacks) {
    Row r = stacks.selectExpr("sum(count)").first();
    return r.isNullAt(0) ? BigDecimal.ZERO : r.getDecimal(0);
  }
}
