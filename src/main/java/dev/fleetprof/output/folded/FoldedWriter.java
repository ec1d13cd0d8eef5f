package dev.fleetprof.output.folded;

import dev.fleetprof.output.Frame;
import dev.fleetprof.output.StackWriter;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes an aggregate as folded stacks, the text format of Brendan Gregg's FlameGraph ({@code
 * flamegraph.pl}), speedscope, inferno and many others: one stack per line, UTF-8,
 *
 * <pre>root;caller;...;leaf count</pre>
 *
 * ROOT FIRST (the reverse of the {@code frames} column). A symbolized frame becomes the functions
 * of its inline chain, outermost first, each shown by its (demangled) name: under a caller frame
 * {@code main}, a leaf frame whose chain is {@code [helper, worker]} (innermost first: the
 * instruction is in {@code helper}, inlined into {@code worker}) gives {@code main;worker;helper
 * 12}. An unsymbolized frame is one element:
 *
 * <ul>
 *   <li>{@code module+0xoffset} (full module path, lower-case hex offset);
 *   <li>{@code [anon]+0xoffset} for an anonymous executable mapping (module {@code ""});
 *   <li>{@code 0xpc} when no mapping held the pc (module null);
 *   <li>a stack with no frames is the single frame {@value #EMPTY_STACK}.
 * </ul>
 *
 * A boundary-only name ({@link Frame#boundaryOnly()}: no symbol covers the code, and the name
 * {@code MODULE+0xSTART} is the module's file name and where the function starts by the call-frame
 * information) is written as the name it is: it already reads as an address, and the format has no
 * place for a mark that every reader would ignore. It differs from an unsymbolized frame's element
 * (the module's full path and the sampled offset), and the samples of one unnamed function share
 * it.
 *
 * <p>Escaping rule: in a module or function name, each of {@code ;} (the frame separator), {@code
 * %} (the escape itself), space (which separates the count), every control character
 * (U+0000-U+001F, U+007F, and U+0085) and the Unicode line and paragraph separators U+2028/U+2029
 * (some readers split lines on them) is written as {@code %XX} per byte of its UTF-8 encoding,
 * upper-case hex; nothing else is changed (so a C++ name reads {@code f(int,%20char)}). So a line
 * contains exactly one space, before the count, no frame contains {@code ;}, an unsymbolized
 * frame's offset follows its last {@code +0x}, and decoding every {@code %XX} (as UTF-8) gives the
 * name back exactly. Counts are the stack's value in decimal; a negative value (a diff) cannot be a
 * folded count and is refused.
 *
 * <p>Repeated lines: one line is written per stack as it comes, without merging. Stacks that differ
 * only in offsets within the same functions (and same inline chains) give equal lines, as do stacks
 * the aggregate holds more than once. The readers add repeated lines up: {@code flamegraph.pl}
 * sorts its input and draws equal stacks as one box of their summed count; speedscope takes each
 * line as a sample, so its left-heavy and sandwich views sum them. Merging here would need memory
 * for every distinct line of the aggregate; when a tool needs distinct lines, merge them
 * afterwards, e.g. {@code awk '{c[$1]+=$2} END {for (s in c) print s, c[s]}'} (a line has one
 * space).
 */
public final class FoldedWriter implements StackWriter {
  /** The frame of a stack that has no frames at all. */
  public static final String EMPTY_STACK = "[empty-stack]";

  private static final String HEX = "0123456789ABCDEF";

  private final Writer out;
  private final StringBuilder line = new StringBuilder(256);

  /**
   * @param out receives UTF-8 text; closed by {@link #close()}
   */
  public FoldedWriter(OutputStream out) {
    this.out = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
  }

  /** Writes {@code stacks} to {@code file}. */
  public static void write(Path file, Iterable<WeightedStack> stacks) throws IOException {
    new FoldedWriter(Files.newOutputStream(file)).writeAll(stacks);
  }

  @Override
  public void add(List<Frame> leafFirst, long value) throws IOException {
    out.write(line(leafFirst, value));
  }

  /** The line (with its {@code \n}) for one stack. */
  public String line(List<Frame> leafFirst, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(
          "folded stacks need non-negative counts, got "
              + value
              + "; write the two sides of a difference as two files (FlameGraph's difffolded.pl)");
    }
    line.setLength(0);
    if (leafFirst.isEmpty()) {
      line.append(EMPTY_STACK);
    }
    for (int i = leafFirst.size() - 1; i >= 0; i--) {
      appendFrame(line, leafFirst.get(i));
      if (i > 0) {
        line.append(';');
      }
    }
    return line.append(' ').append(value).append('\n').toString();
  }

  /**
   * One frame as it appears in a folded line: an unsymbolized frame's one element, or a symbolized
   * frame's functions outermost first, joined by {@code ;}.
   */
  public static String frame(Frame f) {
    return appendFrame(new StringBuilder(), f).toString();
  }

  private static StringBuilder appendFrame(StringBuilder b, Frame f) {
    List<SourceLine> chain = f.lines();
    if (!chain.isEmpty()) {
      for (int i = chain.size() - 1; i >= 0; i--) { // the chain is innermost first
        appendEscaped(b, chain.get(i).function());
        if (i > 0) {
          b.append(';');
        }
      }
      return b;
    }
    String module = f.displayModule();
    if (module != null) {
      appendEscaped(b, module).append('+');
    }
    return b.append("0x").append(Long.toHexString(f.offset()));
  }

  private static StringBuilder appendEscaped(StringBuilder b, String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == ';'
          || c == '%'
          || c == ' '
          || c < 0x20
          || c == 0x7f
          || c == 0x85
          || c == 0x2028
          || c == 0x2029) {
        for (byte x : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
          b.append('%').append(HEX.charAt((x >> 4) & 0xf)).append(HEX.charAt(x & 0xf));
        }
      } else {
        b.append(c);
      }
    }
    return b;
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
