package dev.fleetprof.spark.listing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fleetprof.spark.ProfileSchema;
import dev.fleetprof.spark.ReadOptions;
import dev.fleetprof.testing.SampleData;
import dev.fleetprof.testing.TestSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition discovery checked against Spark's own: every tree below is loaded with Spark's {@code
 * binaryFile} source (whose partition columns come from Spark's file index) and with ours, and the
 * partition columns' names and types, each file's values, and the refusals must agree.
 */
class PartitionDiscoverySparkTest {
  /** binaryFile's own columns; every other column of it is a partition column. */
  private static final Set<String> BINARY_FILE_COLUMNS =
      Set.of("path", "modificationTime", "length", "content");

  private final SparkSession spark = TestSpark.get();
  @TempDir Path temp;
  private int trees;

  /**
   * A directory tree of one small real profile per listed file, loaded from {@code loads} (relative
   * to the tree; "" is the tree itself) with read options and session settings. {@code refusal}:
   * when Spark refuses the tree, the gist of its message, which ours must carry. {@code refusal35}:
   * Spark 3.5's gist, where its words are not Spark 4's (ours are Spark 4's on both); null: Spark
   * 4's without the leading {@code [CONDITION]}, which 3.5 does not print.
   */
  private record Tree(
      String name,
      List<String> files,
      List<String> loads,
      Map<String, String> options,
      Map<String, String> confs,
      String refusal,
      String refusal35,
      Difference difference) {
    Tree load(String... relative) {
      return new Tree(
          name, files, List.of(relative), options, confs, refusal, refusal35, difference);
    }

    /** A read option; {@code ${root}} in the value stands for the tree's directory. */
    Tree option(String key, String value) {
      Map<String, String> o = new LinkedHashMap<>(options);
      o.put(key, value);
      return new Tree(name, files, loads, o, confs, refusal, refusal35, difference);
    }

    Tree conf(String key, String value) {
      Map<String, String> c = new LinkedHashMap<>(confs);
      c.put(key, value);
      return new Tree(name, files, loads, options, c, refusal, refusal35, difference);
    }

    Tree refused(String gist) {
      return new Tree(name, files, loads, options, confs, gist, refusal35, difference);
    }

    Tree differs(Difference d) {
      return new Tree(name, files, loads, options, confs, refusal, refusal35, d);
    }

    Tree refused35(String gist) {
      return new Tree(name, files, loads, options, confs, refusal, gist, difference);
    }
  }

  /** Where ours may differ from Spark's, and why. */
  private enum Difference {
    NONE,
    /**
     * Deliberate: a tree without partition directories is read whole, nested directories too
     * (sample-data/ with gperftools/, gprof/ and dcpi/ below it is one read). Spark reads only the
     * loaded directories' own files unless recursiveFileLookup is set. Checked: Spark's files are
     * ours, with the same (no) values, and ours are every file of the tree.
     */
    NESTED_FILES_READ,
    /**
     * Spark's spelling of keys that differ only in case is that of whichever directory its listing
     * yields first (a hash map's order); ours is the first file's in path order.
     */
    KEY_SPELLING,
    /**
     * Spark 3.5 only: it takes {@code %+1} and {@code %-0} for escapes (a sign is a hex digit to
     * Integer.parseInt) and puts control characters in the value; Spark 4, and ours, keep them as
     * written. Checked on 3.5: the same columns, and the names as written for values.
     */
    SIGNED_ESCAPES
  }

  private static Tree tree(String name, String... files) {
    return new Tree(
        name, List.of(files), List.of(""), Map.of(), Map.of(), null, null, Difference.NONE);
  }

  /** The partition columns and each file's values, or the load's failure. */
  private record Outcome(StructType columns, Map<String, List<Object>> values, Throwable error) {
    @Override
    public String toString() {
      return error != null ? "refused: " + messages(error) : columns.toDDL() + " " + values;
    }
  }

  private static final String INFERENCE = "spark.sql.sources.partitionColumnTypeInference.enabled";
  private static final String VALIDATE = "spark.sql.sources.validatePartitionColumns";
  private static final String ZONE = "spark.sql.session.timeZone";
  private static final String CONFLICTING_DIRS =
      "[CONFLICTING_DIRECTORY_STRUCTURES] Conflicting directory structures detected";
  private static final String CONFLICTING_NAMES =
      "[CONFLICTING_PARTITION_COLUMN_NAMES] Conflicting partition column names detected";

  private static List<Tree> trees() {
    List<Tree> t = new ArrayList<>();
    t.add(tree("date and host", "date=2026-11-20/host=a/p.prof", "date=2026-11-21/host=b/p.prof"));
    t.add(tree("escaped slash and equals", "host=a%2Fb/p.prof", "host=c%3Dd/p.prof"));
    t.add(tree("utf-8 escapes", "city=%C3%A9/p.prof", "city=é/p.prof"));
    t.add(tree("not escapes", "k=%zz/p.prof", "k=100%/p.prof", "k=%-1x/p.prof", "k=a%2/p.prof"));
    t.add(
        tree("signed escapes", "k=%+1x/p.prof", "k=%-0x/p.prof")
            .differs(Difference.SIGNED_ESCAPES));
    t.add(tree("escaped key", "a%3Db=1/p.prof"));
    t.add(tree("int and long", "x=1/p.prof", "x=10000000000/p.prof"));
    t.add(tree("int and double", "x=1/p.prof", "x=1.5/p.prof"));
    t.add(tree("long and double", "x=10000000000/p.prof", "x=1.5/p.prof"));
    t.add(tree("decimal and int", "x=99999999999999999999/p.prof", "x=1/p.prof"));
    t.add(tree("decimals", "x=99999999999999999999/p.prof", "x=-1234567890123456789012345/p.prof"));
    t.add(tree("decimal and double", "x=99999999999999999999/p.prof", "x=1.5/p.prof"));
    t.add(tree("date and timestamp", "t=2026-11-20/p.prof", "t=2026-11-20 10%3A00%3A00/p.prof"));
    t.add(tree("date and int", "t=2026-11-20/p.prof", "t=1/p.prof"));
    t.add(tree("null and int", "k=__HIVE_DEFAULT_PARTITION__/p.prof", "k=1/p.prof"));
    t.add(tree("null and date", "k=__HIVE_DEFAULT_PARTITION__/p.prof", "k=2026-11-20/p.prof"));
    t.add(tree("null only", "k=__HIVE_DEFAULT_PARTITION__/p.prof"));
    t.add(
        tree("null only, no inference", "k=__HIVE_DEFAULT_PARTITION__/p.prof")
            .conf(INFERENCE, "false"));
    t.add(
        tree("no inference", "x=1/d=2026-11-20/p.prof", "x=1.5/d=__HIVE_DEFAULT_PARTITION__/p.prof")
            .conf(INFERENCE, "false"));
    for (String v :
        List.of(
            "1",
            "-1",
            "+1",
            "007",
            "2147483648",
            "-2147483649",
            "9223372036854775808",
            "1e3",
            "1E-3",
            "1.5",
            "1.000000000000000000001",
            "1.5f",
            "1.5d",
            "NaN",
            "Infinity",
            "-Infinity",
            "0x1p3",
            " 1",
            "1 ",
            "١٢",
            "%31",
            "1%2E5",
            "2026-11-20",
            "2026-1-5",
            "2026-02-30",
            "12026-11-20",
            "+2026-11-20",
            "2026-11-20 ",
            "2026-11-20 x",
            "2026-11-20 10%3A00%3A00",
            "2026-11-20 10%3A00%3A00.5",
            "2026-11-20 10%3A00%3A00.12",
            "2026-11-20 10%3A00%3A00.123456789",
            "2026-11-20%2010%3A00%3A00",
            "2026-11-20T10%3A00%3A00",
            "2026-11-20 10%3A00",
            "2026-11-20 24%3A00%3A00",
            "2026-11-20 9%3A00%3A00",
            "true",
            "%5F_HIVE_DEFAULT_PARTITION__",
            "a+b",
            "a b",
            "x%",
            "0000-01-01",
            "0001-01-01",
            "2026-11-20 10%3A00%3A60",
            "2026-11-20 10%3A00%3A00.",
            "2026-11-20 10%3A00%3A00,5",
            "2026-11-20 10%3a00%3a00",
            "0x10",
            "1_000",
            "1L",
            "-0",
            "-0.0",
            "00000000000000000000001")) {
      t.add(tree("value '" + v + "'", "x=" + v + "/p.prof"));
    }
    for (String zone : List.of("UTC", "America/Los_Angeles", "Asia/Kolkata")) {
      t.add(
          tree(
                  "timestamps in " + zone,
                  "t=2026-11-20 10%3A00%3A00/p.prof",
                  "t=2026-03-08 02%3A30%3A00/p.prof",
                  "t=2026-11-01 01%3A30%3A00/p.prof",
                  "t=2026-03-08/p.prof")
              .conf(ZONE, zone));
    }
    t.add(
        tree(
                "timestamps without time zone",
                "t=2026-11-20 10%3A00%3A00/p.prof",
                "t=2026-03-08/p.prof")
            .conf("spark.sql.timestampType", "TIMESTAMP_NTZ")
            .conf(ZONE, "America/Los_Angeles"));
    t.add(
        tree(
                "below a partition directory",
                "date=2026-11-20/host=a/p.prof",
                "date=2026-11-21/host=b/p.prof")
            .load("date=2026-11-20"));
    t.add(
        tree("basePath above", "date=2026-11-20/host=a/p.prof", "date=2026-11-21/host=b/p.prof")
            .load("date=2026-11-20")
            .option("basePath", "${root}"));
    t.add(
        tree(
                "basePath above, two loads",
                "date=2026-11-20/host=a/p.prof",
                "date=2026-11-21/host=b/p.prof")
            .load("date=2026-11-20", "date=2026-11-21")
            .option("basePath", "${root}"));
    t.add(
        tree(
                "two partition directories loaded",
                "date=2026-11-20/host=a/p.prof",
                "date=2026-11-21/host=b/p.prof")
            .load("date=2026-11-20", "date=2026-11-21")
            .refused(CONFLICTING_DIRS));
    t.add(
        tree("one file loaded", "date=2026-11-20/host=a/p.prof")
            .load("date=2026-11-20/host=a/p.prof"));
    t.add(
        tree("one file, basePath", "date=2026-11-20/host=a/p.prof")
            .load("date=2026-11-20/host=a/p.prof")
            .option("basePath", "${root}"));
    t.add(
        tree("basePath not above", "a=1/p.prof", "b/c=1/p.prof")
            .load("a=1")
            .option("basePath", "${root}/b")
            .refused("Wrong basePath"));
    t.add(
        tree("basePath a file", "a=1/p.prof")
            .option("basePath", "${root}/a=1/p.prof")
            .refused("Option 'basePath' must be a directory"));
    t.add(tree("stray file at the top", "p.prof", "a=1/p.prof"));
    t.add(tree("plain directory beside", "plain/p.prof", "a=1/p.prof").refused(CONFLICTING_DIRS));
    t.add(tree("plain directory between", "a=1/plain/b=2/p.prof"));
    t.add(
        tree("plain directories between", "a=1/plain/b=2/p.prof", "a=1/other/b=3/p.prof")
            .refused(CONFLICTING_DIRS));
    t.add(tree("plain directory below", "a=1/sub/p.prof", "a=2/p.prof"));
    t.add(tree("plain directory above", "plain/a=1/p.prof", "plain/a=2/p.prof", "plain/p.prof"));
    t.add(tree("different keys", "a=1/p.prof", "b=1/p.prof").refused(CONFLICTING_NAMES));
    t.add(tree("different depths", "a=1/p.prof", "a=1/b=2/p.prof").refused(CONFLICTING_NAMES));
    t.add(
        tree("keys differing in case", "A=1/p.prof", "a=2/p.prof")
            .differs(Difference.KEY_SPELLING));
    t.add(
        tree("keys differing in case, case sensitive", "A=1/p.prof", "a=2/p.prof")
            .conf("spark.sql.caseSensitive", "true")
            .refused(CONFLICTING_NAMES));
    t.add(tree("empty key", "=1/p.prof").refused("Empty partition column name in '=1'"));
    t.add(tree("empty value", "a=/p.prof").refused("Empty partition column value in 'a='"));
    t.add(
        tree("repeated key", "a=1/a=2/p.prof")
            .refused("[COLUMN_ALREADY_EXISTS] The column `a` already exists"));
    t.add(tree("underscore key", "_a=1/p.prof"));
    t.add(
        tree("uncastable widened value", "x=١٢/p.prof", "x=1.5/p.prof")
            .refused(
                "[INVALID_PARTITION_VALUE] Failed to cast value '١٢' to data type \"DOUBLE\""
                    + " for partition column `x`")
            .refused35("Failed to cast value `١٢` to `DoubleType` for partition column `x`"));
    t.add(
        tree("uncastable widened value, not validated", "x=١٢/p.prof", "x=1.5/p.prof")
            .conf(VALIDATE, "false"));
    t.add(tree("nested plain directory only", "sub/p.prof").differs(Difference.NESTED_FILES_READ));
    t.add(
        tree("nested plain directory and a file", "p.prof", "sub/p.prof")
            .differs(Difference.NESTED_FILES_READ));
    t.add(tree("temporary root", "_temporary/a=1/p.prof", "b=1/p.prof").load("_temporary", ""));
    return t;
  }

  @TestFactory
  Stream<DynamicTest> agreesWithSpark() {
    return trees().stream().map(t -> DynamicTest.dynamicTest(t.name(), () -> check(t)));
  }

  /**
   * The read options that the index does not hand to discovery yet ({@code timeZone}, {@code
   * recursiveFileLookup}): discovery with {@link PartitionDiscovery.Settings#of} them against
   * Spark's, on the same listing the index makes.
   */
  @Test
  void theTimeZoneOptionAsSpark() throws Exception {
    Path root = write("t=2026-11-20 10%3A00%3A00/p.prof");
    Map<String, String> options = Map.of("timeZone", "Asia/Kolkata");
    Row expected =
        spark
            .read()
            .format("binaryFile")
            .options(options)
            .load(root.toString())
            .select("t")
            .first();
    PartitionDiscovery.Partitions ours = discover(root, options);
    assertEquals(DataTypes.TimestampType, ours.schema().apply("t").dataType());
    long micros = (Long) ours.valuesByFile().values().iterator().next()[0];
    assertEquals(
        ((Timestamp) expected.get(0)).toInstant(), Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
    assertEquals(Instant.parse("2026-11-20T04:30:00Z"), ((Timestamp) expected.get(0)).toInstant());
  }

  @Test
  void recursiveFileLookupAsSpark() throws Exception {
    Path root = write("a=1/p.prof", "a=2/b/p.prof");
    Map<String, String> options = Map.of("recursiveFileLookup", "true");
    StructType sparks =
        spark.read().format("binaryFile").options(options).load(root.toString()).schema();
    assertEquals(Set.copyOf(BINARY_FILE_COLUMNS), Set.of(sparks.fieldNames()));
    assertEquals(0, discover(root, options).schema().size());
    assertEquals(1, discover(root, Map.of()).schema().size());
  }

  private PartitionDiscovery.Partitions discover(Path root, Map<String, String> options)
      throws Exception {
    List<FileLister.ListedFile> files =
        FileLister.list(
            List.of(root.toString()),
            spark.sparkContext().hadoopConfiguration(),
            null,
            null,
            false);
    return PartitionDiscovery.discover(
        files,
        PartitionDiscovery.Settings.of(
            SQLConf.get(), new ReadOptions(new CaseInsensitiveStringMap(options))),
        ProfileSchema.SCHEMA);
  }

  /** A new tree of one small real profile per relative path. */
  private Path write(String... files) throws Exception {
    Path root = Files.createDirectory(temp.resolve("tree" + trees++));
    byte[] profile = SampleData.read(SampleData.GPERFTOOLS.resolve("x86_32.prof"));
    for (String f : files) {
      Path p = root.resolve(f);
      Files.createDirectories(p.getParent());
      Files.write(p, profile);
    }
    return root;
  }

  private void check(Tree t) throws Exception {
    Path root = write(t.files().toArray(new String[0]));
    Outcome sparks;
    Outcome ours;
    Map<String, String> saved = new LinkedHashMap<>();
    for (Map.Entry<String, String> c : t.confs().entrySet()) {
      saved.put(c.getKey(), spark.conf().getOption(c.getKey()).getOrElse(() -> null));
      spark.conf().set(c.getKey(), c.getValue());
    }
    try {
      sparks = load("binaryFile", t, root, BINARY_FILE_COLUMNS);
      ours = load("profile", t, root, Set.of(ProfileSchema.SCHEMA.fieldNames()));
    } finally {
      for (Map.Entry<String, String> c : saved.entrySet()) {
        if (c.getValue() == null) {
          spark.conf().unset(c.getKey());
        } else {
          spark.conf().set(c.getKey(), c.getValue());
        }
      }
    }
    String both = " (" + t.name() + ")\nSpark: " + sparks + "\nours:  " + ours;
    if (sparks.error() != null) {
      assertNotNull(t.refusal(), "Spark refuses the tree; say what it says" + both);
      assertTrue(messages(sparks.error()).contains(sparksGist(t)), "Spark's gist changed" + both);
      assertNotNull(ours.error(), "Spark refuses the tree, we read it" + both);
      assertTrue(messages(ours.error()).contains(t.refusal()), "not Spark's gist" + both);
      return;
    }
    assertNull(t.refusal(), "Spark reads the tree" + both);
    if (ours.error() != null) {
      fail("Spark reads the tree, we refuse it" + both, ours.error());
    }
    Difference difference = t.difference();
    if (difference == Difference.SIGNED_ESCAPES && TestSpark.majorVersion() >= 4) {
      difference = Difference.NONE;
    }
    switch (difference) {
      case NONE -> {
        assertEquals(sparks.columns(), ours.columns(), "partition columns" + both);
        assertEquals(sparks.values(), ours.values(), "values per file" + both);
      }
      case KEY_SPELLING -> {
        assertEquals(
            sparks.columns().toDDL().toLowerCase(Locale.ROOT),
            ours.columns().toDDL().toLowerCase(Locale.ROOT),
            "partition columns" + both);
        assertEquals(sparks.values(), ours.values(), "values per file" + both);
      }
      case NESTED_FILES_READ -> {
        assertEquals(sparks.columns(), ours.columns(), "partition columns" + both);
        for (Map.Entry<String, List<Object>> e : sparks.values().entrySet()) {
          assertEquals(e.getValue(), ours.values().get(e.getKey()), e.getKey() + both);
        }
        assertEquals(t.files().size(), ours.values().size(), "every file is read" + both);
      }
      case SIGNED_ESCAPES -> {
        assertEquals(sparks.columns(), ours.columns(), "partition columns" + both);
        for (Map.Entry<String, List<Object>> e : ours.values().entrySet()) {
          String file = e.getKey();
          String asWritten = file.substring(file.lastIndexOf("/k=") + 3, file.lastIndexOf('/'));
          assertEquals(List.of(asWritten), e.getValue(), file + both);
        }
        assertEquals(t.files().size(), ours.values().size(), "every file is read" + both);
      }
    }
  }

  /** What Spark's refusal of a tree says, in the words of the Spark the tests run on. */
  private static String sparksGist(Tree t) {
    if (TestSpark.majorVersion() >= 4) {
      return t.refusal();
    }
    return t.refusal35() != null ? t.refusal35() : t.refusal().replaceFirst("^\\[[A-Z_.]+\\] ", "");
  }

  private Outcome load(String format, Tree t, Path root, Set<String> ownColumns) {
    try {
      DataFrameReader reader = spark.read().format(format);
      for (Map.Entry<String, String> o : t.options().entrySet()) {
        reader = reader.option(o.getKey(), o.getValue().replace("${root}", root.toString()));
      }
      String[] paths =
          t.loads().stream()
              .map(l -> l.isEmpty() ? root.toString() : root.resolve(l).toString())
              .toArray(String[]::new);
      Dataset<Row> df = reader.load(paths);
      StructType columns =
          new StructType(
              Arrays.stream(df.schema().fields())
                  .filter(f -> !ownColumns.contains(f.name()))
                  .toArray(StructField[]::new));
      List<Column> selected = new ArrayList<>();
      selected.add(functions.col("path"));
      for (String c : columns.fieldNames()) {
        selected.add(functions.col("`" + c + "`"));
      }
      Map<String, List<Object>> values = new TreeMap<>();
      // Every row of a file (one for binaryFile, a profile's records for ours) has its values.
      for (Row r : df.select(selected.toArray(new Column[0])).collectAsList()) {
        List<Object> v = new ArrayList<>();
        for (int i = 1; i < r.size(); i++) {
          v.add(r.get(i));
        }
        List<Object> before = values.put(r.getString(0), v);
        if (before != null && !before.equals(v)) {
          throw new AssertionError(format + " gives " + r.getString(0) + " two values");
        }
      }
      return new Outcome(columns, values, null);
    } catch (Exception | AssertionError e) {
      return new Outcome(null, null, e);
    }
  }

  private static String messages(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" | ");
    }
    return s.toString();
  }
}
