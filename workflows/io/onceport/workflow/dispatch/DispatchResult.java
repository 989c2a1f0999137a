package io.onceport.workflow.dispatch;

import java.util.List;
import java.util.Map;

/**
 * The observed outcome of one dispatch: what the target answered. For HTTP, {@code status},
 * selected {@code headers} and the {@code body} (capped at {@link #BODY_CAP} characters,
 * {@code truncated} says so); for SSH, {@code exitStatus}, {@code body} holds stdout and
 * {@code stderr} the error stream, both capped; for an upstream MCP tool, {@code body} is the
 * upstream's JSON-RPC result (a {@code CallToolResult}: content, structuredContent, isError) or its
 * JSON-RPC error object, and {@code toolError} says whether it was an error.
 *
 * @param redacted credential references whose secret the target echoed back: every occurrence in
 *     {@code body} and {@code headers} was replaced by {@code [redacted:<reference>]} before the
 *     result left the channel (empty when nothing was redacted; absent in older histories)
 * @param toolError null for HTTP and SSH; for MCP, true when the upstream answered {@code isError}
 *     or a JSON-RPC error (absent in older histories)
 */
public record DispatchResult(
    Integer status,
    Integer exitStatus,
    Map<String, String> headers,
    String body,
    String stderr,
    boolean truncated,
    long elapsedMillis,
    List<String> redacted,
    Boolean toolError) {

  /** Characters of a response body (or stdout/stderr) kept in the record. */
  public static final int BODY_CAP = 256 * 1024;

  /** An HTTP or SSH result with nothing redacted. */
  public DispatchResult(Integer status, Integer exitStatus, Map<String, String> headers, String body, String stderr,
      boolean truncated, long elapsedMillis) {
    this(status, exitStatus, headers, body, stderr, truncated, elapsedMillis, List.of(), null);
  }

  /** An HTTP or SSH result. */
  public DispatchResult(Integer status, Integer exitStatus, Map<String, String> headers, String body, String stderr,
      boolean truncated, long elapsedMillis, List<String> redacted) {
    this(status, exitStatus, headers, body, stderr, truncated, elapsedMillis, redacted, null);
  }

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
    return new DispatchResult(status, exitStatus, headers, body, stderr, truncated, elapsedMillis, references, toolError);
  }

  /** An upstream MCP tool's answer; {@code body} is the JSON-RPC result or error object. */
  public static DispatchResult mcp(boolean toolError, String body, boolean truncated, long elapsedMillis) {
    return new DispatchResult(null, null, Map.of(), body, null, truncated, elapsedMillis, List.of(), toolError);
  }

  /** A 2xx HTTP status, exit status 0, or an MCP result that is not an error. */
  public boolean succeeded() {
    if (toolError != null) {
      return !toolError;
    }
    if (status != null) {
      return status >= 200 && status < 300;
    }
    return exitStatus != null && exitStatus == 0;
  }

  /** What the target answered, for messages: {@code HTTP 201}, {@code exit status 0}, {@code MCP result}. */
  public String answer() {
    if (status != null) {
      return "HTTP " + status;
    }
    if (toolError != null) {
      return toolError ? "an MCP error result" : "an MCP result";
    }
    return "exit status " + exitStatus;
  }
}
