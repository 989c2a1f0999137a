package io.onceport.workflow.contract;

import java.util.List;
import java.util.Objects;

/**
 * One tool as loaded from {@code contracts/<tool>.yaml}: what it does, how it reaches the world,
 * and what happens when a response is lost after dispatch. Exactly one of {@code http}, {@code ssh}
 * and {@code mcp} is set, matching {@code channel}.
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
 * @param mcp the upstream MCP server and tool of a {@code channel: mcp} contract, else null
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
    String resultFormat,
    McpSpec mcp) {

  /** The target's body becomes one text content block (the default). */
  public static final String RESULT_TEXT = "text";
  /** The target answers with an MCP result shape ({@code {"content": [...]}}), passed through as content. */
  public static final String RESULT_MCP_CONTENT = "mcp_content";

  /** An HTTP or SSH contract (no {@code mcp} section). */
  public ToolContract(String tool, String description, String inputSchema, String outputSchema, Channel channel,
      HttpSpec http, SshSpec ssh, ReplaySpec replay, List<String> fingerprintIgnore, List<String> fingerprintSecret,
      String resultFormat) {
    this(tool, description, inputSchema, outputSchema, channel, http, ssh, replay, fingerprintIgnore, fingerprintSecret,
        resultFormat, null);
  }

  /** A contract for an upstream MCP tool: its results are the upstream's MCP content blocks. */
  public static ToolContract mcp(String tool, String description, String inputSchema, String outputSchema, McpSpec mcp,
      ReplaySpec replay, List<String> fingerprintIgnore, List<String> fingerprintSecret) {
    return new ToolContract(tool, description, inputSchema, outputSchema, Channel.MCP, null, null, replay,
        fingerprintIgnore, fingerprintSecret, RESULT_MCP_CONTENT, mcp);
  }

  /** A contract whose results are text. */
  public ToolContract(String tool, String description, String inputSchema, String outputSchema, Channel channel,
      HttpSpec http, SshSpec ssh, ReplaySpec replay, List<String> fingerprintIgnore, List<String> fingerprintSecret) {
    this(tool, description, inputSchema, outputSchema, channel, http, ssh, replay, fingerprintIgnore, fingerprintSecret, RESULT_TEXT);
  }

  public enum Channel {
    HTTP,
    SSH,
    /** An upstream MCP server's tool (Streamable HTTP or stdio). */
    MCP
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
    if (channel == Channel.MCP && mcp == null) {
      throw new IllegalArgumentException("channel mcp needs an mcp section");
    }
    if (channel == Channel.MCP && replay.replayClass() == ReplayClass.STATUS_QUERY && mcp.status() == null) {
      throw new IllegalArgumentException("replay.status.tool is required for class status_query on channel mcp");
    }
    if (channel == Channel.HTTP
        && replay.replayClass() == ReplayClass.STATUS_QUERY
        && replay.status() == null) {
      throw new IllegalArgumentException("replay.status is required for class status_query");
    }
    checkVerify(channel, replay.verify());
  }

  /**
   * An http tool verifies with a GET/HEAD of a URL, an mcp tool with an upstream read tool, an ssh
   * tool with a read-only command (which the contract author vouches for).
   */
  private static void checkVerify(Channel channel, VerifySpec verify) {
    if (verify == null) {
      return;
    }
    if (channel == Channel.SSH && verify.command() == null) {
      throw new IllegalArgumentException("replay.verify of an ssh tool needs command (a read-only command)");
    }
    if (channel == Channel.HTTP && verify.url() == null) {
      throw new IllegalArgumentException("replay.verify of an http tool needs method and url");
    }
    if (channel == Channel.MCP && verify.tool() == null) {
      throw new IllegalArgumentException("replay.verify of an mcp tool needs tool (an upstream read-only tool)");
    }
  }

  public ReplayClass replayClass() {
    return replay.replayClass();
  }

  /**
   * This contract as an execution carries it: without the description and the input and output
   * schemas, which only agents ({@code tools/list}) and the front end's argument check read. The
   * snapshot travels to the engine twice per call — in the start request and in the send's input
   * — and the schema was the largest part of it (454 of 1,185 bytes for {@code create_release});
   * the workflow and its activities read none of the three.
   */
  public ToolContract forExecution() {
    return new ToolContract(tool, "", null, null, channel, http, ssh, replay, fingerprintIgnore, fingerprintSecret,
        resultFormat, mcp);
  }

  /** The request timeout of the channel (HTTP, SSH or MCP), in milliseconds. */
  public long requestTimeoutMillis() {
    return switch (channel) {
      case HTTP -> http.timeoutMillis();
      case SSH -> ssh.timeoutMillis();
      case MCP -> mcp.timeoutMillis();
    };
  }

  /**
   * {@code replay.status.settle} in milliseconds: for HTTP the contract's value, by default the
   * HTTP timeout; for SSH zero — the remote marker is created atomically before the command starts
   * and refuses a second start of the same execution id, so "no marker" is proof at once; for MCP
   * the upstream request timeout (a status tool has no settle field of its own yet).
   */
  public long settleMillis() {
    if (channel == Channel.SSH) {
      return 0;
    }
    if (channel == Channel.MCP) {
      return mcp.timeoutMillis();
    }
    StatusSpec status = replay.status();
    return status != null && status.settle() != null ? status.settle().toMillis() : http.timeoutMillis();
  }

  /** The credential reference this tool dispatches with, or null. */
  public String credentialRef() {
    return switch (channel) {
      case HTTP -> http.credential();
      case SSH -> ssh.credential();
      case MCP -> mcp.credential();
    };
  }

}
