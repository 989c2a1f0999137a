package io.onceport.activity.http;

import io.onceport.activity.vault.Credential;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Removes the secret of the credential a request carried from what the target answered, before the
 * answer leaves the channel. A target that echoes request headers (a debugging endpoint, an error
 * page quoting the request) would otherwise put a vault secret into the result, and from there into
 * Temporal history, the execution record and the agent's answer.
 *
 * <p>It looks for the secret as sent and in the encodings an echo plausibly uses: raw (which covers
 * {@code Bearer <secret>}), the basic-auth {@code base64(user:secret)}, base64 of the secret (standard
 * and URL-safe, with and without padding), percent-encoding (upper- and lower-case hex, space as
 * {@code %20} or {@code +}), JSON string escapes (with {@code \/} and with non-ASCII as {@code \}{@code
 * uXXXX}) and HTML escapes. Each occurrence becomes {@code [redacted:<credential reference>]}. A
 * secret split or transformed in any other way is not recognised — the defence is for echoes, not
 * for a target that sets out to leak.
 *
 * <p>Bodies are read {@link #lookahead()} characters past the cap so that an occurrence crossing the
 * cap is still seen whole; when a body was cut (cap or broken stream), a trailing proper prefix of
 * any form is cut as well, so no partial secret survives at the end.
 */
public final class SecretRedactor {
  private static final SecretRedactor NONE = new SecretRedactor(null, List.of());

  private final String reference;
  private final List<String> forms;
  private boolean found;

  private SecretRedactor(String reference, List<String> forms) {
    this.reference = reference;
    this.forms = forms;
  }

  public static SecretRedactor none() {
    return NONE;
  }

  /** Redacts {@code credential}'s secret; its reference names it in the marker. */
  public static SecretRedactor of(String reference, Credential credential) {
    if (credential == null || credential.secret().isEmpty()) {
      return NONE;
    }
    String basicPair = credential.type() == Credential.Type.BASIC
        ? (credential.username() == null ? "" : credential.username()) + ":" + credential.secret() : null;
    return forms(reference, credential.secret(), basicPair);
  }

  /** Redacts a secret that is not a credential (a {@code fingerprint.secret} argument's value), named by {@code reference}. */
  static SecretRedactor ofText(String reference, String secret) {
    return secret == null || secret.isEmpty() ? NONE : forms(reference, secret, null);
  }

  private static SecretRedactor forms(String reference, String secret, String basicPair) {
    Set<String> forms = new LinkedHashSet<>();
    forms.add(secret);
    if (basicPair != null) {
      addBase64(forms, basicPair);
    }
    addBase64(forms, secret);
    String percent = percentEncode(secret);
    forms.add(percent);
    forms.add(percent.toLowerCase(Locale.ROOT));
    forms.add(percent.replace("%20", "+"));
    String json = jsonEscape(secret, false);
    forms.add(json);
    forms.add(json.replace("/", "\\/"));
    String ascii = jsonEscape(secret, true);
    forms.add(ascii);
    forms.add(lowerHexEscapes(ascii));
    forms.add(htmlEscape(secret));
    forms.removeIf(String::isEmpty);
    List<String> longestFirst = new ArrayList<>(forms);
    longestFirst.sort(Comparator.comparingInt(String::length).reversed());
    return new SecretRedactor(reference, List.copyOf(longestFirst));
  }

  /** Characters to read past a cap so that an occurrence crossing it is seen whole. */
  int lookahead() {
    return forms.isEmpty() ? 0 : forms.get(0).length();
  }

  /** Whether anything was redacted so far. */
  public boolean found() {
    return found;
  }

  /** {@code text} with every occurrence of every form replaced by the marker. */
  public String redact(String text) {
    if (forms.isEmpty() || text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    for (String form : forms) {
      if (out.contains(form)) {
        out = out.replace(form, marker());
        found = true;
      }
    }
    return out;
  }

  /** For a body that was cut: {@link #redact}, then a trailing proper prefix of any form removed. */
  String redactCut(String text) {
    String out = redact(text);
    if (forms.isEmpty() || out == null) {
      return out;
    }
    int cut = 0;
    for (String form : forms) {
      for (int k = Math.min(form.length() - 1, out.length()); k > cut; k--) {
        if (out.regionMatches(out.length() - k, form, 0, k)) {
          cut = k;
          break;
        }
      }
    }
    if (cut > 0) {
      found = true;
      return out.substring(0, out.length() - cut) + marker();
    }
    return out;
  }

  /** Header values redacted; names kept. */
  Map<String, String> redact(Map<String, String> headers) {
    if (forms.isEmpty()) {
      return headers;
    }
    Map<String, String> out = new LinkedHashMap<>();
    headers.forEach((name, value) -> out.put(name, redact(value)));
    return out;
  }

  /** The references whose secrets were found, for the result's {@code redacted} list. */
  List<String> redactedReferences() {
    return found ? List.of(reference) : List.of();
  }

  private String marker() {
    return "[redacted:" + reference + "]";
  }

  private static void addBase64(Set<String> forms, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    String standard = Base64.getEncoder().encodeToString(bytes);
    String urlSafe = Base64.getUrlEncoder().encodeToString(bytes);
    forms.add(standard);
    forms.add(stripPadding(standard));
    forms.add(urlSafe);
    forms.add(stripPadding(urlSafe));
  }

  private static String stripPadding(String base64) {
    int end = base64.length();
    while (end > 0 && base64.charAt(end - 1) == '=') {
      end--;
    }
    return base64.substring(0, end);
  }

  private static String percentEncode(String value) {
    return io.onceport.workflow.contract.UrlTemplate.percentEncode(value);
  }

  private static String jsonEscape(String value, boolean asciiOnly) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20 || (asciiOnly && c > 0x7e)) {
            out.append(String.format("\\u%04X", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  private static String lowerHexEscapes(String escaped) {
    StringBuilder out = new StringBuilder(escaped);
    for (int i = out.indexOf("\\u"); i >= 0 && i + 6 <= out.length(); i = out.indexOf("\\u", i + 2)) {
      out.replace(i + 2, i + 6, out.substring(i + 2, i + 6).toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }

  private static String htmlEscape(String value) {
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;").replace("'", "&#39;");
  }
}
