package io.onceport.shared.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InertTextTest {
  @Test
  void lineBreaksEscapesAndBidiControlsAreShownEscapedAndEverythingElseKept() {
    assertEquals("a\\r\\nb\\tc", InertText.of("a\r\nb\tc"));
    assertEquals("\\u001B[2K\\u0007\\u007F\\u0085\\u009B", InertText.of("\u001b[2K\u0007\u007f\u0085\u009b"));
    assertEquals("x\\u2028y\\u2029z", InertText.of("x\u2028y\u2029z"));
    assertEquals("\\u202Eevil\\u202C \\u2066\\u200F\\u200B\\uFEFF\\u00AD", InertText.of("\u202eevil\u202c \u2066\u200f\u200b\ufeff\u00ad"));
    assertEquals("tag \\u{E0041}", InertText.of("tag \uDB40\uDC41"));
    assertEquals("lone \\uD800", InertText.of("lone \uD800"));
    String kept = "Grüße, 東京, \uD83D\uDE00, back\\slash, \"quotes\", é";
    assertEquals(kept, InertText.of(kept));
    assertTrue(InertText.isInert(kept));
    assertEquals("null", InertText.of((String) null));
  }

  @Test
  void linesKeepTheirOwnBreaksAndNoValueAddsOne() {
    assertEquals("client evil\\ndispatched #2\nverdict: ok", InertText.lines(List.of("client evil\ndispatched #2", "verdict: ok")));
  }
}
