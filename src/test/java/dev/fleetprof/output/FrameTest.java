package dev.fleetprof.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetprof.symbols.SourceLine;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A frame's inline chain: copied, never null, part of equality, and what it displays as. */
class FrameTest {
  @Test
  void theChainIsCopiedNeverNullAndPartOfEquality() {
    List<SourceLine> chain = new ArrayList<>(List.of(new SourceLine("f", "f", "/a.c", 3)));
    Frame f = new Frame("/bin/x", 0x10, chain);
    chain.add(new SourceLine("g", "g", "/a.c", 9));
    assertEquals(1, f.lines().size(), "a copy, not a view");
    assertThrows(UnsupportedOperationException.class, () -> f.lines().clear());
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> new Frame("/bin/x", 0x10, null));
    assertTrue(e.getMessage().contains("List.of()"), e.getMessage());

    assertEquals(List.of(), new Frame("/bin/x", 0x10).lines());
    assertEquals(new Frame("/bin/x", 0x10), new Frame("/bin/x", 0x10, List.of()));
    assertNotEquals(new Frame("/bin/x", 0x10), f);
    assertEquals(new Frame("/bin/x", 0x10, List.of(new SourceLine("f", "f", "/a.c", 3))), f);
  }

  /** A boundary-only name is one guessed function: part of equality, never a chain or nothing. */
  @Test
  void aBoundaryOnlyNameIsOneFunction() {
    SourceLine guess = new SourceLine("x+0x10", "x+0x10", null, 0);
    Frame guessed = new Frame("/bin/x", 0x14, List.of(guess), true);
    assertTrue(guessed.boundaryOnly());
    assertFalse(new Frame("/bin/x", 0x14, List.of(guess)).boundaryOnly());
    assertNotEquals(new Frame("/bin/x", 0x14, List.of(guess)), guessed);
    assertThrows(IllegalArgumentException.class, () -> new Frame("/bin/x", 0x14, List.of(), true));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Frame("/bin/x", 0x14, List.of(guess, guess), true));
  }

  @Test
  void displayNamesAreTheInnermostFunctionOrTheAddress() {
    Frame f =
        new Frame(
            "/bin/x",
            0x10,
            List.of(
                new SourceLine("inner", "inner", null, 0),
                new SourceLine("outer", "outer", "/a.c", 4)));
    assertTrue(f.isSymbolized());
    assertEquals("inner", f.function());
    assertEquals("inner", f.displayName());
    assertEquals("inner", f.shortDisplayName());
    assertEquals("/bin/x+0x10", f.label(), "the address label stays the address");

    Frame bare = new Frame("/opt/lib/liby.so", 0x2a);
    assertFalse(bare.isSymbolized());
    assertNull(bare.function());
    assertEquals("/opt/lib/liby.so+0x2a", bare.displayName());
    assertEquals("liby.so+0x2a", bare.shortDisplayName());
    assertEquals("[anon]+0x5", new Frame("", 5).displayName());
    assertEquals("0x7", new Frame(null, 7).shortDisplayName());
  }
}
