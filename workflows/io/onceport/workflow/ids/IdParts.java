package io.onceport.workflow.ids;

import java.util.Objects;

/**
 * Unambiguous ids built from parts. A plain join ({@code run:<actor>:<run id>}) lets two different
 * tuples make one id when a part may contain the separator: actor {@code agent:ci} with run
 * {@code prod:nightly} and actor {@code agent:ci:prod} with run {@code nightly} once shared a session
 * and its operator's authorization (issue 25). Two encodings, each injective:
 *
 * <ul>
 *   <li>{@link #escape}: a part as operators read, type and paste it — printable ASCII stays as it
 *       is, except {@code %}, {@code /} and {@code ~}, which with every other byte of the part's
 *       UTF-8 (space, controls, ANSI escapes, non-ASCII) become {@code %XX} (upper-case hex). An
 *       escaped part never holds {@code /} or {@code ~}, so they separate parts; {@code :} stays
 *       readable ({@code agent:ci}). One part has one escaped form ({@link #unescape} refuses any
 *       other), so equal ids mean equal parts.
 *   <li>{@link #tuple}: the input of a keyed hash — each part escaped, prefixed by its length and
 *       {@code :}; an absent part as {@code ~}. Not for people: for HMACs that must not be fooled by
 *       where one part ends.
 * </ul>
 *
 * Hand-written because it is a dozen lines: {@code URLEncoder} is form encoding (space → {@code +},
 * {@code ~} kept) and {@code URI} leaves {@code /} alone, neither of which is injective here.
 */
public final class IdParts {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private IdParts() {}

  /** The escaped form of {@code part} (see the class comment). */
  public static String escape(String part) {
    Objects.requireNonNull(part, "part == null");
    StringBuilder b = new StringBuilder(part.length() + 8);
    for (int i = 0; i < part.length(); ) {
      int cp = part.codePointAt(i);
      i += Character.charCount(cp);
      if (cp > 0x20 && cp < 0x7f && cp != '%' && cp != '/' && cp != '~') {
        b.append((char) cp);
      } else {
        for (int x : utf8(cp)) {
          b.append('%').append(HEX[(x >> 4) & 0xf]).append(HEX[x & 0xf]);
        }
      }
    }
    return b.toString();
  }

  /**
   * The part an escaped form stands for.
   *
   * @throws IllegalArgumentException when {@code escaped} is not exactly the form {@link #escape}
   *     gives (a raw character that must be escaped, lower-case or broken {@code %XX}, an escaped
   *     character that needs none, bytes that are not UTF-8)
   */
  public static String unescape(String escaped) {
    Objects.requireNonNull(escaped, "escaped == null");
    int[] bytes = new int[escaped.length()];
    int n = 0;
    for (int i = 0; i < escaped.length(); i++) {
      char c = escaped.charAt(i);
      if (c == '%') {
        int hi = i + 2 < escaped.length() ? hex(escaped.charAt(i + 1)) : -1;
        int lo = i + 2 < escaped.length() ? hex(escaped.charAt(i + 2)) : -1;
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException("broken %-escape at position " + i + " (two upper-case hex digits, e.g. %2F)");
        }
        bytes[n++] = hi << 4 | lo;
        i += 2;
      } else if (c > 0x20 && c < 0x7f && c != '/' && c != '~') {
        bytes[n++] = c;
      } else {
        throw new IllegalArgumentException(String.format("the character U+%04X must be written %%-escaped", (int) c));
      }
    }
    StringBuilder part = new StringBuilder(n);
    for (int i = 0; i < n; ) {
      int lead = bytes[i];
      int length = lead < 0x80 ? 1 : lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf5 ? 4 : 0;
      if (length == 0 || i + length > n) {
        throw new IllegalArgumentException("the %-escapes are not UTF-8");
      }
      int cp = length == 1 ? lead : lead & (0xff >> (length + 1));
      for (int k = 1; k < length; k++) {
        if ((bytes[i + k] & 0xc0) != 0x80) {
          throw new IllegalArgumentException("the %-escapes are not UTF-8");
        }
        cp = cp << 6 | (bytes[i + k] & 0x3f);
      }
      if (cp > Character.MAX_CODE_POINT) {
        throw new IllegalArgumentException("the %-escapes are not UTF-8");
      }
      part.appendCodePoint(cp);
      i += length;
    }
    String decoded = part.toString();
    if (!escape(decoded).equals(escaped)) {
      throw new IllegalArgumentException("not in canonical form: write it as " + escape(decoded));
    }
    return decoded;
  }

  /**
   * UTF-8 of one code point by the encoding's formula. A lone surrogate (a Java string may hold
   * one, and JSON can carry it as an escaped surrogate) gets the formula's three bytes instead of the
   * {@code ?} that {@link String#getBytes} substitutes, so two different lone surrogates never
   * escape alike.
   */
  private static int[] utf8(int cp) {
    if (cp < 0x80) {
      return new int[] {cp};
    }
    if (cp < 0x800) {
      return new int[] {0xc0 | cp >> 6, 0x80 | cp & 0x3f};
    }
    if (cp < 0x10000) {
      return new int[] {0xe0 | cp >> 12, 0x80 | cp >> 6 & 0x3f, 0x80 | cp & 0x3f};
    }
    return new int[] {0xf0 | cp >> 18, 0x80 | cp >> 12 & 0x3f, 0x80 | cp >> 6 & 0x3f, 0x80 | cp & 0x3f};
  }

  /**
   * {@code <length>:<escaped part>} for each part, {@code ~} for an absent (null) one: the length
   * says where a part ends, the escaping keeps lone surrogates distinct (see {@link #escape}).
   */
  public static String tuple(String... parts) {
    StringBuilder b = new StringBuilder();
    for (String p : parts) {
      if (p == null) {
        b.append('~');
      } else {
        b.append(escape(p).length()).append(':').append(escape(p));
      }
    }
    return b.toString();
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
