package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.workflow.contract.UrlTemplate;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The placeholder and URL rules of a contract's templates: every {@code {{name}}} must be a
 * property of {@code input_schema} or {@code execution_id}, and a URL must still be an http(s)
 * URL with a host once its placeholders are filled in. These join two fields (the template and the
 * input schema), so the contract schema cannot state them.
 */
final class Templates {
  static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)}}");
  /** The placeholder every template may use besides the input_schema properties. */
  static final String EXECUTION_ID = "execution_id";

  private final Problems problems;
  private final Set<String> properties;

  Templates(Problems problems, Set<String> properties) {
    this.problems = problems;
    this.properties = properties;
  }

  /** An http(s) URL with a host, whose placeholders are arguments (or the execution id, but not in http.url). */
  void url(String path, String url) {
    placeholders(path, url);
    String probe = probe(url);
    try {
      URI u = new URI(probe);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        problems.error(path, "must be an http:// or https:// URL");
      } else if (u.getHost() == null) {
        problems.error(path, "has no host");
      }
    } catch (URISyntaxException e) {
      problems.error(path, "not a valid URL: " + e.getReason());
    }
  }

  /**
   * The template with every placeholder filled by a stand-in value: {@code 1} where it stands for a
   * port (right after the host's {@code :}), {@code x} elsewhere, so the shape of the URL can be checked.
   */
  private static String probe(String url) {
    Matcher m = PLACEHOLDER.matcher(url);
    int authorityEnd = UrlTemplate.authorityEnd(url);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      boolean port = m.start() < authorityEnd && m.start() > 0 && url.charAt(m.start() - 1) == ':';
      m.appendReplacement(out, port ? "1" : "x");
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Whether an argument decides the origin of the URL ({@link UrlTemplate#authorityPlaceholders}). */
  static boolean hostFromArgument(String url) {
    return UrlTemplate.authorityPlaceholders(url).stream().anyMatch(name -> !name.equals(EXECUTION_ID));
  }

  /** The placeholders in every key and string leaf of a JSON template. */
  void placeholdersIn(String path, JsonNode node) {
    if (node.isTextual()) {
      placeholders(path, node.asText());
    } else if (node.isObject()) {
      node.fields().forEachRemaining(e -> {
        placeholders(path + "." + e.getKey(), e.getKey());
        placeholdersIn(path + "." + e.getKey(), e.getValue());
      });
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        placeholdersIn(path + "[" + i + "]", node.get(i));
      }
    }
  }

  void placeholders(String path, String text) {
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      String name = m.group(1);
      // {{execution_id}} names the execution in the body, headers, status query and SSH argv, as
      // HttpTemplates and RemoteCommand render them. Not in http.url: the dispatch URL is part of
      // the fingerprint (its target), computed before the execution and its id exist.
      if (name.equals(EXECUTION_ID) && path.equals("http.url")) {
        problems.error(path, "{{execution_id}} cannot be part of the dispatch URL: the URL is the fingerprint's target, "
            + "computed before the execution exists; send it in a header, the body or idempotency_header");
      } else if (!properties.contains(name) && !name.equals(EXECUTION_ID)) {
        problems.error(path, "placeholder {{" + name + "}} is not a property of input_schema (nor execution_id)");
      }
    }
  }
}
