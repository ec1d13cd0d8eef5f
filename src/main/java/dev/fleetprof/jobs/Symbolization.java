package dev.fleetprof.jobs;

import static org.apache.spark.sql.functions.col;

import dev.fleetprof.format.FrameAddresses;
import dev.fleetprof.format.ProfileFormat;
import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.SerializableConfiguration;
import dev.fleetprof.symbols.BinaryLocator;
import dev.fleetprof.symbols.BinarySymbols;
import dev.fleetprof.symbols.DebuginfodClient;
import dev.fleetprof.symbols.NameSource;
import dev.fleetprof.symbols.SourceLine;
import dev.fleetprof.symbols.SymbolizedAddress;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * Symbolization as a join, the way Google-Wide Profiling did it: profiles are aggregated with raw
 * (module, offset) frames, then the distinct locations of the run are symbolized against symbol
 * tables built once per binary, and the names are joined back. The work is per distinct location,
 * never per record.
 *
 * <p>On the executors, locations are grouped by module so that each task opens each binary once;
 * the opened binaries (their DWARF index and symbol table) are also kept per JVM, a bounded number
 * of them, for the next tasks. Executors need nothing installed: the binaries are read through
 * Hadoop's FileSystem and decoded in plain Java ({@code dev.fleetprof.symbols}).
 */
final class Symbolization {
  private static final Logger LOG = LoggerFactory.getLogger(Symbolization.class);

  /** One entry of a location's inline chain, innermost first (pprof's {@code Location.Line}). */
  static final StructType LINE_TYPE =
      new StructType()
          .add("function", DataTypes.StringType, false)
          .add("file", DataTypes.StringType, true)
          .add("line", DataTypes.LongType, true)
          .add("symbol", DataTypes.StringType, true);

  static final ArrayType LINES_TYPE = new ArrayType(LINE_TYPE, false);

  /**
   * What {@link #symbolize} returns: a location, its chain (null: not symbolized), why not ({@code
   * problem}), where the names came from ({@code name_source}: {@code dwarf}, {@code symtab},
   * {@code dynsym}, {@code cfi}, and {@code profile} for the names a pprof profile carries; null
   * without names) and, where a better name could be had, what would give it ({@code remedy}, a
   * sentence about the location's binary: its debug file, a build ID, a debuginfod server).
   */
  static final StructType SYMBOLIZED =
      new StructType()
          .add("format", DataTypes.StringType, false)
          .add("module", DataTypes.StringType, true)
          .add("offset", DataTypes.LongType, false)
          .add("lines", LINES_TYPE, true)
          .add("problem", DataTypes.StringType, true)
          .add("name_source", DataTypes.StringType, true)
          .add("remedy", DataTypes.StringType, true);

  /** {@code name_source} of the names a pprof profile gives its own locations. */
  static final String PROFILE = "profile";

  /**
   * The name sources, most trustworthy first: a function's {@code name_source} is the first of
   * these among its locations'. DWARF is the compiler's own record (with lines); a profile's names
   * come from the profiled program's own symbolizer (Go's runtime: DWARF-grade); {@code .symtab} is
   * the linker's full table; {@code .dynsym} the exported symbols only; {@code cfi} a boundary.
   */
  static final List<String> SOURCES_BY_TRUST = List.of("dwarf", PROFILE, "symtab", "dynsym", "cfi");

  /**
   * SQL that gives {@code column}'s rank in {@link #SOURCES_BY_TRUST} (1 = most trusted), null for
   * null or an unknown source.
   */
  static String trustRank(String column) {
    StringBuilder b = new StringBuilder("CASE ").append(column);
    for (int i = 0; i < SOURCES_BY_TRUST.size(); i++) {
      b.append(" WHEN '").append(SOURCES_BY_TRUST.get(i)).append("' THEN ").append(i + 1);
    }
    return b.append(" END").toString();
  }

  /** SQL that turns a {@link #trustRank} back into its source. */
  static String sourceOfRank(String column) {
    StringBuilder b = new StringBuilder("CASE ").append(column);
    for (int i = 0; i < SOURCES_BY_TRUST.size(); i++) {
      b.append(" WHEN ")
          .append(i + 1)
          .append(" THEN '")
          .append(SOURCES_BY_TRUST.get(i))
          .append("'");
    }
    return b.append(" END").toString();
  }

