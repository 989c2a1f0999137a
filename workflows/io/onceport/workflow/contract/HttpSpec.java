package io.onceport.workflow.contract;

import java.util.Map;
import java.util.Objects;

/**
 * How an HTTP tool reaches its target. {@code url} and string leaves of {@code body} may hold
 * {@code {{argument}}} placeholders; {@code body == null} sends the arguments object as JSON.
 *
 * @param body a JSON template (Jackson tree serialized as a string) or null
 */
public record HttpSpec(
    String method,
    String url,
    String body,
    Map<String, String> headers,
    String idempotencyHeader,
    String credential,
    long timeoutMillis) {
  public HttpSpec {
    Objects.requireNonNull(method, "method == null");
    Objects.requireNonNull(url, "url == null");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("Invalid timeout: " + timeoutMillis + "ms");
    }
  }
}
