package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.shared.trace.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;

/**
 * The span of one MCP request in the front end, named and tagged as OpenTelemetry's MCP
 * conventions do ({@code tools/call create_release}; {@code mcp.method.name},
 * {@code gen_ai.tool.name}, {@code jsonrpc.request.id}) plus the execution the call reached and
 * whether it attached to an existing one. Its parent is the agent's trace context: the
 * {@code traceparent} in {@code params._meta} (how MCP carries it per request), else the HTTP
 * header. Started only when tracing is on.
 */
final class McpSpans {
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
  static final AttributeKey<String> EXECUTION = AttributeKey.stringKey("onceport.execution_id");
  static final AttributeKey<Boolean> ATTACHED = AttributeKey.booleanKey("onceport.attached");

  private McpSpans() {}

  static Span start(Tracing tracing, io.javalin.http.Context http, JsonRpcMessage.Call call) {
    JsonNode meta = call.meta();
    boolean inMeta = meta.path(Tracing.TRACEPARENT).isTextual();
    io.opentelemetry.context.Context parent = tracing.extract(name -> inMeta
        ? (meta.path(name).isTextual() ? meta.get(name).asText() : null)
        : http.header(name));
    String tool = call.method().equals("tools/call") && call.params() != null && call.params().path("name").isTextual()
        ? call.params().get("name").asText() : null;
    SpanBuilder b = tracing.tracer().spanBuilder(tool == null ? call.method() : call.method() + " " + tool)
        .setParent(parent).setSpanKind(SpanKind.SERVER).setAttribute(METHOD, call.method());
    if (tool != null) {
      b.setAttribute(TOOL, tool);
    }
    if (call.id() != null) {
      b.setAttribute(REQUEST_ID, call.id().asText());
    }
    return b.startSpan();
  }

  /** Records on the current request's span which execution the call reached; nothing when tracing is off. */
  static void execution(String executionId, boolean attached) {
    Span span = Span.current();
    if (span.isRecording()) {
      span.setAttribute(EXECUTION, executionId);
      span.setAttribute(ATTACHED, attached);
    }
  }

  static void failed(Span span, RuntimeException e) {
    span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
  }
}
