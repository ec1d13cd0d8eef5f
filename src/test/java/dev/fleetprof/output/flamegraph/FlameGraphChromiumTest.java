package dev.fleetprof.output.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.ExternalTool;
import dev.fleetprof.output.Frame;
import dev.fleetprof.output.SampleAggregate;
import dev.fleetprof.output.SymbolizedStacks;
import dev.fleetprof.output.ValueMeaning;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import java.awt.image.BufferedImage;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flame graph page rendered by a real headless Chromium after its script ran: the heaviest
 * frames (computed here from the aggregate) are drawn with their weights and shares, the page
 * paints, and the frame cap holds on a large aggregate.
 */
class FlameGraphChromiumTest {
  private static final Pattern FRAME_TITLE =
      Pattern.compile("<g class=\"f[^\"]*\" data-i=\"\\d+\"><title>([^<]*)</title>");

  @TempDir static Path dir;
  private static Path chromium;

  @BeforeAll
  static void findChromium() {
    chromium = ExternalTool.require("chromium", "chromium");
  }

  private static ExternalTool.Result chromium(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--mute-audio",
                "--user-data-dir=" + dir.resolve("chromium-profile"),
                "--window-size=1400,1000",
                "--virtual-time-budget=5000"));
    cmd.addAll(List.of(args));
    ExternalTool.Result r = ExternalTool.run(cmd, dir.resolve("home"), Map.of(), 300);
    assertEquals(0, r.exit(), "chromium " + List.of(args) + ": " + r.stderr());
    return r;
  }

  /** The hover text of every frame the script drew. */
  private static List<String> drawnFrames(String dom) {
    List<String> out = new ArrayList<>();
    Matcher m = FRAME_TITLE.matcher(dom);
    while (m.find()) {
      out.add(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"));
    }
    return out;
  }

  /** What the page says of a frame's weight: the same numbers as its script, computed here. */
  private static String weight(long v, long total, String type) {
    BigDecimal pct = new BigDecimal(100.0 * v / total).setScale(2, RoundingMode.HALF_UP);
    return String.format(Locale.US, "%,d %s (%s%%)", v, type, pct.toPlainString());
  }

  private static <K> List<Map.Entry<K, Long>> heaviest(Map<K, Long> m, int n) {
    return m.entrySet().stream()
        .sorted(Map.Entry.<K, Long>comparingByValue().reversed())
        .limit(n)
        .toList();
  }

  private static void assertSelfContained(String html) {
    for (String fetching :
        new String[] {"src=", "href=", "url(", "@import", "fetch(", "XMLHttpRequest", "<link"}) {
      assertFalse(html.contains(fetching), "the page must not load anything: " + fetching);
    }
    assertEquals(
        html.split("http", -1).length - 1,
        html.split("http://www.w3.org/2000/svg", -1).length - 1,
        "no URL but the SVG namespace");
  }

  @Test
  void theHeaviestFramesOfTheSamplesAreDrawnWithTheirWeights() throws Exception {
    List<WeightedStack> stacks = SampleAggregate.stacks();
    Path page = dir.resolve("samples.html");
    FlameGraphWriter.write(
        page, "gperftools <samples> & more", SampleAggregate.meaning(), 4000, stacks);
    String html = Files.readString(page);
    assertSelfContained(html);

    Map<Frame, Long> roots = new HashMap<>();
    long total = 0;
    for (WeightedStack s : stacks) {
      roots.merge(s.frames().get(s.frames().size() - 1), s.value(), Long::sum);
      total += s.value();
    }
    assertEquals(SampleAggregate.decoderTotal(), total);

    String dom = chromium("--dump-dom", page.toUri().toString()).stdout();
    List<String> drawn = drawnFrames(dom);
    assertTrue(dom.contains("gperftools &lt;samples&gt; &amp; more"), "title escaped, not markup");
    assertTrue(dom.contains(String.format(Locale.US, "Total %,d samples", total)), dom);
    assertTrue(drawn.contains("all \u2014 " + weight(total, total, "samples")), drawn.toString());
    for (Map.Entry<Frame, Long> root : heaviest(roots, 3)) {
      String want = root.getKey().label() + " \u2014 " + weight(root.getValue(), total, "samples");
      assertTrue(drawn.stream().anyMatch(t -> t.startsWith(want)), want + " in " + drawn);
    }
    // The heaviest stacks end in frames whose self weight is that stack's own value (the
    // aggregate holds each chain of frames once).
    List<WeightedStack> byValue = new ArrayList<>(stacks);
    byValue.sort(Comparator.comparingLong(WeightedStack::value).reversed());
    for (WeightedStack s : byValue.subList(0, 3)) {
      String want = s.frames().get(0).label() + " \u2014 ";
      String self = "self " + weight(s.value(), total, "samples").replace(" samples", "");
      assertTrue(
          drawn.stream().anyMatch(t -> t.startsWith(want) && t.contains(self)),
          want + "... " + self + " in " + drawn);
    }
  }

  @Test
  void symbolizedFramesAreFunctionBoxesMergedWithinAFunction() throws Exception {
    String server = SymbolizedStacks.SERVER;
    List<WeightedStack> stacks = new ArrayList<>(SymbolizedStacks.stacks());
    // helper inlined into worker at one offset, called by worker at another: one box, partly
    // inlined.
    Frame main =
        new Frame(server, 0x1040, List.of(new SourceLine("main", "main", "/src/fleet/main.c", 15)));
    stacks.add(
        new WeightedStack(
            List.of(
                new Frame(
                    server,
                    0x5000,
                    List.of(
                        new SourceLine("helper", "helper", "/src/fleet/h.c", 3),
                        new SourceLine("worker", "worker", "/src/fleet/w.c", 10))),
                main),
            4));
    stacks.add(
        new WeightedStack(
            List.of(
                new Frame(
                    server,
                    0x6000,
                    List.of(new SourceLine("helper", "helper", "/src/fleet/h.c", 3))),
                new Frame(
                    server,
                    0x5010,
                    List.of(new SourceLine("worker", "worker", "/src/fleet/w.c", 11))),
                main),
            6));

    // Box weights computed here: every root-first prefix of function names (an unsymbolized frame
    // is its label) sums the values of the stacks that pass through it.
    Map<String, Long> totals = new HashMap<>();
    Map<String, Long> selves = new HashMap<>();
    long total = 0;
    for (WeightedStack s : stacks) {
      StringBuilder path = new StringBuilder();
      for (int i = s.frames().size() - 1; i >= 0; i--) {
        Frame f = s.frames().get(i);
        for (int k = f.lines().size() - 1; k >= 0; k--) {
          path.append(';').append(f.lines().get(k).function());
          totals.merge(path.toString(), s.value(), Long::sum);
        }
        if (f.lines().isEmpty()) {
          path.append(';').append(f.label());
          totals.merge(path.toString(), s.value(), Long::sum);
        }
      }
      selves.merge(path.toString(), s.value(), Long::sum);
      total += s.value();
    }
    assertEquals(75, total);
    assertEquals(55, totals.get(";main;process_block"), "three offsets, one box");

    Path page = dir.resolve("symbolized.html");
    FlameGraphWriter.write(
        page, "symbolized", ValueMeaning.forKind("sample", 1000L, "microseconds"), 4000, stacks);
    String dom = chromium("--dump-dom", page.toUri().toString()).stdout();
    List<String> drawn = drawnFrames(dom);
    assertEquals(
        totals.size() + 1, drawn.size(), "one box per distinct path, and the root: " + drawn);

    String in = " in " + server;
    Map<String, String> hover = new HashMap<>();
    hover.put(";main", "main at /src/fleet/main.c" + in); // four call sites: the file only
    hover.put(";main;process_block", "process_block at /src/fleet/block.c" + in);
    hover.put(
        ";main;process_block;checksum", "checksum [inlined] at /src/fleet/checksum.h:20" + in);
    hover.put(
        ";main;process_block;checksum;crc_step", "crc_step [inlined] at /src/fleet/crc.h:7" + in);
    hover.put(
        ";main;" + SymbolizedStacks.HANDLE,
        SymbolizedStacks.HANDLE + " at /src/fleet/server.cc:88" + in);
    hover.put(
        ";main;" + SymbolizedStacks.HANDLE + ";" + SymbolizedStacks.LIBC_LEAF.label(),
        SymbolizedStacks.LIBC + "+0x9a0c0");
    hover.put(";main;" + SymbolizedStacks.LIBC_QSORT.label(), SymbolizedStacks.LIBC + "+0x4a1f3");
    hover.put(
        ";main;" + SymbolizedStacks.LIBC_QSORT.label() + ";compare_keys", "compare_keys" + in);
    hover.put(";main;worker", "worker at /src/fleet/w.c" + in);
    hover.put(";main;worker;helper", "helper [partly inlined] at /src/fleet/h.c:3" + in);
    assertEquals(totals.keySet(), hover.keySet());
    for (Map.Entry<String, String> h : hover.entrySet()) {
      String want = h.getValue() + " \u2014 " + weight(totals.get(h.getKey()), total, "samples");
      Long self = selves.get(h.getKey());
      if (self != null) {
        want += ", self " + weight(self, total, "samples").replace(" samples", "");
      }
      String w = want;
      assertTrue(drawn.stream().anyMatch(t -> t.equals(w)), want + " in " + drawn);
    }
    // The wide boxes show their function names.
    for (String name : new String[] {"main", "process_block", "checksum", "crc_step"}) {
      assertTrue(dom.contains(">" + name + "</text>"), name + " drawn in " + dom);
    }
  }

  /**
   * A boundary-only name (call-frame information, no symbol) is drawn as a guess: its box reads
   * {@code NAME [cfi]}, has the class that outlines it dashed, and its hover text says what it is;
   * a box of the same module named by a symbol has neither.
   */
  @Test
  void aBoundaryOnlyNameIsDrawnAsAGuess() throws Exception {
    String lib = "/usr/lib/libmix.so";
    Frame guessed =
        new Frame(
            lib,
            0x1135,
            List.of(new SourceLine("libmix.so+0x1130", "libmix.so+0x1130", null, 0)),
            true);
    Frame named =
        new Frame(lib, 0x1205, List.of(new SourceLine("mix_exported", "mix_exported", null, 0)));
    Path page = dir.resolve("guess.html");
    FlameGraphWriter.write(
        page,
        "guess",
        ValueMeaning.forKind("sample", 1000L, "microseconds"),
        4000,
        List.of(
            new WeightedStack(List.of(guessed, named), 3), new WeightedStack(List.of(named), 5)));
    String dom = chromium("--dump-dom", page.toUri().toString()).stdout();
    Matcher boxes =
        Pattern.compile("<g class=\"(f[^\"]*)\" data-i=\"\\d+\"><title>([^<]*)</title>.*?</g>")
            .matcher(dom);
    Map<String, String> classes = new HashMap<>();
    Map<String, String> texts = new HashMap<>();
    while (boxes.find()) {
      String title = boxes.group(2);
      classes.put(title.substring(0, title.indexOf(" \u2014 ")), boxes.group(1));
      Matcher text = Pattern.compile("<text[^>]*>([^<]*)</text>").matcher(boxes.group());
      texts.put(title.substring(0, title.indexOf(" \u2014 ")), text.find() ? text.group(1) : "");
    }
    String guessTitle =
        "libmix.so+0x1130 [cfi: no symbol; named by where its function starts, from the call-frame"
            + " information] in "
            + lib;
    assertEquals("f g", classes.get(guessTitle), classes.toString());
    assertEquals("libmix.so+0x1130 [cfi]", texts.get(guessTitle), texts.toString());
    assertEquals("f", classes.get("mix_exported in " + lib), classes.toString());
    assertEquals("mix_exported", texts.get("mix_exported in " + lib), texts.toString());
  }

  @Test
  void thePagePaintsAFlameGraph() throws Exception {
    Path page = dir.resolve("paint.html");
    FlameGraphWriter.write(
        page, "paint", SampleAggregate.meaning(), 4000, SampleAggregate.stacks());
    Path png = dir.resolve("paint.png");
    chromium("--screenshot=" + png, page.toUri().toString());
    BufferedImage img = ImageIO.read(png.toFile());
    long warm = 0;
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        int rgb = img.getRGB(x, y);
        int r = (rgb >> 16) & 0xff;
        int b = rgb & 0xff;
        warm += r - b > 60 ? 1 : 0; // flame colors; the page's background and text are grey
      }
    }
    double share = (double) warm / (img.getWidth() * img.getHeight());
    assertTrue(share > 0.05, "flame-colored share of the screenshot: " + share);
  }

  @Test
  void theFrameCapHoldsOnALargeAggregate() throws Exception {
    List<WeightedStack> stacks = syntheticFleet(100_000, 5);
    int cap = 2000;
    Path page = dir.resolve("fleet.html");
    FlameGraphWriter.write(
        page, "fleet", ValueMeaning.forKind("sample", 10000L, "microseconds"), cap, stacks);
    String html = Files.readString(page);
    assertTrue(Files.size(page) < 1_000_000, "page size " + Files.size(page));
    Matcher nodes = Pattern.compile("\"nodes\":\\[([^\\]]*)]").matcher(html);
    assertTrue(nodes.find());
    assertEquals(4 * (cap + 1), nodes.group(1).split(",").length, "root + cap frames embedded");

    Map<Frame, Long> roots = new HashMap<>();
    Map<Frame, Long> depthTwo = new HashMap<>();
    long total = 0;
    Set<List<Frame>> distinct = new HashSet<>();
    for (WeightedStack s : stacks) {
      int n = s.frames().size();
      roots.merge(s.frames().get(n - 1), s.value(), Long::sum);
      if (n > 1) {
        depthTwo.merge(s.frames().get(n - 2), s.value(), Long::sum);
      }
      total += s.value();
      distinct.add(s.frames());
    }
    assertEquals(100_000, distinct.size());

    long started = System.nanoTime();
    String dom = chromium("--dump-dom", page.toUri().toString()).stdout();
    long millis = (System.nanoTime() - started) / 1_000_000;
    List<String> drawn = drawnFrames(dom);
    assertTrue(drawn.size() <= cap + 1, drawn.size() + " frames drawn, cap " + cap);
    assertTrue(drawn.size() > 100, drawn.size() + " frames drawn");
    for (Map.Entry<Frame, Long> root : heaviest(roots, 2)) {
      String want = root.getKey().label() + " \u2014 " + weight(root.getValue(), total, "samples");
      assertTrue(drawn.stream().anyMatch(t -> t.startsWith(want)), want);
    }
    assertTrue(dom.contains(String.format(Locale.US, "the %,d heaviest drawn", cap)));
    System.out.printf(
        "flame graph of %,d stacks: %,d bytes, %d frames drawn, chromium %d ms%n",
        stacks.size(), Files.size(page), drawn.size(), millis);
  }

  /**
   * A fleet-like aggregate of distinct stacks: walks down a random call graph of a few thousand
   * functions in four modules (one JIT), ending at a random pc inside the last function, with
   * heavy-tailed weights.
   */
  static List<WeightedStack> syntheticFleet(int count, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    String[] modules = {
      "/usr/bin/fleet-server",
      "/usr/lib/x86_64-linux-gnu/libc.so.6",
      "/usr/lib/x86_64-linux-gnu/libssl.so.3",
      ""
    };
    int functions = 3000;
    Frame[] fn = new Frame[functions];
    int[][] callees = new int[functions][];
    for (int i = 0; i < functions; i++) {
      fn[i] = new Frame(modules[i % modules.length], 0x1000L + 0x400L * i);
      callees[i] = rnd.ints(4, 0, functions).toArray();
    }
    Set<List<Frame>> seen = new HashSet<>();
    List<WeightedStack> out = new ArrayList<>();
    while (out.size() < count) {
      List<Frame> rootFirst = new ArrayList<>();
      int f = rnd.nextInt(3);
      int depth = 2 + rnd.nextInt(30);
      for (int d = 0; d < depth; d++) {
        rootFirst.add(new Frame(fn[f].module(), fn[f].offset() + 5));
        f = callees[f][Math.min(3, (int) (rnd.nextDouble() * rnd.nextDouble() * 5))];
      }
      rootFirst.add(new Frame(fn[f].module(), fn[f].offset() + rnd.nextInt(0x400)));
      List<Frame> leafFirst = new ArrayList<>(rootFirst);
      Collections.reverse(leafFirst);
      if (seen.add(leafFirst)) {
        out.add(new WeightedStack(leafFirst, 1 + (long) (1000 / (1 + 999 * rnd.nextDouble()))));
      }
    }
    return out;
  }
}
