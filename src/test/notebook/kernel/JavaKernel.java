package dev.fleetprof.notebook.kernel;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jshell.DeclarationSnippet;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.ExpressionSnippet;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.BaseKernelBuilder;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;

/**
 * A Java kernel for Jupyter: JShell behind jjava-jupyter's {@code BaseKernel} (Maven Central serves
 * that protocol library, not JJava's own kernel). Cells run in this JVM (JShell's {@code local}
 * engine), so a cell's last value reaches Jupyter as the object itself: a {@code DisplayData} (e.g.
 * {@code putHTML}) is shown as is, anything else as its {@code toString()}; what a cell prints goes
 * to the cell's output. A compile error or an exception fails the cell, as Jupyter expects, so that
 * {@code nbconvert --execute} fails on it.
 *
 * <p>The cells' classpath is {@code JJAVA_CLASSPATH} (entries separated as on this platform, JJava's
 * variable) and this kernel's own (so cells can name {@code DisplayData} and the statics of
 * {@code BaseNotebookStatics}, such as {@code display}). Argument: Jupyter's connection file.
 */
public final class JavaKernel extends BaseKernel {
  /** Where a cell's last value waits for the kernel: cells run in this JVM, on its class loader. */
  private static Object lastValue;

  private final JShell shell;

  private JavaKernel(Builder b, JShell shell) {
    super(
        "fleetprof-java",
        "1",
        new LanguageInfo(
            "java",
            Runtime.version().toString(),
            "text/x-java-source",
            ".jshell",
            "java",
            "java",
            null),
        List.of(),
        b.history,
        b.io,
        b.comms,
        b.renderer,
        b.parser,
        b.magics,
        false,
        new StringStyler("", "", "", i -> ""));
    this.shell = shell;
  }

  /** Called by the snippet the kernel adds after a cell's last expression. */
  public static void hold(Object value) {
    lastValue = value;
  }

  public static void main(String[] args) throws Exception {
    JShell shell = JShell.builder().executionEngine("local").build();
    List<String> classpath = new ArrayList<>();
    for (String var : List.of("JJAVA_CLASSPATH")) {
      String value = System.getenv(var);
      if (value != null) {
        classpath.addAll(List.of(value.split(File.pathSeparator)));
      }
    }
    classpath.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
    for (String entry : classpath) {
      if (!entry.isBlank()) {
        shell.addToClasspath(entry);
      }
    }
    JavaKernel kernel = new JavaKernel(new Builder(), shell);
    for (String startup :
        List.of(
            "import java.util.*;",
            "import java.util.stream.*;",
            "import java.nio.file.*;",
            "import org.dflib.jjava.jupyter.kernel.display.DisplayData;",
            "import static org.dflib.jjava.jupyter.kernel.BaseNotebookStatics.*;")) {
      kernel.evalRaw(startup);
    }
    String connectionFile = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
    JupyterConnection connection =
        new JupyterConnection(KernelConnectionProperties.parse(connectionFile));
    kernel.onStartup();
    kernel.becomeHandlerForConnection(connection);
    connection.connect();
    connection.waitUntilClose();
    // A Spark Connect session leaves non-daemon threads behind: the kernel ends with its channel.
    System.exit(0);
  }

