package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README, the pages in docs/ and bench/README.md say what still works: every command line of
 * the jobs in their shell blocks (and in inline code that gives a job arguments) parses with the
 * job's own parser, in this JVM and without Spark; every repo path they name exists; every relative
 * link resolves, to a heading when it names one; and the README stays short, with the quick start
 * CI runs. Paths are relative to the project root, surefire's working directory. In package {@code
 * jobs} for the jobs' package-private parsers.
 */
class DocsTest {
  /** The quick start's two commands, exactly: {@code .ci/run} runs them, and users paste them. */
  static final String QUICK_START_JOB =
      "jobs/fleet-aggregate --input sample-fleet --output target/fleet-output"
          + " --binaries sample-fleet/_reference/bin --pprof target/fleet-output/cpu.pb.gz"
          + " --folded target/fleet-output/cpu.folded --flamegraph target/fleet-output/cpu.html";

  static final String QUICK_START_TESTS = "mvn verify";

  /** The longest the README may grow: it says what fleetprof is and links the rest. */
  static final int README_MAX_LINES = 220;

  /** The jobs' launchers in jobs/ and their parsers; each throws on a command line it refuses. */
  private static final Map<String, Function<String[], Object>> JOBS =
      Map.of(
          "fleet-aggregate", FleetAggregate.Args::parse,
          "sql", SqlRunner::parse,
          "export-profile", ExportProfile.Args::parse,
          "symbolize", SymbolizeOutput.Args::parse);

  /** The jobs' main classes, as {@code spark-submit --class} names them, and their launchers. */
  private static final Map<String, String> MAIN_CLASSES =
      Map.of(
          "dev.fleetprof.jobs.FleetAggregate", "fleet-aggregate",
          "dev.fleetprof.jobs.SqlRunner", "sql",
          "dev.fleetprof.jobs.ExportProfile", "export-profile",
          "dev.fleetprof.jobs.SymbolizeOutput", "symbolize");

  /** The top-level folders whose paths, named in a doc, must exist. */
  private static final Pattern REPO_PATH =
      Pattern.compile(
          "(?<![\\w./~:-])(?:sample-data|sample-fleet|jobs|conf|docs|notebooks|bench)/[\\w./=*-]*");

  private static final Pattern FENCE = Pattern.compile("^\\s*```+\\s*([\\w-]*).*$");

  private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");

  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

  /** README.md, docs/*.md and bench/README.md. */
  static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(Path.of("README.md"));
    try (Stream<Path> s = Files.list(Path.of("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    docs.add(Path.of("bench", "README.md"));
    return docs;
  }

  @Test
  void readmeIsShortAndHasTheQuickStart() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("README.md"));
    assertTrue(
        lines.size() <= README_MAX_LINES,
        "README.md has " + lines.size() + " lines; at most " + README_MAX_LINES);
    int heading = lines.indexOf("## Quick start");
    assertTrue(heading >= 0, "README.md has no '## Quick start' heading");
    List<CodeBlock> blocks = codeBlocks(lines.subList(heading, lines.size()));
    assertTrue(!blocks.isEmpty(), "no code block under '## Quick start'");
    CodeBlock first = blocks.get(0);
    assertEquals("bash", first.language(), "the quick start's block is a bash block");
    assertEquals(
        List.of(QUICK_START_JOB, QUICK_START_TESTS),
        first.lines(),
        "the quick start's block holds exactly its two commands");
    String ci = Files.readString(Path.of(".ci", "run"));
    for (String command : List.of(QUICK_START_JOB, QUICK_START_TESTS)) {
      assertTrue(
          ci.lines().anyMatch(l -> l.strip().startsWith(command)),
          ".ci/run runs the quick start's " + command);
    }
  }

