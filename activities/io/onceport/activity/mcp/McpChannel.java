package io.onceport.activity.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.http.SecretRedactor;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.McpStatusSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyEvaluator;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Dispatches {@code channel: mcp} tools: one upstream {@code tools/call} per dispatch, carrying the
 * execution id as {@code _meta} {@code "onceport/execution_id"} and as {@code params.idempotencyKey}
 * (the SEP-3182 shape), so every re-send the replay policy decides on carries the same key.
 *
 * <p>Facts, as for HTTP: a failure before the request was written (the server would not start,
 * the connection was refused, {@code initialize} failed) is {@code NOT_SENT}; so is an HTTP 404 to
 * a request on a session the server forgot, which the MCP transport reserves for "not processed".
 * A broken stream, a timeout or a stdio server that died after the request was written is
 * {@code OUTCOME_UNKNOWN}. Any answer — a result, an {@code isError} result, a JSON-RPC error, an
 * HTTP error status — is returned as a result. This channel never sends a request twice.
 *
 * <p>A credential's secret that the upstream echoes back is redacted from the result (and from
 * failure messages quoting the upstream) before it leaves the channel, as for HTTP.
 *
 * <p>A tool of class {@code idempotency_key} is refused before anything is sent when its upstream
 * does not advertise {@code tools.idempotency}: a re-send to a server that ignores the key could
 * act twice.
 */