  @Override
  public Object evalRaw(String code) {
    lastValue = null;
    Snippet last = null;
    String remaining = code;
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    while (!remaining.isBlank()) {
      SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
      if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) {
        break;
      }
      if (!info.completeness().isComplete()) {
        throw new IllegalArgumentException("incomplete code: " + remaining.strip());
      }
      last = evalSnippet(info.source());
      remaining = info.remaining();
    }
    String name = valueName(last);
    if (name != null) {
      evalSnippet(JavaKernel.class.getName() + ".hold(" + name + ");");
    }
    return lastValue;
  }

  /** Evaluates one snippet, throwing what JShell reports as failed; its snippet. */
  private Snippet evalSnippet(String source) {
    Snippet result = null;
    for (SnippetEvent e : shell.eval(source)) {
      if (e.causeSnippet() != null) {
        continue; // an update of another snippet, not this one's outcome
      }
      result = e.snippet();
      if (e.exception() != null) {
        throw new RuntimeException(describe(e.exception()), e.exception());
      }
      switch (e.status()) {
        case REJECTED:
          throw new IllegalArgumentException(
              "does not compile: "
                  + shell
                      .diagnostics(e.snippet())
                      .map(JavaKernel::message)
                      .collect(Collectors.joining("; "))
                  + "\n"
                  + source.strip());
        case RECOVERABLE_DEFINED:
        case RECOVERABLE_NOT_DEFINED:
          if (e.snippet() instanceof DeclarationSnippet d) {
            throw new IllegalArgumentException(
                "unresolved references: "
                    + shell.unresolvedDependencies(d).collect(Collectors.joining(", "))
                    + "\n"
                    + source.strip());
          }
          break;
        default:
          break;
      }
    }
    return result;
  }

  /** The name under which the snippet's value can be read again, or null if it has none. */
  private String valueName(Snippet s) {
    if (s instanceof VarSnippet v && v.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND) {
      return v.name();
    }
    if (s instanceof ExpressionSnippet x && !"void".equals(x.typeName())) {
      return x.name();
    }
    return null;
  }

  private static String message(Diag d) {
    return d.getMessage(null);
  }

  private static String describe(JShellException e) {
    if (e instanceof EvalException ee) {
      return ee.getExceptionClassName() + ": " + ee.getMessage();
    }
    if (e instanceof UnresolvedReferenceException u) {
      return "unresolved reference in " + u.getSnippet().source();
    }
    return e.toString();
  }

  @Override
  public List<String> formatError(Throwable e) {
    List<String> lines = new ArrayList<>();
    lines.add(e.getMessage() == null ? e.toString() : e.getMessage());
    Throwable cause = e.getCause() == null ? e : e.getCause();
    for (StackTraceElement frame : cause.getStackTrace()) {
      lines.add("    at " + frame);
    }
    return lines;
  }

  @Override
  public DisplayData inspect(String code, int at, boolean extraDetail) {
    return null;
  }

  @Override
  public ReplacementOptions complete(String code, int at) {
    int[] anchor = new int[1];
    List<String> names =
        shell.sourceCodeAnalysis().completionSuggestions(code, at, anchor).stream()
            .map(SourceCodeAnalysis.Suggestion::continuation)
            .distinct()
            .toList();
    return new ReplacementOptions(names, anchor[0], at);
  }

  @Override
  public String isComplete(String code) {
    SourceCodeAnalysis.Completeness c =
        shell.sourceCodeAnalysis().analyzeCompletion(code).completeness();
    if (c == SourceCodeAnalysis.Completeness.UNKNOWN) {
      return IS_COMPLETE_BAD;
    }
    return c.isComplete() ? IS_COMPLETE_YES : IS_COMPLETE_MAYBE;
  }

  /** The protocol library's defaults for what this kernel does not customise. */
  private static final class Builder extends BaseKernelBuilder<Builder, JavaKernel> {
    final org.dflib.jjava.jupyter.kernel.history.HistoryManager history;
    final org.dflib.jjava.jupyter.kernel.JupyterIO io;
    final org.dflib.jjava.jupyter.kernel.comm.CommManager comms;
    final org.dflib.jjava.jupyter.kernel.display.Renderer renderer;
    final org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry magics;

    final org.dflib.jjava.jupyter.kernel.magic.MagicParser parser;

    Builder() {
      parser =
          new org.dflib.jjava.jupyter.kernel.magic.MagicParser(
              "(?<=(?:^|=))\\s*%", "%%", buildMagicTranspiler());
      history = buildHistoryManager();
      io = buildJupyterIO(buildJupyterIOEncoding());
      comms = buildCommManager();
      renderer = buildRenderer();
      magics = buildMagicsRegistry();
    }

    @Override
    public JavaKernel build() {
      throw new UnsupportedOperationException("built by JavaKernel.main");
    }
  }
}
