package io.onceport.frontend.contract;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A contract file as Jackson binds it, one record per section, field names as in the file
 * ({@code snake_case}). It is bound after {@link ContractSchema} has checked the tree, with every
 * value the schema refused set to null, so a field is null when it is absent <em>or</em> invalid
 * (rules that need to tell the two apart look at the tree). Lists and maps keep a null where an
 * element was invalid, so indexes in messages stay those of the file.
 *
 * <p>{@code replay.status} and {@code replay.verify} stay trees here: their shape depends on the
 * channel ({@link HttpStatus} or {@link McpStatus}; {@link HttpVerify}, {@link McpVerify} or {@link SshVerify}).
 */
record ContractFile(
    String tool,
    String description,
    JsonNode inputSchema,
    JsonNode outputSchema,
    String channel,
    Http http,
    Ssh ssh,
    Replay replay,
    Fingerprint fingerprint,
    Result result,
    Mcp mcp) {
  ContractFile {
    inputSchema = value(inputSchema);
    outputSchema = value(outputSchema);
  }

  record Http(String method, String url, JsonNode body, Map<String, String> headers, String idempotencyHeader,
      String credential, Duration timeout, Boolean dynamicHost) {
    Http {
      body = value(body);
    }
  }

  record Ssh(String host, Integer port, String user, String hostKey, String credential, String keyFile,
      List<String> command, String workingDir, Boolean marker, String helperPath, String stateDir, Duration timeout) {}

  record Mcp(String url, List<String> command, Map<String, String> env, String workingDir, String tool,
      String credential, Duration timeout) {}

  /**
   * @param attachWindow a duration as written, or {@code until_verified}
   */
  record Replay(@JsonProperty("class") String replayClass, String attachWindow, JsonNode status, Duration dedupeAfterDelivery,
      Duration verifiedWindow, JsonNode verify) {
    Replay {
      status = value(status);
      verify = value(verify);
    }

    boolean untilVerified() {
      return ReplaySpec.UNTIL_VERIFIED.equals(attachWindow);
    }
  }

  /** {@code replay.verify} of an http tool. */
  record HttpVerify(String method, String url, Duration every, Duration giveUpAfter, HttpCondition verifiedWhen,
      HttpCondition notAppliedWhen) {}

  /**
   * {@code replay.verify} of an ssh tool: a read-only command (the contract author's word); its
   * conditions are {@link HttpCondition}s whose {@code status} lists exit statuses.
   */
  record SshVerify(List<String> command, Duration every, Duration giveUpAfter, HttpCondition verifiedWhen,
      HttpCondition notAppliedWhen) {}

  /** {@code replay.verify} of an mcp tool. */
  record McpVerify(String tool, JsonNode arguments, Duration every, Duration giveUpAfter, McpCondition verifiedWhen,
      McpCondition notAppliedWhen) {
    McpVerify {
      arguments = value(arguments);
    }
  }

  /**
   * {@code verified_when} / {@code not_applied_when} of an http check.
   *
   * @param literal {@code equals}: null when absent, a {@link com.fasterxml.jackson.databind.node.NullNode} for {@code equals: null}
   */
  record HttpCondition(List<Integer> status, String pointer, String equalsResult, @JsonProperty("equals") JsonNode literal,
      String equalsArgument) {}

  /** {@code verified_when} / {@code not_applied_when} of an mcp check (no status: a tool's answer has none). */
  record McpCondition(String pointer, String equalsResult, @JsonProperty("equals") JsonNode literal, String equalsArgument) {}

  record HttpStatus(String method, String url, List<Integer> completedWhen, List<Integer> notExecutedWhen,
      Duration settle) {}

  record McpStatus(String tool, JsonNode arguments, String field, List<String> completedWhen, List<String> failedWhen,
      List<String> notExecutedWhen) {
    McpStatus {
      arguments = value(arguments);
    }
  }

  record Fingerprint(List<String> ignore, List<String> secret) {}

  record Result(String format) {}

  /**
   * A checked file bound: the file, its channel (null when absent or invalid), the status section
   * of that channel, and the tree as written (not pruned), whose schemas and templates the rules read.
   */
  record Bound(JsonNode root, ContractFile file, ToolContract.Channel channel, HttpStatus httpStatus, McpStatus mcpStatus,
      HttpVerify httpVerify, McpVerify mcpVerify, SshVerify sshVerify) {
    Bound {
      Objects.requireNonNull(root, "root == null");
      Objects.requireNonNull(file, "file == null");
    }

    /**
     * Binds {@code pruned} (the checked tree with refused values nulled) of the file {@code root}.
     * Sections the schema checks only under their channel are bound only under it: the rules
     * refuse them whole under another channel.
     */
    static Bound of(JsonNode root, ObjectNode pruned) throws BindingException {
      JsonNode name = pruned.get("channel");
      ToolContract.Channel channel = name != null && name.isTextual()
          ? ToolContract.Channel.valueOf(name.asText().toUpperCase(Locale.ROOT)) : null;
      for (ToolContract.Channel other : ToolContract.Channel.values()) {
        if (other != channel) {
          pruned.remove(other.name().toLowerCase(Locale.ROOT));
        }
      }
      if (channel != ToolContract.Channel.HTTP && channel != ToolContract.Channel.SSH) {
        pruned.remove("result");
      }
      ContractFile f = bind(pruned, ContractFile.class, "");
      JsonNode status = f.replay() == null ? null : f.replay().status();
      HttpStatus http = channel == ToolContract.Channel.HTTP && status != null
          ? bind(status, HttpStatus.class, "replay.status") : null;
      McpStatus mcp = channel == ToolContract.Channel.MCP && status != null
          ? bind(status, McpStatus.class, "replay.status") : null;
      JsonNode verify = f.replay() == null ? null : f.replay().verify();
      HttpVerify httpVerify = channel == ToolContract.Channel.HTTP && verify != null
          ? bind(verify, HttpVerify.class, "replay.verify") : null;
      McpVerify mcpVerify = channel == ToolContract.Channel.MCP && verify != null
          ? bind(verify, McpVerify.class, "replay.verify") : null;
      SshVerify sshVerify = channel == ToolContract.Channel.SSH && verify != null
          ? bind(verify, SshVerify.class, "replay.verify") : null;
      return new Bound(root, f, channel, http, mcp, httpVerify, mcpVerify, sshVerify);
    }
  }

  /** Null for a missing or null node: JSON null in a template position means "absent". */
  private static JsonNode value(JsonNode node) {
    return node == null || node.isNull() ? null : node;
  }

  /**
   * Unknown properties stay an error here: the schema refuses them first, so one reaching Jackson
   * means the schema and these records disagree, and that must not pass silently. Numbers in
   * templates keep the text they were written with ({@code 200.0} stays {@code 200.0}: it is sent
   * to the target as written).
   */
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .registerModule(new JavaTimeModule())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  /** A value that could not be bound: where, and Jackson's reason. */
  static final class BindingException extends Exception {
    final String path;

    BindingException(String path, String message) {
      super(message);
      this.path = path;
    }
  }

  /** Binds a checked (and pruned) tree: the whole file, or one {@code replay.status} as {@code type}. */
  static <T> T bind(JsonNode tree, Class<T> type, String prefix) throws BindingException {
    try {
      return MAPPER.treeToValue(tree, type);
    } catch (JsonMappingException e) {
      StringBuilder path = new StringBuilder(prefix);
      for (JsonMappingException.Reference r : e.getPath()) {
        if (r.getFieldName() != null) {
          path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          path.append('[').append(r.getIndex()).append(']');
        }
      }
      throw new BindingException(path.toString(), e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw new BindingException(prefix, e.getOriginalMessage());
    }
  }
}
