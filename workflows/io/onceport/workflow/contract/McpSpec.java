package io.onceport.workflow.contract;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How an {@code mcp} tool reaches its upstream MCP server: over Streamable HTTP ({@code url}) or
 * over stdio ({@code command}, an argv the worker starts and supervises), and which upstream tool
 * it calls. Exactly one of {@code url} and {@code command} is set.
 *
 * <p>The upstream {@code tools/call} carries the execution id twice: as {@code _meta}
 * {@code "onceport/execution_id"} and as the request's {@code idempotencyKey} (the SEP-3182 shape),
 * so an upstream that advertises {@code tools.idempotency} can return its first result to a re-send.
 *
 * @param credential a vault reference sent as {@code Authorization: Bearer} (HTTP upstreams only), or null
 * @param env extra environment of a stdio upstream (values are not secrets: they are in the contract)
 * @param workingDir the working directory of a stdio upstream, or null for the worker's
 * @param status how a {@code status_query} tool asks the upstream what happened (a read-only
 *     upstream tool), or null
 */
public record McpSpec(
    String url,
    List<String> command,
    Map<String, String> env,
    String workingDir,
    String tool,
    String credential,
    long timeoutMillis,
    McpStatusSpec status) {
  public McpSpec {
    Objects.requireNonNull(tool, "tool == null");
    command = command == null ? List.of() : List.copyOf(command);
    env = env == null ? Map.of() : Map.copyOf(env);
    if ((url == null) == command.isEmpty()) {
      throw new IllegalArgumentException("mcp needs exactly one of url and command");
    }
    if (credential != null && url == null) {
      throw new IllegalArgumentException("mcp.credential is sent as a bearer token and needs an HTTP upstream (url)");
    }
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("Invalid timeout: " + timeoutMillis + "ms");
    }
  }

  /** True for a stdio upstream (a process the worker runs), false for Streamable HTTP. */
  public boolean stdio() {
    return url == null;
  }

  /** Where the upstream is, for records and fingerprints: the URL, or {@code stdio:} and the argv. */
  public String target() {
    return url != null ? url : "stdio:" + String.join(" ", command);
  }
}