  @Test
  void everyJobCommandLineParses() throws IOException {
    List<String> problems = new ArrayList<>();
    Set<String> jobsSeen = new TreeSet<>();
    for (Path doc : docs()) {
      List<String> lines = Files.readAllLines(doc);
      for (CodeBlock block : codeBlocks(lines)) {
        if (!Set.of("bash", "sh", "shell").contains(block.language())) {
          continue;
        }
        Shell shell = new Shell();
        for (LogicalLine line : logicalLines(block)) {
          String where = doc + ":" + (block.firstLine() + line.offset());
          check(where, line.text(), shell, problems, jobsSeen);
        }
      }
      // Command lines in prose and tables too, when a job is given arguments there.
      boolean inBlock = false;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).strip().startsWith("```")) {
          inBlock = !inBlock;
          continue;
        }
        Matcher span = INLINE_CODE.matcher(lines.get(i));
        while (!inBlock && span.find()) {
          if (INLINE_JOB.matcher(span.group(1)).lookingAt()) {
            check(doc + ":" + (i + 1), span.group(1), new Shell(), problems, jobsSeen);
          }
        }
      }
    }
    assertEquals(
        new TreeSet<>(JOBS.keySet()), jobsSeen, "every job has a command line in the docs");
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  @Test
  void shellWordsAreWhatTheShellWouldPass() {
    Shell shell = new Shell();
    assertEquals(List.of(), shell.commands("out=target/x  # set for the block"));
    List<Command> c =
        shell.commands(
            "FLEETPROF_JAVA_OPTS=\"-Xmx1g\" jobs/sql -d output=$out -e 'SELECT \"${x}\"'"
                + " 2>/dev/null | jq -r .a > top.txt && echo \"${out}/y\" >&2; date");
    assertEquals(
        List.of(
            List.of("jobs/sql", "-d", "output=target/x", "-e", "SELECT \"${x}\""),
            List.of("jq", "-r", ".a"),
            List.of("echo", "target/x/y"),
            List.of("date")),
        c.stream().map(Command::words).toList());
    assertTrue(c.stream().allMatch(x -> x.unresolved().isEmpty()), c.toString());
    Command unset = shell.commands("jobs/fleet-aggregate --date $(date +%F) --output $OUT").get(0);
    assertEquals(List.of("$(date +%F)", "$OUT"), unset.unresolved());
    CodeBlock block =
        new CodeBlock("bash", List.of("jobs/sql \\", "  -e \"SELECT 1\"", "jobs/sql x.sql"), 1);
    assertEquals(
        List.of("jobs/sql    -e \"SELECT 1\"", "jobs/sql x.sql"),
        logicalLines(block).stream().map(LogicalLine::text).toList());
    assertEquals(
        new JobCall("fleet-aggregate", List.of("--input", "in", "--output", "out")),
        jobCall(
            List.of(
                "spark-submit",
                "--conf",
                "a=b.jar",
                "--class",
                "dev.fleetprof.jobs.FleetAggregate",
                "app.jar",
                "--input",
                "in",
                "--output",
                "out")));
  }

  /** Inline code, as the rendered page shows it. */
  private static final Pattern INLINE_CODE = Pattern.compile("`([^`]+)`");

  /** A job run with arguments, maybe after environment assignments. */
  private static final Pattern INLINE_JOB =
      Pattern.compile(
          "(?:[A-Za-z_]\\w*=(?:\"[^\"]*\"|\\S*)\\s+)*(?:\\./)?jobs/(?:"
              + String.join("|", JOBS.keySet())
              + ")\\s+\\S");

  /** Checks the job command lines of one shell line, adding what is wrong to {@code problems}. */
  private static void check(
      String where, String text, Shell shell, List<String> problems, Set<String> jobsSeen) {
    List<Command> commands;
    try {
      commands = shell.commands(text);
    } catch (IllegalArgumentException e) {
      problems.add(where + ": " + e.getMessage() + ": " + text);
      return;
    }
    for (Command c : commands) {
      JobCall call;
      try {
        call = jobCall(c.words());
      } catch (IllegalArgumentException e) {
        problems.add(where + ": " + e.getMessage() + ": " + text);
        continue;
      }
      if (call == null) {
        continue;
      }
      jobsSeen.add(call.job());
      if (!c.unresolved().isEmpty()) {
        problems.add(
            where
                + ": "
                + String.join(", ", c.unresolved())
                + " in a job's command line: set each variable earlier in the block"
                + " (NAME=...), and give values, not command substitutions: "
                + text);
        continue;
      }
      if (call.args().contains("--help") || call.args().contains("-h")) {
        continue;
      }
      try {
        JOBS.get(call.job()).apply(call.args().toArray(new String[0]));
      } catch (RuntimeException e) {
        problems.add(
            where
                + ": "
                + call.job()
                + " refuses "
                + String.join(" ", c.words())
                + ": "
                + e.getMessage());
      }
    }
  }

  @Test
  void everyRepoPathNamedExists() throws IOException {
    List<String> problems = new ArrayList<>();
    for (Path doc : docs()) {
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = REPO_PATH.matcher(lines.get(i));
        while (m.find()) {
          String path = m.group().replaceAll("[.,:]+$", "");
          if (!exists(path)) {
            problems.add(doc + ":" + (i + 1) + ": " + path + " does not exist");
          }
        }
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  @Test
  void everySqlJobIsInTheSqlJobsPage() throws IOException {
    String page = Files.readString(Path.of("docs", "sql-jobs.md"));
    List<String> missing = new ArrayList<>();
    try (Stream<Path> s = Files.list(Path.of("jobs"))) {
      s.map(p -> "jobs/" + p.getFileName())
          .filter(p -> p.endsWith(".sql"))
          .sorted()
          .filter(p -> !page.contains("| `" + p + "` |"))
          .forEach(missing::add);
    }
    assertTrue(missing.isEmpty(), "docs/sql-jobs.md's table lacks " + missing);
  }

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> problems = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    for (Path doc : docs()) {
      String prose = withoutCode(Files.readAllLines(doc));
      Matcher m = LINK.matcher(prose);
      while (m.find()) {
        String target = m.group(2);
        if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto: ...
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.toAbsolutePath().getParent().resolve(file);
        String where = doc + ": [" + m.group(1).replaceAll("\\s+", " ") + "](" + target + ")";
        if (!Files.exists(resolved)) {
          problems.add(where + ": no " + file);
          continue;
        }
        if (anchor != null && resolved.toString().endsWith(".md")) {
          Set<String> known =
              anchors.computeIfAbsent(resolved.normalize().toAbsolutePath(), DocsTest::anchorsOf);
          if (!known.contains(anchor)) {
            problems.add(where + ": no heading #" + anchor + " in " + file + " (" + known + ")");
          }
        }
      }
    }
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }

  /** A fenced code block: its info string's first word, its lines, and the line it starts on. */
  record CodeBlock(String language, List<String> lines, int firstLine) {}

  static List<CodeBlock> codeBlocks(List<String> lines) {
    List<CodeBlock> blocks = new ArrayList<>();
    String language = null;
    int start = 0;
    List<String> body = null;
    for (int i = 0; i < lines.size(); i++) {
      Matcher fence = FENCE.matcher(lines.get(i));
      if (body == null && fence.matches()) {
        language = fence.group(1).toLowerCase(Locale.ROOT);
        body = new ArrayList<>();
        start = i + 2;
      } else if (body != null && lines.get(i).strip().startsWith("```")) {
        blocks.add(new CodeBlock(language, List.copyOf(body), start));
        body = null;
      } else if (body != null) {
        body.add(lines.get(i));
      }
    }
    return blocks;
  }

  /** A command as the shell reads it, its continuation lines joined, and where it starts. */
  record LogicalLine(String text, int offset) {}

  /** The block's commands: lines ending in a backslash continue on the next line. */
  static List<LogicalLine> logicalLines(CodeBlock block) {
    List<LogicalLine> out = new ArrayList<>();
    StringBuilder current = null;
    int offset = 0;
    for (int i = 0; i < block.lines().size(); i++) {
      String line = block.lines().get(i);
      if (current == null) {
        current = new StringBuilder();
        offset = i;
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
      } else {
        current.append(line);
        out.add(new LogicalLine(current.toString(), offset));
        current = null;
      }
    }
    if (current != null) {
      out.add(new LogicalLine(current.toString(), offset));
    }
    return out;
  }

  /** A job's launcher name and the arguments it gets. */
  record JobCall(String job, List<String> args) {}

  /**
   * The job a simple command runs, or null: {@code jobs/NAME ARGS}, or {@code spark-submit ...
   * --class MAIN ... APP.jar ARGS}. The launcher's defaults apply to {@code jobs/fleet-aggregate}
   * (the demo fleet and {@code target/fleet-output}), as {@code jobs/fleet-aggregate} adds them.
   */
  static JobCall jobCall(List<String> command) {
    if (command.isEmpty()) {
      return null;
    }
    String program = command.get(0).replaceFirst("^\\./", "");
    List<String> rest = command.subList(1, command.size());
    if (program.startsWith("jobs/") && JOBS.containsKey(program.substring("jobs/".length()))) {
      String job = program.substring("jobs/".length());
      List<String> args = new ArrayList<>(rest);
      if (job.equals("fleet-aggregate")) {
        if (!args.contains("--input")) {
          args.addAll(0, List.of("--input", "sample-fleet"));
        }
        if (!args.contains("--output")) {
          args.addAll(0, List.of("--output", "target/fleet-output"));
        }
      }
      return new JobCall(job, args);
    }
    if (program.endsWith("spark-submit")) {
      int cls = rest.indexOf("--class");
      if (cls < 0 || cls + 1 >= rest.size() || !MAIN_CLASSES.containsKey(rest.get(cls + 1))) {
        return null;
      }
      for (int i = 0; i < rest.size(); i++) {
        if (i > cls + 1 && rest.get(i).endsWith(".jar") && !rest.get(i - 1).startsWith("--")) {
          return new JobCall(
              MAIN_CLASSES.get(rest.get(cls + 1)), List.copyOf(rest.subList(i + 1, rest.size())));
        }
      }
      throw new IllegalArgumentException("spark-submit without an application jar");
    }
    return null;
  }

  /**
   * A simple command's words, and what the shell would expand that is not known here: variables not
   * set earlier in the block ({@code $SPARK_HOME}), command substitutions. Those are the reader's
   * to fill in, except in a job's command line, which must parse as it stands.
   */
  record Command(List<String> words, List<String> unresolved) {}

  /**
   * Enough of a POSIX shell to find a code block's simple commands and their words: quotes and
   * escapes, comments, pipes and lists ({@code |}, {@code ;}, {@code &&}, {@code ||}), redirections
   * (dropped), assignments ({@code NAME=value} alone sets a variable for the rest of the block;
   * before a command, it is that command's environment and dropped), variables set so expanded.
   */
  static final class Shell {
    private final Map<String, String> variables = new HashMap<>();
    private final List<String> unresolved = new ArrayList<>();

    List<Command> commands(String line) {
      List<Command> commands = new ArrayList<>();
      List<String> words = new ArrayList<>();
      StringBuilder word = null;
      boolean redirectTarget = false;
      int i = 0;
      while (i < line.length()) {
        char c = line.charAt(i);
        if (c == '\'') {
          int end = line.indexOf('\'', i + 1);
          if (end < 0) {
            throw new IllegalArgumentException("unterminated single quote");
          }
          word = (word == null ? new StringBuilder() : word).append(line, i + 1, end);
          i = end + 1;
        } else if (c == '"') {
          word = word == null ? new StringBuilder() : word;
          i = doubleQuoted(line, i + 1, word);
        } else if (c == '\\' && i + 1 < line.length()) {
          word = (word == null ? new StringBuilder() : word).append(line.charAt(i + 1));
          i += 2;
        } else if (c == '$') {
          word = word == null ? new StringBuilder() : word;
          i = expand(line, i, word);
        } else if (c == '#' && word == null) {
          break;
        } else if (Character.isWhitespace(c) || "|;&<>".indexOf(c) >= 0) {
          if (word != null) {
            if (redirectTarget) {
              redirectTarget = false;
            } else if (c == '>' || c == '<') {
              if (!word.toString().matches("[0-9]+")) {
                words.add(word.toString());
              }
            } else {
              words.add(word.toString());
            }
            word = null;
          }
          if (c == '>' || c == '<') {
            while (i + 1 < line.length() && line.charAt(i + 1) == '>') {
              i++;
            }
            if (i + 1 < line.length() && line.charAt(i + 1) == '&') {
              i += 2;
              while (i + 1 < line.length() && Character.isDigit(line.charAt(i + 1))) {
                i++;
              }
            } else {
              redirectTarget = true;
            }
          } else if ("|;&".indexOf(c) >= 0) {
            end(words, commands);
            words = new ArrayList<>();
          }
          i++;
        } else {
          word = (word == null ? new StringBuilder() : word).append(c);
          i++;
        }
      }
      if (word != null && !redirectTarget) {
        words.add(word.toString());
      }
      end(words, commands);
      return commands;
    }

    /** Ends a simple command: assignments alone set variables; leading ones are dropped. */
    private void end(List<String> words, List<Command> commands) {
      int first = 0;
      while (first < words.size() && words.get(first).matches("[A-Za-z_]\\w*=.*")) {
        first++;
      }
      if (first == words.size()) {
        for (String w : words) {
          int eq = w.indexOf('=');
          variables.put(w.substring(0, eq), w.substring(eq + 1));
        }
      } else {
        commands.add(
            new Command(List.copyOf(words.subList(first, words.size())), List.copyOf(unresolved)));
      }
      unresolved.clear();
    }

    private int doubleQuoted(String line, int i, StringBuilder word) {
      while (i < line.length()) {
        char c = line.charAt(i);
        if (c == '"') {
          return i + 1;
        } else if (c == '\\'
            && i + 1 < line.length()
            && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
          word.append(line.charAt(i + 1));
          i += 2;
        } else if (c == '$') {
          i = expand(line, i, word);
        } else {
          word.append(c);
          i++;
        }
      }
      throw new IllegalArgumentException("unterminated double quote");
    }

    /** Appends the value of the {@code $NAME} or {@code ${NAME}} at {@code i}; returns its end. */
    private int expand(String line, int i, StringBuilder word) {
      Matcher m =
          Pattern.compile("\\$(?:\\{(\\w+)}|(\\w+))").matcher(line).region(i, line.length());
      if (!m.lookingAt()) {
        if (i + 1 < line.length() && line.charAt(i + 1) == '(') {
          int depth = 0;
          int j = i + 1;
          do {
            char c = line.charAt(j);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            j++;
          } while (depth > 0 && j < line.length());
          unresolved.add(line.substring(i, j));
          word.append(line, i, j);
          return j;
        }
        word.append('$');
        return i + 1;
      }
      String name = m.group(1) != null ? m.group(1) : m.group(2);
      String value = variables.get(name);
      if (value == null) {
        unresolved.add("$" + name);
        word.append(m.group());
      } else {
        word.append(value);
      }
      return m.end();
    }
  }

  /** Whether a path named in a doc exists; {@code *} matches within a directory level. */
  static boolean exists(String path) {
    if (!path.contains("*")) {
      return Files.exists(Path.of(path));
    }
    String dir = path.substring(0, path.lastIndexOf('/', path.indexOf('*')) + 1);
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + path);
    try (Stream<Path> s = Files.walk(Path.of(dir.isEmpty() ? "." : dir))) {
      return s.anyMatch(p -> matcher.matches(p.normalize()));
    } catch (IOException e) {
      return false;
    }
  }

  /** The doc's text without code: fenced blocks dropped, inline code spans made plain words. */
  static String withoutCode(List<String> lines) {
    StringBuilder prose = new StringBuilder();
    boolean inBlock = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      if (!inBlock) {
        prose.append(line.replaceAll("``[^`]+``|`[^`]+`", "code")).append('\n');
      }
    }
    return prose.toString();
  }

  /** The anchors GitHub gives a page's headings (lower case, punctuation dropped, dashes). */
  static Set<String> anchorsOf(Path page) {
    List<String> lines;
    try {
      lines = Files.readAllLines(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inBlock = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        inBlock = !inBlock;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (inBlock || !m.matches()) {
        continue;
      }
      StringBuilder slug = new StringBuilder();
      m.group(1)
          .toLowerCase(Locale.ROOT)
          .codePoints()
          .forEach(
              cp -> {
                if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                  slug.appendCodePoint(cp);
                } else if (cp == ' ') {
                  slug.append('-');
                }
              });
      String base = slug.toString();
      int n = seen.merge(base, 1, Integer::sum);
      anchors.add(n == 1 ? base : base + "-" + (n - 1));
    }
    return anchors;
  }
}
