package dev.fleetprof.output.flamegraph;

import dev.fleetprof.output.Frame;
import dev.fleetprof.output.StackWriter;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes an aggregate as one self-contained HTML page: a flame graph (root at the top, callees
 * below, width = weight; an "icicle" layout, so the page opens on the root without scrolling) drawn
 * as SVG by a little inline script from data embedded in the page. Nothing is fetched from the
 * network. Hovering a frame shows its full name, weight and share of the total; clicking zooms into
 * it, clicking the root (or Escape) zooms out. Frames are colored by module, so library boundaries
 * stand out; frames with no module are grey, anonymous (JIT) code green.
 *
 * <p>Boxes are functions: a symbolized frame is drawn as the functions of its inline chain, each a
 * box of its own (outermost above), and boxes under one parent merge by (module, function), so the
 * many offsets sampled within one function fold into one box. The hover text names the function,
 * marks inlined code ({@code [inlined]}), gives the file and line when all the box's frames share
 * them (the file alone when only it is shared) and the module: {@code helper [inlined] at
 * src/util.h:7 in /usr/bin/server}. Unsymbolized frames are boxes of one address each, as {@code
 * module+0xoffset}. A boundary-only name (no symbol covers the code: {@code MODULE+0xSTART}, where
 * the function starts by the call-frame information; {@link Frame#boundaryOnly()}) is marked as the
 * guess it is: {@value #BOUNDARY_ONLY_MARK} after the name, a dashed outline, italic text and a
 * paler colour of its module.
 *
 * <p>A fleet aggregate can have millions of distinct call-tree nodes, more than a browser can draw
 * and stay responsive, so at most {@code maxFrames} frames are drawn: the heaviest ones (see {@link
 * StackTrie#select}); a dropped frame's weight stays in its parent's width, and the page says how
 * many were dropped. Weights must be non-negative (a diff cannot be drawn as widths).
 */
public final class FlameGraphWriter implements StackWriter {
  /** Enough for the detail a person reads; far below what slows a browser down. */
  public static final int DEFAULT_MAX_FRAMES = 4000;

  private final OutputStream out;
  private final String title;
  private final ValueMeaning meaning;
  private final int maxFrames;
  private final StackTrie trie = new StackTrie();
  private long stacks;
  private boolean closed;

  /**
   * @param out receives the HTML page (UTF-8) when the writer is closed, and is closed then
   */
  public FlameGraphWriter(OutputStream out, String title, ValueMeaning meaning, int maxFrames) {
    if (maxFrames < 1) {
      throw new IllegalArgumentException("maxFrames must be at least 1, got " + maxFrames);
    }
    this.out = out;
    this.title = title;
    this.meaning = meaning;
    this.maxFrames = maxFrames;
  }

  public FlameGraphWriter(OutputStream out, String title, ValueMeaning meaning) {
    this(out, title, meaning, DEFAULT_MAX_FRAMES);
  }

  /** Writes {@code stacks} to {@code file}. */
  public static void write(
      Path file, String title, ValueMeaning meaning, int maxFrames, Iterable<WeightedStack> stacks)
      throws IOException {
    new FlameGraphWriter(Files.newOutputStream(file), title, meaning, maxFrames).writeAll(stacks);
  }

  @Override
  public void add(List<Frame> leafFirst, long value) {
    if (closed) {
      throw new IllegalStateException("writer is closed");
    }
    trie.add(leafFirst, value);
    stacks++;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8))) {
      int[] kept = trie.select(maxFrames);
      fill(
          w,
          Map.of(
              "$TITLE",
              html(title),
              "$TOTALS",
              html(totals(kept.length - 1)),
              "$DATA",
              data(kept)));
    }
  }

  /** Writes the page with its placeholders filled (only the template's, never the values'). */
  private static void fill(Writer w, Map<String, String> values) throws IOException {
    int at = 0;
    for (int p = PAGE.indexOf('$'); p >= 0; p = PAGE.indexOf('$', p + 1)) {
      for (Map.Entry<String, String> v : values.entrySet()) {
        if (PAGE.startsWith(v.getKey(), p)) {
          w.write(PAGE, at, p - at);
          w.write(v.getValue());
          at = p + v.getKey().length();
        }
      }
    }
    w.write(PAGE, at, PAGE.length() - at);
  }

  private String totals(int drawn) {
    long total = trie.total(0);
    StringBuilder b =
        meaning.nanosPerUnit() > 0
            ? new StringBuilder("Total ")
                .append(duration(total * (double) meaning.nanosPerUnit()))
                .append(" of ")
                .append(meaning.type())
            : new StringBuilder(String.format(Locale.ROOT, "Total %,d %s", total, meaning.type()));
    long nanos = meaning.nanosPerPeriodUnit();
    if (nanos > 0) {
      b.append(" = ")
          .append(duration(total * (double) meaning.period() * nanos))
          .append(" (")
          .append(String.format(Locale.ROOT, "%,d", meaning.period()))
          .append(' ')
          .append(meaning.periodUnit())
          .append(" each)");
    } else if (meaning.hasPeriod()) {
      b.append(
          String.format(
              Locale.ROOT,
              " = %,.0f %s (%,d each)",
              total * (double) meaning.period(),
              meaning.periodUnit(),
              meaning.period()));
    }
    b.append(
        String.format(
            Locale.ROOT, " \u00b7 %,d stacks \u00b7 %,d frames", stacks, trie.size() - 1));
    if (drawn < trie.size() - 1) {
      b.append(
          String.format(
              Locale.ROOT,
              ", the %,d heaviest drawn (lighter ones stay in their" + " callers' width)",
              drawn));
    }
    return b.toString();
  }

  private static String duration(double nanos) {
    double s = nanos / 1e9;
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%,.1f h", s / 3600);
    }
    if (s >= 1) {
      return String.format(Locale.ROOT, "%.2f s", s);
    }
    return String.format(Locale.ROOT, "%.3g ms", s * 1e3);
  }

  /**
   * The kept nodes in depth-first order, children heaviest first: {@code nodes} is a flat array of
   * (depth, frame index, total, self) per node; {@code frames} holds (short label, full label,
   * module index, 1 for a boundary-only name else 0) per distinct box as shown (with its source
   * position), {@code modules} the module names colors are derived from.
   */
  private String data(int[] kept) {
    Map<Integer, List<Integer>> children = new HashMap<>();
    for (int i = 1; i < kept.length; i++) {
      children.computeIfAbsent(trie.parent(kept[i]), k -> new ArrayList<>()).add(kept[i]);
    }
    Comparator<Integer> heaviestFirst =
        Comparator.comparingLong((Integer n) -> trie.total(n))
            .reversed()
            .thenComparing(n -> trie.box(n).label());
    Map<List<Object>, Integer> frameIndex = new HashMap<>();
    Map<String, Integer> moduleIndex = new HashMap<>();
    StringBuilder frames = new StringBuilder();
    StringBuilder modules = new StringBuilder();
    StringBuilder nodes = new StringBuilder();
    // Iterative depth-first walk: call chains are up to hundreds of frames deep.
    List<int[]> stack = new ArrayList<>();
    stack.add(new int[] {0, 0});
    while (!stack.isEmpty()) {
      int[] top = stack.remove(stack.size() - 1);
      int node = top[0];
      StackTrie.Box box = trie.box(node);
      int fi = -1;
      if (box != null) {
        StackTrie.Where where = trie.where(node);
        fi =
            frameIndex.computeIfAbsent(
                Arrays.asList(box, where),
                k -> {
                  String module = box.displayModule();
                  int mi = -1;
                  if (module != null) {
                    mi =
                        moduleIndex.computeIfAbsent(
                            module,
                            m -> {
                              modules.append(modules.length() == 0 ? "" : ",").append(json(m));
                              return moduleIndex.size();
                            });
                  }
                  frames
                      .append(frames.length() == 0 ? "" : ",")
                      .append('[')
                      .append(
                          json(
                              box.boundaryOnly()
                                  ? box.shortLabel() + BOUNDARY_ONLY_MARK
                                  : box.shortLabel()))
                      .append(',')
                      .append(json(details(box, where)))
                      .append(',')
                      .append(mi)
                      .append(',')
                      .append(box.boundaryOnly() ? 1 : 0)
                      .append(']');
                  return frameIndex.size();
                });
      }
      nodes
          .append(nodes.length() == 0 ? "" : ",")
          .append(top[1])
          .append(',')
          .append(fi)
          .append(',')
          .append(trie.total(node))
          .append(',')
          .append(trie.self(node));
      List<Integer> kids = children.getOrDefault(node, new ArrayList<>());
      kids.sort(heaviestFirst);
      for (int k = kids.size() - 1; k >= 0; k--) {
        stack.add(new int[] {kids.get(k), top[1] + 1});
      }
    }
    return "{\"type\":"
        + json(meaning.type())
        + ",\"nanos\":"
        + meaning.nanosPerUnit()
        + ",\"modules\":["
        + modules
        + "],\"frames\":["
        + frames
        + "],\"nodes\":["
        + nodes
        + "]}";
  }

  /**
   * What a boundary-only name's box shows after the name ({@link Frame#boundaryOnly()}): it is a
   * guess, not a symbol.
   */
  static final String BOUNDARY_ONLY_MARK = " [cfi]";

  /** What its hover text says after the name. */
  static final String BOUNDARY_ONLY_DETAILS =
      " [cfi: no symbol; named by where its function starts, from the call-frame information]";

  /**
   * A box's hover text: {@code module+0xoffset} for an unsymbolized frame; for a function, e.g.
   * {@code helper [inlined] at src/util.h:7 in /usr/bin/server}: whether its frames are inlined
   * code ({@code [inlined]}, {@code [partly inlined]} when only some are), the file and line when
   * all its frames agree on them (the file alone when only it is shared), and the module.
   */
  static String details(StackTrie.Box box, StackTrie.Where where) {
    if (box.function() == null) {
      return box.label();
    }
    StringBuilder b = new StringBuilder(box.function());
    if (box.boundaryOnly()) {
      b.append(BOUNDARY_ONLY_DETAILS);
    }
    if (where != null) {
      if (where.inlined() == StackTrie.Inlined.YES) {
        b.append(" [inlined]");
      } else if (where.inlined() == StackTrie.Inlined.SOMETIMES) {
        b.append(" [partly inlined]");
      }
      if (where.file() != null) {
        b.append(" at ").append(where.file());
        if (where.line() != 0) {
          b.append(':').append(where.line());
        }
      }
    }
    String module = box.displayModule();
    return module == null ? b.toString() : b.append(" in ").append(module).toString();
  }

  /**
   * A JSON string that is also safe inside a script element: no {@code <}, {@code >}, {@code &}.
   */
  static String json(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&') {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  static String html(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }

  private static final String PAGE =
      """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>$TITLE</title>
      <style>
        body { margin: 0; font: 14px system-ui, sans-serif; color: #222; background: #fafaf7; }
        header { padding: 12px 16px 4px; }
        h1 { font-size: 20px; margin: 0 0 4px; }
        .totals { margin: 0; color: #555; }
        #details { margin: 6px 0 0; min-height: 1.3em; font-family: ui-monospace, monospace;
          font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        #chart { padding: 4px 16px 16px; }
        svg { display: block; width: 100%; }
        svg .f { cursor: pointer; }
        svg .f rect { stroke: #fafaf7; stroke-width: 0.5; }
        svg .f:hover rect { stroke: #222; stroke-width: 1; }
        svg .f.up { opacity: 0.55; }
        svg .f.g rect { stroke: #555; stroke-dasharray: 3 2; }
        svg .f.g text { font-style: italic; }
        svg text { font: 11px ui-monospace, monospace; fill: #111; pointer-events: none; }
      </style>
      </head>
      <body>
      <header>
      <h1>$TITLE</h1>
      <p class="totals">$TOTALS</p>
      <p id="details">Hover a frame for details; click to zoom, click the root or press Esc to reset.</p>
      </header>
      <div id="chart"><svg id="flame" xmlns="http://www.w3.org/2000/svg"></svg></div>
      <script>
      "use strict";
      (function () {
        const D = $DATA;
        const NS = "http://www.w3.org/2000/svg", ROW = 18, n = D.nodes.length / 4;
        const depth = [], fi = [], total = [], self = [], x = [], hidden = [], parent = [];
        const next = [0], path = [];
        for (let i = 0; i < n; i++) {
          const d = D.nodes[4 * i];
          depth[i] = d; fi[i] = D.nodes[4 * i + 1];
          total[i] = D.nodes[4 * i + 2]; self[i] = D.nodes[4 * i + 3];
          x[i] = next[d] || 0; next[d] = x[i] + total[i]; next[d + 1] = x[i];
          path[d] = i; parent[i] = d > 0 ? path[d - 1] : -1;
          hidden[i] = total[i] - self[i];
          if (parent[i] >= 0) hidden[parent[i]] -= total[i];
        }
        const maxDepth = depth.reduce((a, b) => Math.max(a, b), 0);
        const all = total[0] || 1;
        const svg = document.getElementById("flame"), details = document.getElementById("details");
        // Values that are time (cpu in nanoseconds) read as durations, counts as counts.
        const fmt = v => {
          if (!(D.nanos > 0)) return v.toLocaleString("en-US");
          const sec = v * D.nanos / 1e9;
          return sec >= 1 ? sec.toFixed(2) + " s" : (sec * 1e3).toPrecision(3) + " ms";
        };
        const pct = v => (100 * v / all).toFixed(2) + "%";
        const name = i => i === 0 ? "all" : D.frames[fi[i]][0];
        const hash = s => { let h = 2166136261; for (const c of s) { h = Math.imul(h ^ c.charCodeAt(0), 16777619); } return h >>> 0; };
        function color(i) {
          if (i === 0) return "hsl(30, 10%, 78%)";
          const f = D.frames[fi[i]];
          if (f[2] < 0) return "hsl(0, 0%, 72%)";
          const m = D.modules[f[2]], h = hash(m), v = hash(f[0]) % 12;
          if (f[3]) return "hsl(" + (h % 50) + ", 25%, " + (78 + v / 2) + "%)";
          if (m === "[anon]") return "hsl(" + (100 + h % 40) + ", 55%, " + (55 + v) + "%)";
          return "hsl(" + (h % 50) + ", " + (70 + h % 20) + "%, " + (55 + v) + "%)";
        }
        function describe(i) {
          let s = (i === 0 ? "all" : D.frames[fi[i]][1]) + " \\u2014 " + fmt(total[i]) + (D.nanos > 0 ? " of " : " ") + D.type
            + " (" + pct(total[i]) + ")";
          if (self[i] > 0) s += ", self " + fmt(self[i]) + " (" + pct(self[i]) + ")";
          if (hidden[i] > 0) s += ", " + fmt(hidden[i]) + " in frames too small to draw";
          return s;
        }
        let zoom = 0;
        function render() {
          const W = svg.clientWidth || 1200, z0 = x[zoom], scale = W / (total[zoom] || 1);
          svg.setAttribute("height", (maxDepth + 1) * ROW);
          svg.setAttribute("viewBox", "0 0 " + W + " " + (maxDepth + 1) * ROW);
          const out = document.createDocumentFragment();
          for (let i = 0; i < n; i++) {
            const above = depth[i] < depth[zoom];
            if (above ? !(x[i] <= z0 && x[i] + total[i] >= z0 + total[zoom])
                : (x[i] < z0 || x[i] >= z0 + total[zoom])) continue;
            const left = above ? 0 : (x[i] - z0) * scale, w = above ? W : total[i] * scale;
            if (w < 0.5) continue;
            const g = document.createElementNS(NS, "g");
            g.setAttribute("class", (above ? "f up" : "f") + (i > 0 && D.frames[fi[i]][3] ? " g" : ""));
            g.dataset.i = i;
            const t = document.createElementNS(NS, "title");
            t.textContent = describe(i);
            const r = document.createElementNS(NS, "rect");
            r.setAttribute("x", left); r.setAttribute("y", depth[i] * ROW);
            r.setAttribute("width", w); r.setAttribute("height", ROW - 1);
            r.setAttribute("rx", 2); r.setAttribute("fill", color(i));
            g.append(t, r);
            const chars = Math.floor((w - 6) / 6.7), label = name(i);
            if (chars >= 3) {
              const tx = document.createElementNS(NS, "text");
              tx.setAttribute("x", left + 3); tx.setAttribute("y", depth[i] * ROW + ROW - 5);
              tx.textContent = label.length <= chars ? label : label.slice(0, chars - 1) + "\\u2026";
              g.append(tx);
            }
            out.append(g);
          }
          svg.replaceChildren(out);
        }
        const target = e => e.target.closest && e.target.closest(".f");
        svg.addEventListener("mouseover", e => { const g = target(e); if (g) details.textContent = describe(+g.dataset.i); });
        svg.addEventListener("click", e => { const g = target(e); if (g) { zoom = +g.dataset.i; render(); } });
        document.addEventListener("keydown", e => { if (e.key === "Escape") { zoom = 0; render(); } });
        window.addEventListener("resize", render);
        render();
      })();
      </script>
      </body>
      </html>
      """;
}
