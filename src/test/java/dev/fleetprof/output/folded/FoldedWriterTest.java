package dev.fleetprof.output.folded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.output.Frame;
import dev.fleetprof.output.SampleAggregate;
import dev.fleetprof.output.SymbolizedStacks;
import dev.fleetprof.output.WeightedStack;
import dev.fleetprof.symbols.SourceLine;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Folded stacks: one line per stack whatever the module names hold, root first, totals kept. */
class FoldedWriterTest {
  private static String write(List<WeightedStack> stacks) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new FoldedWriter(bytes).writeAll(stacks);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** The reading side of the documented rule, written from the Javadoc: undo every %XX (UTF-8). */
  private static Frame decode(String frame) {
    int plus = frame.lastIndexOf("+0x");
    if (plus < 0) {
      assertTrue(frame.startsWith("0x"), frame);
      return new Frame(null, Long.parseUnsignedLong(frame.substring(2), 16));
    }
    byte[] escaped = frame.substring(0, plus).getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream module = new ByteArrayOutputStream();
    for (int i = 0; i < escaped.length; i++) {
      if (escaped[i] == '%') {
        module.write(
            Integer.parseInt(new String(escaped, i + 1, 2, StandardCharsets.US_ASCII), 16));
        i += 2;
      } else {
        module.write(escaped[i]);
      }
    }
    return new Frame(
        module.toString(StandardCharsets.UTF_8),
        Long.parseUnsignedLong(frame.substring(plus + 3), 16));
  }

  @Test
  void hostileModuleNamesCannotBreakALine() throws IOException {
    String[] modules = {
      "/lib/a;b.so",
      "/opt/My App/bin 12",
      "/x/new\nline",
      "/x/cr\r\nlf",
      "/x/tab\there",
      "/x/100%41",
      "/x/del\u007f",
      "/x/\u043c\u043e\u0434\u0443\u043b\u044c",
      "/x/lib+0x10.so",
      "ends with space ",
      ";",
      "%",
      " 7",
      "/x/nel\u0085ls\u2028ps\u2029",
      "",
      null
    };
    List<WeightedStack> stacks = new ArrayList<>();
    for (int i = 0; i < modules.length; i++) {
      List<Frame> frames = new ArrayList<>();
      for (int d = 0; d < 4; d++) { // leaf first: the hostile name at every depth in turn
        frames.add(new Frame(modules[(i + d) % modules.length], d == 3 ? -16 : 0x1000 + d));
      }
      stacks.add(new WeightedStack(frames, 10L * i));
    }
    stacks.add(new WeightedStack(List.of(), 3));
    String text = write(stacks);

    assertTrue(text.endsWith("\n"));
    String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
    assertEquals(stacks.size(), lines.length, text);
    for (int i = 0; i < modules.length; i++) {
      String line = lines[i];
      assertEquals(1, line.chars().filter(c -> c == ' ').count(), line);
      assertTrue(
          line.chars()
              .noneMatch(c -> c < 0x20 || c == 0x7f || c == 0x85 || c == 0x2028 || c == 0x2029),
          line);
      String[] parts = line.split(" ");
      assertEquals(String.valueOf(10L * i), parts[1]);
      String[] frames = parts[0].split(";", -1);
      List<Frame> expected = stacks.get(i).frames();
      assertEquals(expected.size(), frames.length, line);
      for (int k = 0; k < frames.length; k++) {
        Frame want = expected.get(expected.size() - 1 - k); // root first
        assertEquals(new Frame(want.displayModule(), want.offset()), decode(frames[k]), line);
      }
    }
    assertEquals(FoldedWriter.EMPTY_STACK + " 3", lines[lines.length - 1]);
    assertTrue(text.contains("/x/100%2541+0x"), "the escape character is escaped: " + text);
  }

  @Test
  void realSamplesKeepTheirTotalAndAreRootFirst() throws Exception {
    List<WeightedStack> stacks = SampleAggregate.stacks();
    String[] lines = write(stacks).split("\n");
    assertEquals(stacks.size(), lines.length);
    long total = 0;
    for (int i = 0; i < lines.length; i++) {
      int space = lines[i].lastIndexOf(' ');
      total += Long.parseLong(lines[i].substring(space + 1));
      String[] frames = lines[i].substring(0, space).split(";");
      List<Frame> want = stacks.get(i).frames();
      Frame root = want.get(want.size() - 1);
      Frame leaf = want.get(0);
      assertEquals(plain(root), frames[0]);
      assertEquals(plain(leaf), frames[frames.length - 1]);
    }
    assertEquals(SampleAggregate.decoderTotal(), total);
  }

  /** A frame of the samples, whose module paths need no escaping. */
  private static String plain(Frame f) {
    String hex = "0x" + Long.toHexString(f.offset());
    return f.module() == null ? hex : f.module() + "+" + hex;
  }

  @Test
  void symbolizedFramesBecomeTheirInlineFunctionsOutermostFirst() throws IOException {
    List<WeightedStack> stacks = new ArrayList<>(SymbolizedStacks.stacks());
    stacks.add(
        new WeightedStack(
            List.of(
                new Frame(
                    "/bin/x", 0x10, List.of(new SourceLine("odd;name 100%", "odd", null, 0)))),
            1));
    String[] lines = write(stacks).split("\n", -1);
    String libc = SymbolizedStacks.LIBC;
    assertEquals(
        List.of(
            "main;process_block;checksum;crc_step 30",
            "main;process_block 20",
            "main;process_block 5", // the same text as the line before: readers add them up
            "main;Server::handle(Request%20const&);" + libc + "+0x9a0c0 7",
            "main;" + libc + "+0x4a1f3;compare_keys 3",
            "odd%3Bname%20100%25 1",
            ""),
        List.of(lines));
    assertEquals("process_block;checksum;crc_step", FoldedWriter.frame(SymbolizedStacks.CRC));
  }

  @Test
  void negativeCountsAreRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> write(List.of(new WeightedStack(List.of(new Frame("/a", 1)), -2))));
    assertTrue(e.getMessage().contains("-2"), e.getMessage());
  }
}
