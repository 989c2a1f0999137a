package io.onceport.workflow.contract;

import java.util.List;
import java.util.Objects;

/**
 * One tool as loaded from {@code contracts/<tool>.yaml}: what it does, how it reaches the world,
 * and what happens when a response is lost after dispatch. Exactly one of {@code http} and
 * {@code ssh} is set, matching {@code channel}.
 *
 * <p>A snapshot of the contract travels in the workflow input, so an execution is governed by the
 * contract it was accepted under even if the file changes afterwards.
 *
 * @param inputSchema the JSON Schema of the arguments, serialized JSON
 * @param outputSchema optional JSON Schema of structured results, serialized JSON or null
 * @param fingerprintIgnore arguments with no semantic meaning, dropped before fingerprinting
 * @param fingerprintSecret arguments fingerprinted by keyed HMAC only, never stored in clear
 * @param resultFormat how a completed target response becomes MCP content: {@code text} (the body
 *     as one text block) or {@code mcp_content} (the body is {@code {"content": [...]}} with MCP
 *     content blocks — text, image, audio, resource — passed through)
 */
public record ToolContract(
    String tool,
    String description,
    String inputSchema,
    String outputSchema,
    Channel channel,
    HttpSpec http,
    SshSpec ssh,
    ReplaySpec replay,
    List<String> fingerprintIgnore,
    List<String> fingerprintSecret,
    String resultFormat) {

  /** The target's body becomes one text content block (the default). */
  public static final String RESULT_TEXT = "text";
  /** The target answers with an MCP result shape ({@code {"content": [...]}}), passed through as content. */
  public static final String RESULT_MCP_CONTENT = "mcp_content";

  /** A contract whose results are text. */
  public ToolContract(String tool, String description, String inputSchema, String outputSchema, Channel channel,
      HttpSpec http, SshSpec ssh, ReplaySpec replay, List<String> fingerprintIgnore, List<String> fingerprintSecret) {
    this(tool, description, inputSchema, outputSchema, channel, http, ssh, replay, fingerprintIgnore, fingerprintSecret, RESULT_TEXT);
  }

  public enum Channel {
    HTTP,
    SSH
  }

  public ToolContract {
    resultFormat = resultFormat == null ? RESULT_TEXT : resultFormat;
    if (!resultFormat.equals(RESULT_TEXT) && !resultFormat.equals(RESULT_MCP_CONTENT)) {
      throw new IllegalArgumentException("Invalid result format: " + resultFormat + " (expected text or mcp_content)");
    }
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(channel, "channel == null");
    Objects.requireNonNull(replay, "replay == null");
    description = description == null ? "" : description;
    fingerprintIgnore = fingerprintIgnore == null ? List.of() : List.copyOf(fingerprintIgnore);
    fingerprintSecret = fingerprintSecret == null ? List.of() : List.copyOf(fingerprintSecret);
    if (channel == Channel.HTTP && http == null) {
      throw new IllegalArgumentException("channel http needs an http section");
    }
    if (channel == Channel.SSH && ssh == null) {
      throw new IllegalArgumentException("channel ssh needs an ssh section");
    }
    if (channel == Channel.HTTP
        && replay.replayClass() == ReplayClass.STATUS_QUERY
        && replay.status() == null) {
      throw new IllegalArgumentException("replay.status is required for class status_query");
    }
  }

  public ReplayClass replayClass() {
    return replay.replayClass();
  }

  /** The request timeout of the channel (HTTP or SSH), in milliseconds. */
  public long requestTimeoutMillis() {
    return channel == Channel.HTTP ? http.timeoutMillis() : ssh.timeoutMillis();
  }

  /**
   * {@code replay.status.settle} in milliseconds: for HTTP the contract's value, by default the
   * HTTP timeout; for SSH zero — the remote marker is created atomically before the command starts
   * and refuses a second start of the same execution id, so "no marker" is proof at once.
   */
  public long settleMillis() {
    if (channel == Channel.SSH) {
      return 0;
    }
    StatusSpec status = replay.status();
    return status != null && status.settle() != null ? status.settle().toMillis() : http.timeoutMillis();
  }

  /** The credential reference this tool dispatches with, or null. */
  public String credentialRef() {
    return channel == Channel.HTTP ? http.credential() : ssh.credential();
  }
}