  /** The symbolizing jobs' debuginfod options, a picocli mixin. */
  static final class DebuginfodOptions {
    @Option(
        names = "--debuginfod",
        paramLabel = "URL",
        description =
            "a debuginfod server (repeatable; asked in order, then those of $DEBUGINFOD_URLS):"
                + " for a binary found without DWARF, its debug info is fetched by GNU build ID;"
                + " failures (server down, 404, timeout, over $DEBUGINFOD_MAXSIZE) leave frames"
                + " unnamed and are listed in the summary")
    private List<String> servers = new ArrayList<>();

    @Option(
        names = "--debuginfod-cache",
        paramLabel = "DIR",
        description =
            "where each executor keeps what debuginfod servers sent, on its local disk (default"
                + " $DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client, as elfutils and gdb)")
    private String cache;

    /** The servers given, checked (an IllegalArgumentException names a bad one). */
    List<String> servers() {
      return DebuginfodClient.servers(servers, null);
    }

    String cache() {
      return cache;
    }
  }

  /**
   * Where binaries are searched, from the command line.
   *
   * @param debuginfod the debuginfod servers to ask, in order (empty: none)
   * @param debuginfodCache the executors' cache folder for them, or null for elfutils' default
   */
  record Options(
      List<String> binaries,
      boolean useModulePaths,
      List<String> debuginfod,
      String debuginfodCache)
      implements Serializable {
    Options {
      binaries = List.copyOf(binaries);
      debuginfod = List.copyOf(debuginfod);
    }

    /** Without debuginfod servers. */
    Options(List<String> binaries, boolean useModulePaths) {
      this(binaries, useModulePaths, List.of(), null);
    }

    /**
     * The options of a job: {@code debuginfod} (the job's {@code --debuginfod}) followed by the
     * servers of this process's {@code DEBUGINFOD_URLS}, read here on the driver, as the tools that
     * honour it do.
     */
    static Options ofJob(
        List<String> binaries,
        boolean useModulePaths,
        List<String> debuginfod,
        String debuginfodCache) {
      return new Options(
          binaries,
          useModulePaths,
          DebuginfodClient.servers(debuginfod, System.getenv("DEBUGINFOD_URLS")),
          debuginfodCache);
    }
  }

  private Symbolization() {}

  /**
   * The rows of {@code locations} that {@code named} does not name: those to look up in binaries. A
   * location a profile names itself (pprof's functions and lines) keeps the profile's names, on any
   * date, and is never looked up; the fleet job and {@code jobs/symbolize} both follow this.
   *
   * @param locations columns {@code format}, {@code module}, {@code offset} (and any others)
   * @param named the locations a profile names, columns {@code format}, {@code module}, {@code
   *     offset}
   */
  static Dataset<Row> notNamedBy(Dataset<Row> locations, Dataset<Row> named) {
    return locations
        .alias("l")
        .join(
            named.alias("n"),
            col("l.format")
                .equalTo(col("n.format"))
                .and(col("l.module").eqNullSafe(col("n.module")))
                .and(col("l.offset").equalTo(col("n.offset"))),
            "left_anti");
  }

