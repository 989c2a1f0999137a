package io.onceport.shared.text;

import java.util.List;
import java.util.Locale;

/**
 * Text that came from outside — an agent's {@code clientInfo}, JSON-RPC ids, run ids and
 * arguments; an upstream server's names and descriptions; a target's answer — made inert before it
 * is shown to an operator: in the CLI's output, in {@code investigate}, in the text log and in the
 * comments of generated contract files.
 *
 * <p>Why: such text is written into places where a few characters have meaning. A CR or LF starts
 * a new line, so an agent could add a forged "dispatched #2" line to {@code executions show} or a
 * forged verdict to {@code investigate}; ANSI escape sequences (ESC, CSI) move the cursor, erase
 * lines or recolour them in a terminal; bidirectional overrides (U+202E) display text in another
 * order than it is stored; U+2028, U+2029 and NEL end a line for YAML 1.1 readers, which turned an
 * upstream's server name into a hidden contract key. Every character of those kinds is replaced by
 * a visible escape, everything else is kept as it is, so names in any script stay readable.
 *
 * <p>Escaped: CR, LF and TAB as {@code \r}, {@code \n}, {@code \t}; the other C0 controls, DEL and
 * the C1 controls (NEL among them); line and paragraph separators; every format character (Unicode
 * category Cf: bidi embeddings, overrides, isolates and marks, zero-width characters, the BOM, tag
 * characters); and unpaired surrogates — as {@code \}{@code uXXXX} (or {@code \}{@code u{XXXXX}}
 * above U+FFFF). A backslash is kept: the escaped form is for reading, not for decoding (the
 * commands' {@code --json} output carries the exact text).
 */
public final class InertText {
  private InertText() {}

  /** {@code text} with every character that could change how it is displayed or parsed shown escaped; "null" for null. */
  public static String of(String text) {
    if (text == null) {
      return "null";
    }
    if (isInert(text)) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      int width = Character.charCount(cp);
      if (mustEscape(cp)) {
        escape(out, cp);
      } else {
        out.append(text, i, i + width);
      }
      i += width;
    }
    return out.toString();
  }

  /** {@link #of(String)} of {@code String.valueOf(value)}: for ids and values that may be of any type. */
  public static String of(Object value) {
    return of(value == null ? null : String.valueOf(value));
  }

  /**
   * Lines of an operator's view, each made inert, joined by LF: a value inside one line cannot add
   * another. Build views as a list of lines and render them with this.
   */
  public static String lines(List<String> lines) {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(of(line));
    }
    return out.toString();
  }

  /** Whether {@code text} has nothing to escape. */
  public static boolean isInert(String text) {
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (mustEscape(cp)) {
        return false;
      }
      i += Character.charCount(cp);
    }
    return true;
  }

  /** Whether one code point is shown escaped (see the class comment). */
  public static boolean mustEscape(int cp) {
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
        || type == Character.SURROGATE;
  }

  private static void escape(StringBuilder out, int cp) {
    switch (cp) {
      case '\n' -> out.append("\\n");
      case '\r' -> out.append("\\r");
      case '\t' -> out.append("\\t");
      default -> {
        if (cp > 0xffff) {
          out.append("\\u{").append(Integer.toHexString(cp).toUpperCase(Locale.ROOT)).append('}');
        } else {
          out.append(String.format("\\u%04X", cp));
        }
      }
    }
  }
}
