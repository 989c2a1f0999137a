package io.onceport.workflow.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the URL template of an HTTP contract ({@code http.url}, {@code replay.status.url}) for
 * one call. It is the one rendering both sides use: the front end for the canonical record's
 * {@code target} (and so the fingerprint), the HTTP channel for the URL it sends. If they rendered
 * differently, the fingerprint would describe a request that never left.
 *
 * <p>Every placeholder value is percent-encoded except RFC 3986 unreserved characters, so it stays
 * one path segment or one query value: {@code a/b c} becomes {@code a%2Fb%20c}. A path segment
 * that comes out as {@code .} or {@code ..} is refused: HTTP clients (OkHttp included, and the
 * WHATWG URL rules it follows) resolve such a segment — also its encoded forms {@code %2E},
 * {@code %2E%2E} — as a step in the path, so {@code /items/{{name}}} with {@code ..} would reach
 * {@code /}. There is no encoding that keeps it one literal segment, so the only honest answer is
 * an invalid-arguments error before anything is sent.
 *
 * <p>Pure string code (no {@code java.net}): it lives beside the contract model so that both roles
 * can reach it.
 */
public final class UrlTemplate {
  /** Placeholders as the contract loader accepts them: {@code {{name}}}, the name taken exactly. */
  public static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)}}");

  private UrlTemplate() {}

  /** What the placeholders of one call stand for. */
  @FunctionalInterface
  public interface Values {
    /**
     * @return the value's text, not yet encoded, or null when the call has no value for it
     * @throws InvalidUrlException when the value cannot be a URL part (e.g. an object)
     */
    String text(String name);
  }

  /** A URL template that cannot be rendered for these values; nothing may be sent. */
  public static final class InvalidUrlException extends IllegalArgumentException {
    private final String placeholder;
    private final String reason;

    /**
     * @param placeholder the placeholder at fault, or null when the template itself is
     * @param where which template, e.g. {@code url}
     * @param reason what is wrong, completing "Placeholder {{x}} in url …"
     */
    public InvalidUrlException(String placeholder, String where, String reason) {
      super(placeholder == null ? reason : "Placeholder {{" + placeholder + "}} in " + where + " " + reason);
      this.placeholder = placeholder;
      this.reason = reason;
    }

    /** The placeholder (an argument name) at fault, or null. */
    public String placeholder() {
      return placeholder;
    }

    /** The message without the "Placeholder {{x}} in url" prefix. */
    public String reason() {
      return reason;
    }

    /** For a value that is an object or array, which cannot be a URL part. */
    public static InvalidUrlException notScalar(String placeholder, String where, String type) {
      return new InvalidUrlException(placeholder, where, "needs a scalar, got " + type);
    }
  }

  /** {@link #render(String, String, Values, Set)} with nothing masked. */
  public static String render(String template, String where, Values values) {
    return render(template, where, values, Set.of());
  }

  /**
   * Renders {@code template}; every value is checked as it would be sent.
   *
   * @param where names the template in messages, e.g. {@code url}
   * @param masked placeholders whose values are checked but kept as {@code {{name}}} in the
   *     returned text (secret arguments in the canonical record)
   * @throws InvalidUrlException for a missing or non-scalar value, a value that would make a
   *     {@code .} or {@code ..} path segment, or a malformed template
   */
  public static String render(String template, String where, Values values, Set<String> masked) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder sent = new StringBuilder();
    StringBuilder shown = new StringBuilder();
    List<Span> spans = new ArrayList<>();
    int last = 0;
    while (m.find()) {
      String literal = template.substring(last, m.start());
      checkNoStrayBraces(literal, template, where);
      sent.append(literal);
      shown.append(literal);
      String name = m.group(1);
      String text = values.text(name);
      if (text == null) {
        throw new InvalidUrlException(name, where, "has no argument value");
      }
      String encoded = percentEncode(text);
      spans.add(new Span(name, sent.length(), sent.length() + encoded.length()));
      sent.append(encoded);
      shown.append(masked.contains(name) ? "{{" + name + "}}" : encoded);
      last = m.end();
    }
    String tail = template.substring(last);
    checkNoStrayBraces(tail, template, where);
    sent.append(tail);
    shown.append(tail);
    checkNoDotSegments(sent.toString(), spans, where);
    return shown.toString();
  }

  private record Span(String name, int start, int end) {}

  /**
   * The placeholders in the template's authority (user info, host or port), in order: the
   * arguments that decide which origin a request goes to. A placeholder right after the host counts
   * too: percent-encoding keeps letters and dots, so {@code https://api.example.com{{x}}/v1} with
   * {@code x = .evil.example} names another host.
   */
  public static List<String> authorityPlaceholders(String template) {
    int start = template.indexOf("://");
    List<String> names = new ArrayList<>();
    if (start < 0) {
      return names;
    }
    int end = authorityEnd(template);
    Matcher m = PLACEHOLDER.matcher(template);
    while (m.find()) {
      if (m.start() >= start + 3 && m.start() < end) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /**
   * Where the template's authority ends: the first {@code /}, {@code \}, {@code ?} or {@code #}
   * after {@code ://} outside placeholders (0 without {@code ://}).
   */
  public static int authorityEnd(String template) {
    int start = template.indexOf("://");
    if (start < 0) {
      return 0;
    }
    Matcher m = PLACEHOLDER.matcher(template);
    int i = start + 3;
    while (i < template.length()) {
      if (m.find(i) && m.start() == i) {
        i = m.end();
        continue;
      }
      char c = template.charAt(i);
      if (c == '/' || c == '?' || c == '#' || c == '\\') {
        return i;
      }
      i++;
    }
    return template.length();
  }

  private static void checkNoStrayBraces(String literal, String template, String where) {
    if (literal.contains("{{") || literal.contains("}}")) {
      throw new InvalidUrlException(null, where, "Malformed placeholder in " + where + " template '" + template + "'");
    }
  }

  /** Refuses a path segment that HTTP clients would resolve away: {@code .}, {@code ..} and their %2E forms. */
  private static void checkNoDotSegments(String url, List<Span> spans, String where) {
    int scheme = url.indexOf("://");
    int pathStart = scheme < 0 ? 0 : indexOfAny(url, "/\\?#", scheme + 3);
    if (pathStart < 0 || url.charAt(pathStart) == '?' || url.charAt(pathStart) == '#') {
      return;
    }
    int pathEnd = indexOfAny(url, "?#", pathStart);
    if (pathEnd < 0) {
      pathEnd = url.length();
    }
    int segmentStart = pathStart + 1;
    for (int i = segmentStart; i <= pathEnd; i++) {
      if (i == pathEnd || url.charAt(i) == '/' || url.charAt(i) == '\\') {
        String segment = url.substring(segmentStart, i);
        if (isDotSegment(segment)) {
          String name = placeholderIn(spans, segmentStart, i);
          String reason = "makes the path segment '" + segment + "', which HTTP clients resolve as a step in the path "
              + "instead of sending it; a value that fills a path segment may not be '.' or '..'";
          throw name == null
              ? new InvalidUrlException(null, where, "The " + where + " template's path has the segment '" + segment
                  + "', which HTTP clients resolve instead of sending")
              : new InvalidUrlException(name, where, reason);
        }
        segmentStart = i + 1;
      }
    }
  }

  private static String placeholderIn(List<Span> spans, int start, int end) {
    for (Span s : spans) {
      if (s.start() < end && s.end() > start) {
        return s.name();
      }
    }
    return null;
  }

  private static boolean isDotSegment(String segment) {
    String s = segment.toLowerCase(Locale.ROOT).replace("%2e", ".");
    return s.equals(".") || s.equals("..");
  }

  private static int indexOfAny(String s, String chars, int from) {
    for (int i = from; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * RFC 3986 percent-encoding of the UTF-8 bytes of {@code value}: everything but unreserved
   * characters ({@code A-Z a-z 0-9 - . _ ~}) is encoded. An unpaired surrogate encodes as
   * {@code ?} (%3F), as Java's UTF-8 encoder would.
   */
  public static String percentEncode(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      i += Character.charCount(cp);
      if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
        cp = '?';
      }
      if ((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')
          || cp == '-' || cp == '.' || cp == '_' || cp == '~') {
        out.append((char) cp);
      } else {
        for (int b : utf8(cp)) {
          out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xf]);
        }
      }
    }
    return out.toString();
  }

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private static int[] utf8(int cp) {
    if (cp < 0x80) {
      return new int[] {cp};
    }
    if (cp < 0x800) {
      return new int[] {0xC0 | (cp >> 6), 0x80 | (cp & 0x3F)};
    }
    if (cp < 0x10000) {
      return new int[] {0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)};
    }
    return new int[] {0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F)};
  }
}
