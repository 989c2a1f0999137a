package io.onceport.workflow.dispatch;

import java.util.List;
import java.util.Map;

/**
 * The observed outcome of one dispatch: what the target answered. For HTTP, {@code status},
 * selected {@code headers} and the {@code body} (capped at {@link #BODY_CAP} characters,
 * {@code truncated} says so); for SSH, {@code exitStatus}, {@code body} holds stdout and
 * {@code stderr} the error stream, both capped.
 *
 * @param redacted credential references whose secret the target echoed back: every occurrence in
 *     {@code body} and {@code headers} was replaced by {@code [redacted:<reference>]} before the
 *     result left the channel (empty when nothing was redacted; absent in older histories)
 */
public record DispatchResult(
    Integer status,
    Integer exitStatus,
    Map<String, String> headers,
    String body,
    String stderr,
    boolean truncated,
    long elapsedMillis,
    List<String> redacted) {

  /** Characters of a response body (or stdout/stderr) kept in the record. */
  public static final int BODY_CAP = 256 * 1024;

  public DispatchResult {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    body = body == null ? "" : body;
    redacted = redacted == null ? List.of() : List.copyOf(redacted);
  }

  public static DispatchResult http(int status, Map<String, String> headers, String body, boolean truncated, long elapsedMillis) {
    return new DispatchResult(status, null, headers, body, null, truncated, elapsedMillis, List.of());
  }

  public static DispatchResult ssh(int exitStatus, String stdout, String stderr, boolean truncated, long elapsedMillis) {
    return new DispatchResult(null, exitStatus, Map.of(), stdout, stderr, truncated, elapsedMillis, List.of());
  }

  /** This result with {@code redacted} set: the channel removed those credentials' secrets. */
  public DispatchResult withRedacted(List<String> references) {
    return new DispatchResult(status, exitStatus, headers, body, stderr, truncated, elapsedMillis, references);
  }

  /** A 2xx HTTP status or exit status 0. */
  public boolean succeeded() {
    if (status != null) {
      return status >= 200 && status < 300;
    }
    return exitStatus != null && exitStatus == 0;
  }
}