  /**
   * Symbolizes distinct locations.
   *
   * @param locations columns {@code format}, {@code module}, {@code offset}, and where known {@code
   *     build_ids} (array of the build IDs the profiles record for the module where they hold the
   *     location: each is looked up on its own); repeats are removed
   * @return {@link #SYMBOLIZED} rows, one per distinct location
   */
  static Dataset<Row> symbolize(SparkSession spark, Dataset<Row> locations, Options options) {
    Broadcast<SerializableConfiguration> conf =
        spark
            .sparkContext()
            .broadcast(
                new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()),
                scala.reflect.ClassTag$.MODULE$.apply(SerializableConfiguration.class));
    // A location listed with different build IDs (dates of different runs, in jobs/symbolize)
    // is looked up in all of them.
    Dataset<Row> distinct =
        java.util.Arrays.asList(locations.columns()).contains("build_ids")
            ? locations
                .groupBy("format", "module", "offset")
                .agg(
                    org.apache
                        .spark
                        .sql
                        .functions
                        .expr("array_sort(array_distinct(flatten(collect_list(build_ids))))")
                        .as("build_ids"))
            : locations
                .select("format", "module", "offset")
                .distinct()
                .withColumn(
                    "build_ids", org.apache.spark.sql.functions.lit(null).cast("array<string>"));
    return distinct
        .repartition(col("module"))
        .sortWithinPartitions("module", "build_ids")
        .mapPartitions(new Symbolizer(conf, options), Encoders.row(SYMBOLIZED));
  }

  /**
   * A chain for every frame of {@code frames} (array of module/offset structs, as in {@code
   * stacks}): the frames with {@code lines} and {@code name_source} fields added from {@code
   * symbols} (columns format, module, offset, lines, name_source), for the writers of pprof, folded
   * and flame-graph files.
   *
   * @param stacks columns {@code format}, {@code frames}, {@code count}
   * @return columns {@code frames} (array of struct module, offset, lines, name_source) and {@code
   *     count}
   */
  static Dataset<Row> withLines(Dataset<Row> stacks, Dataset<Row> symbols) {
    // Samples' labels, where the stacks have them, pass through.
    boolean labelled = java.util.Arrays.asList(stacks.columns()).contains(StandardOutputs.LABELS);
    List<String> kept = new ArrayList<>(List.of("stack_id", "count"));
    if (labelled) {
      kept.add(StandardOutputs.LABELS);
    }
    List<String> exploded = new ArrayList<>(kept);
    exploded.addAll(List.of("format", "posexplode(frames) AS (pos, frame)"));
    List<String> out =
        new ArrayList<>(
            List.of(
                "transform(f, x -> struct(x.module AS module, x.offset AS offset,"
                    + " x.lines AS lines, x.name_source AS name_source)) AS frames",
                "count"));
    if (labelled) {
      out.add(StandardOutputs.LABELS);
    }
    return joinNames(
            stacks
                .withColumn(
                    "stack_id", org.apache.spark.sql.functions.monotonically_increasing_id())
                .selectExpr(exploded.toArray(new String[0])),
            "frame.module",
            "frame.offset",
            symbols)
        .groupBy(
            kept.stream()
                .map(org.apache.spark.sql.functions::col)
                .toArray(org.apache.spark.sql.Column[]::new))
        .agg(
            org.apache
                .spark
                .sql
                .functions
                .expr(
                    "array_sort(collect_list(struct(pos, frame.module AS module, frame.offset AS offset,"
                        + " lines, name_source)))")
                .as("f"))
        .selectExpr(out.toArray(new String[0]));
  }

  /**
   * {@code rows} left-joined with the {@code lines} and {@code name_source} of {@code symbols}
   * (columns format, module, offset, lines, and name_source where it has it: symbols read from an
   * output written before it was recorded have none, and get null) at the location of each row: its
   * {@code format} and the given module and offset columns; a null module matches a null module.
   */
  static Dataset<Row> joinNames(
      Dataset<Row> rows, String module, String offset, Dataset<Row> symbols) {
    Dataset<Row> s =
        symbols.select(
            col("format").as("s_format"),
            col("module").as("s_module"),
            col("offset").as("s_offset"),
            col("lines"),
            java.util.Arrays.asList(symbols.columns()).contains("name_source")
                ? col("name_source")
                : org.apache.spark.sql.functions.lit(null).cast("string").as("name_source"));
    return rows.join(
            s,
            col("format")
                .equalTo(col("s_format"))
                .and(col(module).eqNullSafe(col("s_module")))
                .and(col(offset).equalTo(col("s_offset"))),
            "left")
        .drop("s_format", "s_module", "s_offset");
  }

  /** The executor side: one partition of distinct locations, grouped by module. */
  private static final class Symbolizer implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;

    private final Broadcast<SerializableConfiguration> conf;
    private final Options options;

    Symbolizer(Broadcast<SerializableConfiguration> conf, Options options) {
      this.conf = conf;
      this.options = options;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
      DebuginfodClient debuginfod =
          options.debuginfod().isEmpty()
              ? null
              : DebuginfodClient.shared(
                  DebuginfodClient.settings(
                      options.debuginfod(), options.debuginfodCache(), System.getenv()));
      BinaryLocator locator =
          new BinaryLocator(
              new HadoopBinaryFiles(conf.value().get()),
              options.binaries(),
              options.useModulePaths(),
              debuginfod);
      return new Iterator<>() {
        private boolean logged;
        private boolean any;

        @Override
        public boolean hasNext() {
          boolean more = rows.hasNext();
          // Once per partition that had locations: most of the shuffle's partitions are empty.
          if (!more && any && debuginfod != null && !logged) {
            logged = true;
            DebuginfodClient.Stats s = debuginfod.stats();
            LOG.info(
                "debuginfod {} (this JVM so far): {} downloads ({} bytes), {} from the cache in"
                    + " {}, {} failed",
                options.debuginfod(),
                s.downloads(),
                s.downloadedBytes(),
                s.cacheHits(),
                debuginfod.settings().cache(),
                s.failures());
          }
          return more;
        }

        @Override
        public Row next() {
          Row r = rows.next();
          any = true;
          String format = r.getString(0);
          String module = r.isNullAt(1) ? null : r.getString(1);
          long offset = r.getLong(2);
          List<String> buildIds = r.isNullAt(3) ? List.of() : r.getList(3);
          try {
            return symbolizeOne(locator, format, module, offset, buildIds);
          } catch (IOException e) {
            throw new UncheckedIOException(
                "symbolizing " + module + "+0x" + Long.toHexString(offset) + ": " + e.getMessage(),
                e);
          }
        }
      };
    }

    // The remedy of the binary last looked up: a partition's locations come grouped by module.
    private transient BinaryLocator.Found lastFound;
    private transient String lastRemedy;

    /**
     * A location's names: from the binary of each build ID the profiles record for its module where
     * they hold it ({@code buildIds}; none: the module's binary found by path). Where the profiles
     * hold the location in more than one build, it is named only if every build is found and names
     * it alike: the location key (module, offset) cannot tell which build each sample ran, so no
     * build's name is given to another's samples.
     */
    private Row symbolizeOne(
        BinaryLocator locator, String format, String module, long offset, List<String> buildIds)
        throws IOException {
      if (buildIds.size() <= 1 || format.equals("dcpi") || module == null) {
        return symbolizeIn(
            locator, format, module, offset, buildIds.isEmpty() ? null : buildIds.get(0));
      }
      List<String> differ = new ArrayList<>();
      Row first = null;
      for (String id : buildIds) {
        Row r = symbolizeIn(locator, format, module, offset, id);
        if (r.isNullAt(3)) {
          differ.add(id + ": " + r.getString(4));
        } else if (first == null) {
          first = r;
        } else if (!java.util.Arrays.deepEquals((Object[]) r.get(3), (Object[]) first.get(3))) {
          differ.add(id + ": names it otherwise");
        }
      }
      if (differ.isEmpty()) {
        return first;
      }
      return unnamed(
          format,
          module,
          offset,
          "the profiles hold this offset of "
              + module
              + " in "
              + buildIds.size()
              + " builds ("
              + String.join(", ", buildIds)
              + "), which do not all name it alike: "
              + String.join("; ", differ),
          null);
    }

    private Row symbolizeIn(
        BinaryLocator locator, String format, String module, long offset, String buildId)
        throws IOException {
      ProfileFormat f = ProfileFormats.byName(format);
      FrameAddresses addresses = f == null ? FrameAddresses.FILE_OFFSETS : f.frameAddresses();
      if (addresses == FrameAddresses.NOT_SYMBOLIZED) {
        return unnamed(format, module, offset, f.whyNotSymbolized(), null);
      }
      if (module == null) {
        return unnamed(
            format,
            module,
            offset,
            addresses == FrameAddresses.PROGRAM_ADDRESSES
                ? "gmon.out names no program: give --gmon-binary or a program=NAME directory"
                : "the address is in no mapping",
            null);
      }
      BinaryLocator.Found found = BinaryCache.find(locator, options, module, buildId);
      if (!found.ok()) {
        return unnamed(
            format,
            module,
            offset,
            found.problem(),
            BinaryLocator.symbolizable(module) ? notFound(options) : null);
      }
      SymbolizedAddress at;
      try {
        at =
            addresses == FrameAddresses.PROGRAM_ADDRESSES
                ? found.symbols().lookupAddress(offset)
                : found.symbols().lookupFileOffset(offset);
      } catch (IOException e) {
        // A binary with malformed symbols leaves its frames unnamed, like a missing one: the
        // job goes on, and the summary says why.
        return unnamed(
            format,
            module,
            offset,
            "cannot read the symbols of " + found.binary() + ": " + e.getMessage(),
            null);
      }
      if (found != lastFound) {
        lastRemedy = remedy(found);
        lastFound = found;
      }
      if (at.source() == NameSource.NONE) {
        // found.problem(): why no debug info came from debuginfod, where it was asked.
        return unnamed(
            format,
            module,
            offset,
            "no symbol at this offset in "
                + found.binary()
                + (found.problem() == null ? "" : "; " + found.problem()),
            lastRemedy);
      }
      List<Row> lines = new ArrayList<>(at.lines().size());
      for (SourceLine l : at.lines()) {
        lines.add(
            RowFactory.create(l.function(), l.file(), l.line() > 0 ? l.line() : null, l.symbol()));
      }
      return RowFactory.create(
          format,
          module,
          offset,
          lines.toArray(),
          null,
          at.source().label(),
          at.source() == NameSource.DWARF ? null : lastRemedy);
    }
  }

  private static Row unnamed(
      String format, String module, long offset, String problem, String remedy) {
    return RowFactory.create(format, module, offset, null, problem, null, remedy);
  }

  /** What would name the frames of a module whose binary was not found. */
  static String notFound(Options options) {
    return options.binaries().isEmpty()
        ? "binary not found: give --binaries"
        : "binary not found under --binaries";
  }

  /**
   * What would give better names (with lines) to the frames of a binary found without DWARF, or
   * null when it has DWARF: a debug file found by build ID or {@code .gnu_debuglink}, or fetched
   * from a debuginfod server by build ID; why the fetch failed, when one was tried.
   */
  static String remedy(BinaryLocator.Found found) {
    BinarySymbols s = found.symbols();
    if (BinarySymbols.hasDwarf(s.runtime())
        || (s.debug() != null && BinarySymbols.hasDwarf(s.debug()))) {
      return null;
    }
    if (found.problem() != null) {
      return "no DWARF: " + found.problem();
    }
    boolean buildId;
    try {
      buildId = s.runtime().buildId().isPresent();
    } catch (IOException | RuntimeException e) {
      buildId = false; // notes the locator could not read either
    }
    if (buildId) {
      return "no DWARF: a debug file (.gnu_debuglink / build-id, under --binaries) or a debuginfod"
          + " server (DEBUGINFOD_URLS) would give lines";
    }
    java.util.Optional<dev.fleetprof.symbols.elf.DebugLink> link;
    try {
      link = s.runtime().debugLink();
    } catch (IOException | RuntimeException e) {
      link = java.util.Optional.empty();
    }
    return link.isPresent()
        ? "no DWARF and no build ID (debuginfod cannot help): its debug file "
            + link.get().fileName()
            + " (.gnu_debuglink) under --binaries would give lines"
        : "no DWARF, no build ID (debuginfod cannot help) and no .gnu_debuglink: only an"
            + " unstripped build would give lines";
  }

  /**
   * The binaries an executor JVM has opened, by search folders and module: each is opened and
   * indexed once per JVM, not once per task. Bounded: the least recently used are dropped (not
   * closed: another task may still be reading them; their memory maps go with the garbage).
   */
  static final class BinaryCache {
    private static final int MAX = 32;
    private static final Map<String, BinaryLocator.Found> OPENED =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, BinaryLocator.Found> eldest) {
            return size() > MAX;
          }
        };

    private BinaryCache() {}

    /**
     * @param buildId the build ID the profile records for the module, or null: the binary of
     *     another build is refused, and a missing one may be fetched from debuginfod by it
     */
    static BinaryLocator.Found find(
        BinaryLocator locator, Options options, String module, String buildId) throws IOException {
      String key = options + "\u0000" + module + "\u0000" + buildId;
      synchronized (OPENED) {
        BinaryLocator.Found f = OPENED.get(key);
        if (f == null) {
          f = locator.find(module, buildId);
          OPENED.put(key, f);
        }
        return f;
      }
    }
  }
}
