package io.onceport.frontend.mcp;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code WWW-Authenticate: Bearer} challenge (RFC 6750 §3) with the MCP authorization
 * parameter {@code resource_metadata} (RFC 9728 §5.1). Parameter values are quoted strings; text
 * the challenge repeats is reduced to the characters RFC 6750 allows in {@code error_description}
 * (printable ASCII without {@code "} and {@code \}), so nothing a client sent can break the header.
 */
final class BearerChallenge {
  private BearerChallenge() {}

  /** {@code Bearer} alone when every argument is null. */
  static String of(String error, String description, String scope, String resourceMetadata) {
    List<String> params = new ArrayList<>();
    if (error != null) {
      params.add("error=\"" + clean(error) + "\"");
    }
    if (description != null) {
      params.add("error_description=\"" + clean(description) + "\"");
    }
    if (scope != null) {
      params.add("scope=\"" + clean(scope) + "\"");
    }
    if (resourceMetadata != null) {
      params.add("resource_metadata=\"" + clean(resourceMetadata) + "\"");
    }
    return params.isEmpty() ? "Bearer" : "Bearer " + String.join(", ", params);
  }

  static String clean(String s) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), 300));
    for (int i = 0; i < s.length() && b.length() < 300; i++) {
      char c = s.charAt(i);
      b.append(c >= 0x20 && c <= 0x7E && c != '"' && c != '\\' ? c : '\'');
    }
    return b.toString();
  }
}