public final class McpChannel implements DispatchChannel {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}");
  /** The {@code _meta} key carrying the execution id on every upstream call. */
  public static final String META_EXECUTION_ID = "onceport/execution_id";

  private final McpUpstreams upstreams;

  public McpChannel(McpUpstreams upstreams) {
    this.upstreams = Objects.requireNonNull(upstreams, "upstreams == null");
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request, DispatchContext context) {
    McpSpec spec = spec(request);
    Credential credential = spec.credential() == null ? null : context.credential(spec.credential());
    Map<String, String> headers = headers(spec, credential);
    SecretRedactor redactor = credential == null ? SecretRedactor.none() : SecretRedactor.of(spec.credential(), credential);
    ObjectNode arguments = arguments(request.arguments());
    McpUpstream upstream = upstreams.forSpec(spec);
    context.heartbeat("connecting");
    McpSession session;
    try {
      session = upstream.session(headers, spec.timeoutMillis());
    } catch (McpFailure e) {
      throw ApplicationFailure.newFailure("tools/call " + spec.tool() + " not sent: " + redactor.redact(e.getMessage()),
          ErrorTypes.NOT_SENT);
    }
    if (request.contract().replayClass() == ReplayClass.IDEMPOTENCY_KEY && !session.advertisesIdempotency()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "tools/call " + spec.tool() + " not sent: " + upstream.describe() + " (" + session.describeServer()
              + ") does not advertise tools.idempotency, so a re-send with the same idempotencyKey could act twice;"
              + " use class irreversible or status_query for this tool",
          ErrorTypes.INVALID_REQUEST);
    }
    ObjectNode params = McpUpstream.JSON.createObjectNode();
    params.put("name", spec.tool());
    params.set("arguments", arguments);
    params.putObject("_meta").put(META_EXECUTION_ID, request.executionId()).put("progressToken", request.executionId());
    params.put("idempotencyKey", request.executionId());
    long start = System.nanoTime();
    McpUpstream.Answer answer;
    try {
      answer = upstream.request(session, headers, "tools/call", params, context::beforeSend,
          n -> context.heartbeat(phase(n)), spec.timeoutMillis());
    } catch (McpFailure e) {
      String message = redactor.redact(e.getMessage());
      switch (e.stage()) {
        case NOT_SENT -> throw ApplicationFailure.newFailure(message, ErrorTypes.NOT_SENT);
        case SESSION_GONE -> {
          upstream.invalidate(session);
          throw ApplicationFailure.newFailure(message, ErrorTypes.NOT_SENT);
        }
        default -> throw ApplicationFailure.newNonRetryableFailure(message, ErrorTypes.OUTCOME_UNKNOWN);
      }
    }
    context.heartbeat("answered");
    return toResult(answer, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), spec.credential(), redactor);
  }

  @Override
  public StatusResult queryStatus(DispatchRequest request, DispatchContext context) {
    McpSpec spec = spec(request);
    McpStatusSpec status = spec.status();
    if (status == null) {
      throw invalid("Tool " + request.contract().tool() + " has no replay.status tool to ask");
    }
    Credential credential = spec.credential() == null ? null : context.credential(spec.credential());
    Map<String, String> headers = headers(spec, credential);
    SecretRedactor redactor = credential == null ? SecretRedactor.none() : SecretRedactor.of(spec.credential(), credential);
    ObjectNode arguments = arguments(request.arguments());
    JsonNode rendered = render(parse(status.arguments(), "replay.status.arguments"), arguments, request.executionId());
    McpUpstream upstream = upstreams.forSpec(spec);
    context.heartbeat("querying status");
    ObjectNode params = McpUpstream.JSON.createObjectNode();
    params.put("name", status.tool());
    params.set("arguments", rendered);
    params.putObject("_meta").put(META_EXECUTION_ID, request.executionId());
    long start = System.nanoTime();
    McpUpstream.Answer answer;
    McpSession session = null;
    try {
      session = upstream.session(headers, spec.timeoutMillis());
      answer = upstream.request(session, headers, "tools/call", params, () -> {}, n -> {}, spec.timeoutMillis());
    } catch (McpFailure e) {
      if (e.stage() == McpFailure.Stage.SESSION_GONE) {
        upstream.invalidate(session);
      }
      // A status query is a read: any failure may simply be retried.
      throw ApplicationFailure.newFailure("status tool " + status.tool() + ": " + redactor.redact(e.getMessage()),
          e.stage() == McpFailure.Stage.UNKNOWN ? IOException.class.getName() : ErrorTypes.NOT_SENT);
    }
    DispatchResult result = toResult(answer, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), spec.credential(), redactor);
    return verdict(status, answer, result);
  }

  /**
   * One verification check ({@code replay.verify} of an mcp tool): a call of the upstream's read-only
   * {@code tool} with the rendered {@code arguments}, under the tool's credential and the execution id
   * in {@code _meta}; the conditions' pointers read its {@code structuredContent} (after the
   * credential's secret was removed). An error answer is "not yet known"; a failed request is a
   * retryable failure, which the workflow takes as "not yet known" too.
   */
  @Override
  public VerifyAnswer verify(VerifyRequest request, DispatchContext context) {
    DispatchRequest asked = new DispatchRequest(request.executionId(), request.fingerprint(), request.contract(),
        request.arguments(), request.check());
    McpSpec spec = spec(asked);
    VerifySpec verify = request.contract().replay().verify();
    Credential credential = spec.credential() == null ? null : context.credential(spec.credential());
    Map<String, String> headers = headers(spec, credential);
    SecretRedactor redactor = credential == null ? SecretRedactor.none() : SecretRedactor.of(spec.credential(), credential);
    JsonNode rendered = render(parse(verify.arguments(), "replay.verify.arguments"), arguments(request.arguments()),
        request.executionId());
    McpUpstream upstream = upstreams.forSpec(spec);
    context.heartbeat("verifying");
    ObjectNode params = McpUpstream.JSON.createObjectNode();
    params.put("name", verify.tool());
    params.set("arguments", rendered);
    params.putObject("_meta").put(META_EXECUTION_ID, request.executionId());
    long start = System.nanoTime();
    McpUpstream.Answer answer;
    McpSession session = null;
    try {
      session = upstream.session(headers, spec.timeoutMillis());
      answer = upstream.request(session, headers, "tools/call", params, () -> {}, n -> {}, spec.timeoutMillis());
    } catch (McpFailure e) {
      if (e.stage() == McpFailure.Stage.SESSION_GONE) {
        upstream.invalidate(session);
      }
      throw ApplicationFailure.newFailure("verification tool " + verify.tool() + ": " + redactor.redact(e.getMessage()),
          e.stage() == McpFailure.Stage.UNKNOWN ? IOException.class.getName() : ErrorTypes.NOT_SENT);
    }
    DispatchResult result = toResult(answer, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), spec.credential(), redactor);
    if (!answer.isRpc() || answer.message().has("error") || answer.message().path("result").path("isError").asBoolean(false)) {
      return VerifyAnswer.noAnswer("not yet known: verification tool " + verify.tool() + " answered an error: "
          + HttpUpstream.abbreviate(result.body()));
    }
    // The redacted answer: its structuredContent is what the pointers read.
    JsonNode structured = VerifyEvaluator.parse(result.body());
    structured = structured == null ? null : structured.path("structuredContent");
    return VerifyEvaluator.evaluate(verify, null, structured == null || structured.isMissingNode() ? null : structured,
        request.verified(), request.notApplied());
  }

  /** What the status tool's answer says: its {@code field} matched against the contract's value lists. */
  private static StatusResult verdict(McpStatusSpec status, McpUpstream.Answer answer, DispatchResult result) {
    String who = "status tool " + status.tool();
    if (!answer.isRpc() || answer.message().has("error") || answer.message().path("result").path("isError").asBoolean(false)) {
      return new StatusResult(StatusResult.Verdict.UNKNOWN, null, who + " answered an error: " + HttpUpstream.abbreviate(result.body()));
    }
    JsonNode value = answer.message().path("result").path("structuredContent");
    for (String part : status.field().split("\\.")) {
      value = value.path(part);
    }
    if (value.isMissingNode() || value.isNull() || value.isContainerNode()) {
      return new StatusResult(StatusResult.Verdict.UNKNOWN, null,
          who + " answered no value at structuredContent." + status.field());
    }
    String v = value.asText();
    String detail = who + " answered " + status.field() + "=" + v;
    if (status.completedWhen().contains(v)) {
      return new StatusResult(StatusResult.Verdict.COMPLETED, result, detail);
    }
    if (status.failedWhen().contains(v)) {
      return new StatusResult(StatusResult.Verdict.FAILED, result, detail);
    }
    if (status.notExecutedWhen().contains(v)) {
      return new StatusResult(StatusResult.Verdict.NOT_EXECUTED, result, detail);
    }
    return new StatusResult(StatusResult.Verdict.UNKNOWN, result, detail + ", which is in neither completed_when "
        + status.completedWhen() + ", failed_when " + status.failedWhen() + " nor not_executed_when " + status.notExecutedWhen());
  }

  /**
   * An answer as the execution's result. A JSON-RPC result is kept as it is (content,
   * structuredContent, isError); a JSON-RPC error or an HTTP error status becomes an error result
   * whose text says what the upstream answered, with the original under {@code error}.
   */
  static DispatchResult toResult(McpUpstream.Answer answer, long elapsedMillis, String reference, SecretRedactor redactor) {
    ObjectNode body;
    boolean error;
    if (!answer.isRpc()) {
      body = errorResult("the upstream answered HTTP " + answer.httpStatus()
          + (answer.httpBody() == null || answer.httpBody().isBlank() ? "" : ": " + HttpUpstream.abbreviate(answer.httpBody())));
      body.putObject("error").put("http_status", answer.httpStatus()).put("body", cap(answer.httpBody()));
      error = true;
    } else if (answer.message().has("error")) {
      JsonNode e = answer.message().get("error");
      body = errorResult("the upstream answered JSON-RPC error " + e.path("code").asText("?") + ": " + e.path("message").asText(""));
      body.set("error", e);
      error = true;
    } else {
      JsonNode r = answer.message().get("result");
      body = r != null && r.isObject() ? (ObjectNode) r : errorResult("the upstream's result is not an object");
      error = body.path("isError").asBoolean(false) || r == null || !r.isObject();
    }
    String text = redactor.redact(body.toString());
    boolean truncated = text.length() > DispatchResult.BODY_CAP;
    DispatchResult result = DispatchResult.mcp(error, truncated ? text.substring(0, DispatchResult.BODY_CAP) : text, truncated,
        elapsedMillis);
    return redactor.found() ? result.withRedacted(List.of(reference)) : result;
  }

  private static ObjectNode errorResult(String text) {
    ObjectNode r = McpUpstream.JSON.createObjectNode();
    r.putArray("content").addObject().put("type", "text").put("text", text);
    r.put("isError", true);
    return r;
  }

  private static String cap(String s) {
    return s == null ? "" : s.length() > 4096 ? s.substring(0, 4096) : s;
  }

  private static String phase(JsonNode notification) {
    if ("notifications/progress".equals(notification.path("method").asText())) {
      JsonNode p = notification.path("params");
      return "upstream progress " + p.path("progress").asText("") + (p.has("total") ? "/" + p.get("total").asText() : "");
    }
    return "waiting for the upstream";
  }

  private static McpSpec spec(DispatchRequest request) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.MCP || contract.mcp() == null) {
      throw invalid("Tool " + contract.tool() + " is not an mcp tool");
    }
    return contract.mcp();
  }

  /** The credential (resolved from the vault at dispatch time, never logged) as HTTP headers. */
  private static Map<String, String> headers(McpSpec spec, Credential c) {
    if (c == null) {
      return Map.of();
    }
    Map<String, String> h = new LinkedHashMap<>();
    switch (c.type()) {
      case BEARER -> h.put("Authorization", "Bearer " + c.secret());
      case HEADER -> {
        if (c.headerName() == null) {
          throw invalid("Credential '" + spec.credential() + "' of type header names no header");
        }
        h.put(c.headerName(), c.secret());
      }
      default -> throw invalid("Credential '" + spec.credential() + "' is of type " + c.type().wireName()
          + "; an MCP upstream takes a bearer (or header) credential");
    }
    for (String v : h.values()) {
      for (int i = 0; i < v.length(); i++) {
        char ch = v.charAt(i);
        if (ch < 0x20 || ch > 0x7e) {
          throw invalid("Credential '" + spec.credential() + "' does not fit in an HTTP header (invalid characters)");
        }
      }
    }
    return h;
  }

  private static ObjectNode arguments(String json) {
    JsonNode n = parse(json, "arguments");
    if (!n.isObject()) {
      throw invalid("Arguments must be a JSON object");
    }
    return (ObjectNode) n;
  }

  private static JsonNode parse(String json, String what) {
    try {
      JsonNode n = McpUpstream.JSON.readTree(json);
      if (n == null) {
        throw invalid(what + " is empty");
      }
      return n;
    } catch (IOException e) {
      throw invalid(what + " is not valid JSON");
    }
  }

  /** String leaves that are one placeholder become the argument's JSON value; others become text. */
  static JsonNode render(JsonNode template, ObjectNode arguments, String executionId) {
    if (template.isTextual()) {
      String s = template.textValue();
      Matcher whole = PLACEHOLDER.matcher(s);
      if (whole.matches()) {
        return lookup(whole.group(1), arguments, executionId).deepCopy();
      }
      Matcher m = PLACEHOLDER.matcher(s);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        JsonNode v = lookup(m.group(1), arguments, executionId);
        m.appendReplacement(out, Matcher.quoteReplacement(v.isValueNode() ? v.asText() : v.toString()));
      }
      m.appendTail(out);
      return TextNode.valueOf(out.toString());
    }
    if (template.isObject()) {
      ObjectNode o = McpUpstream.JSON.createObjectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = template.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        o.set(e.getKey(), render(e.getValue(), arguments, executionId));
      }
      return o;
    }
    if (template.isArray()) {
      ArrayNode a = McpUpstream.JSON.createArrayNode();
      template.forEach(el -> a.add(render(el, arguments, executionId)));
      return a;
    }
    return template.deepCopy();
  }

  private static JsonNode lookup(String name, ObjectNode arguments, String executionId) {
    if (name.equals("execution_id")) {
      return TextNode.valueOf(executionId);
    }
    JsonNode v = arguments.get(name);
    if (v == null) {
      throw invalid("placeholder {{" + name + "}} names no argument");
    }
    return v;
  }

  private static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, ErrorTypes.INVALID_REQUEST);
  }
}
