package dev.fleetprof.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.format.ProfileFormats;
import dev.fleetprof.spark.read.HadoopByteSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;

/**
 * The users' options table and the declarations in {@link ReadOptions} say the same: every option
 * the source takes has a row, every row is an option, and each row's default is the declared one.
 * The declarations' defaults are what a read without options gets.
 */
class ReadOptionsDocsTest {
  /** The page holding the read options table (under the heading "Read options"). */
  static final Path OPTIONS_DOC = Path.of("docs", "reading.md");

  private static final String HEADER = "| option | default | meaning |";
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| ([^|]*) \\|");

  /** The table's rows: option name to its default cell, in the table's order. */
  private static Map<String, String> documentedDefaults() throws Exception {
    List<String> lines = Files.readAllLines(OPTIONS_DOC);
    int header = lines.indexOf(HEADER);
    assertTrue(header >= 0, OPTIONS_DOC + " has no options table starting " + HEADER);
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : lines.subList(header + 2, lines.size())) {
      if (!line.startsWith("|")) {
        break;
      }
      if (line.startsWith("| anything else |")) {
        continue;
      }
      Matcher m = ROW.matcher(line);
      assertTrue(m.find(), "a row that names no option: " + line);
      assertEquals(null, out.put(m.group(1), m.group(2).trim()), "two rows for " + m.group(1));
    }
    return out;
  }

  @Test
  void theDocsTableListsExactlyTheDeclaredOptions() throws Exception {
    Set<String> declared = new LinkedHashSet<>();
    for (ReadOptions.ReadOption<?> o : ReadOptions.declared()) {
      if (!o.internal()) {
        declared.add(o.name());
      }
    }
    declared.addAll(ProfileFormats.optionNames());
    Set<String> documented = documentedDefaults().keySet();
    List<String> undocumented = new ArrayList<>(declared);
    undocumented.removeAll(documented);
    List<String> undeclared = new ArrayList<>(documented);
    undeclared.removeAll(declared);
    assertEquals(List.of(), undocumented, "options without a row in " + OPTIONS_DOC);
    assertEquals(List.of(), undeclared, "rows in " + OPTIONS_DOC + " for no option");
  }

  @Test
  void theDocsTableShowsEachDeclaredDefault() throws Exception {
    Map<String, String> documented = documentedDefaults();
    for (ReadOptions.ReadOption<?> o : ReadOptions.declared()) {
      if (o.internal()) {
        continue;
      }
      String cell = documented.get(o.name());
      // A session setting's row may add its value, as "`spark.sql.files.x` (4 MiB)".
      assertTrue(
          cell != null && cell.startsWith(o.documentedDefault()),
          o.name() + ": the table says " + cell + ", the declaration " + o.documentedDefault());
    }
  }

  @Test
  void everyDeclaredOptionIsTheSourcesOwnNotHadoops() {
    for (ReadOptions.ReadOption<?> o : ReadOptions.declared()) {
      assertEquals(
          Map.of(),
          ReadOptions.hadoopOptions(new CaseInsensitiveStringMap(Map.of(o.name(), "1"))),
          o.name());
    }
  }

  @Test
  void aReadWithoutOptionsGetsTheDeclaredDefaults() {
    SQLConf session = new SQLConf();
    ReadOptions read = new ReadOptions(new CaseInsensitiveStringMap(Map.of("path", "/x")), session);
    assertEquals(ProfileFormats.AUTO, read.format());
    assertEquals(null, read.pathGlobFilter());
    assertEquals(false, read.recursiveFileLookup());
    assertEquals(false, read.followSymlinks());
    assertEquals(session.filesMaxPartitionBytes(), read.maxPartitionBytes());
    assertEquals(session.filesOpenCostInBytes(), read.openCostInBytes());
    assertEquals(null, read.minPartitionNum());
    assertEquals(session.sessionLocalTimeZone(), read.timeZone());
    assertEquals(
        new ProblemPolicy(ReadOptions.Mode.PERMISSIVE, false, false, -1), read.problemPolicy());
    assertEquals(true, read.columnar());
    assertEquals(true, read.aggregatePushdown());
    assertEquals(64L << 20, read.aggregateMapBytes());
    assertEquals(HadoopByteSource.GzipLimits.DEFAULT, read.gzipLimits());
  }

  @Test
  void optionsOverTheSessionAndEqualReadsAreEqual() {
    SQLConf session = new SQLConf();
    session.setConfString("spark.sql.files.maxPartitionBytes", "1m");
    session.setConfString("spark.sql.files.ignoreMissingFiles", "true");
    Map<String, String> given = Map.of("path", "/x", "MAXPARTITIONBYTES", "2m", "mode", "failFast");
    ReadOptions read = new ReadOptions(new CaseInsensitiveStringMap(given), session);
    assertEquals(2L << 20, read.maxPartitionBytes(), "the option wins over the session");
    assertEquals(true, read.problemPolicy().ignoreMissingFiles(), "the session over the default");
    assertEquals(ReadOptions.Mode.FAILFAST, read.problemPolicy().mode());
    ReadOptions same = new ReadOptions(new CaseInsensitiveStringMap(given), session);
    assertEquals(read, same);
    assertEquals(read.hashCode(), same.hashCode());
    ReadOptions other =
        new ReadOptions(
            new CaseInsensitiveStringMap(
                Map.of("path", "/x", "mode", "FAILFAST", "columnar", "false")),
            session);
    assertTrue(!read.equals(other), "a different option makes a different read");
  }

  @Test
  void aBadValueIsRefusedNamingTheOptionTheValueAndWhatItAccepts() {
    SQLConf session = new SQLConf();
    Map<List<String>, String> accepted =
        Map.of(
            List.of("mode", "lenient"), "PERMISSIVE, DROPMALFORMED, FAILFAST",
            List.of("format", "perf"), "auto, gperftools, gprof, dcpi, pprof",
            List.of("columnar", "yes"), "true or false",
            List.of("openCostInBytes", "lots"), "a size in bytes",
            List.of("aggregatePushdown.maxMapBytes", "0"), "must be positive",
            List.of("maxCompressionRatio", "0.5"), "at least 1",
            List.of("minPartitionNum", "0"), "must be positive",
            List.of("minPartitionNum", "two"), "a whole number");
    for (Map.Entry<List<String>, String> e : accepted.entrySet()) {
      String name = e.getKey().get(0);
      String value = e.getKey().get(1);
      IllegalArgumentException thrown =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  new ReadOptions(
                      new CaseInsensitiveStringMap(Map.of("path", "/x", name, value)), session));
      String message = thrown.getMessage();
      assertTrue(message.contains("option " + name + "='" + value + "'"), message);
      assertTrue(message.contains(e.getValue()), message);
    }
    session.setConfString("spark.sql.files.maxPartitionBytes", "0");
    IllegalArgumentException fromSession =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ReadOptions(new CaseInsensitiveStringMap(Map.of("path", "/x")), session));
    assertTrue(
        fromSession.getMessage().contains("spark.sql.files.maxPartitionBytes=0 must be positive"),
        fromSession.getMessage());
  }
}
