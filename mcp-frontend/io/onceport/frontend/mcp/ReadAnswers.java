package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.onceport.frontend.gateway.ReadPath;
import io.onceport.workflow.contract.ToolContract;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Answers for calls on the read path ({@link ReadPath}): the same {@code CallToolResult} shape as an
 * execution's, honest about what it is — {@code execution_id} null, {@code read_id} set,
 * {@code delivery} {@code not_tracked} — as JSON, or as an SSE stream when the client asked for
 * one: a progress notification per step when it sent a progress token (accepted, authorized, sent
 * to the target), a log message per step when its session logs {@code info}, then the result.
 * The stream carries no event ids: there is no execution to resume, and a broken read is simply
 * called again.
 */
final class ReadAnswers {
  private final SseStreams sse;

  ReadAnswers(SseStreams sse) {
    this.sse = sse;
  }

  /** Sends the read and answers it; {@code wrap} makes the JSON-RPC response of a result. */
  McpController.Reply answer(Exchange ex, ReadPath.Planned read, boolean stream, JsonNode progressToken,
      Function<ObjectNode, JsonNode> wrap) {
    if (!stream) {
      ReadPath.Answer a = read.send(step -> {});
      return McpController.Reply.of(wrap.apply(result(a, read.contract())));
    }
    Context ctx = ex.ctx();
    ctx.status(200);
    ctx.res().setContentType("text/event-stream");
    ctx.res().setCharacterEncoding("UTF-8");
    ctx.res().setHeader("Cache-Control", "no-cache");
    ctx.res().setHeader("X-Accel-Buffering", "no");
    boolean progress = progressToken != null && !progressToken.isNull();
    boolean logs = !ex.modern() && sse.logsInfo(ex.session());
    Events events = new Events(ctx, read.readId(), progress ? progressToken : null, logs);
    read.steps().forEach(events);
    ReadPath.Answer a = read.send(events);
    events.log(a.message());
    events.write("data: " + Json.text(wrap.apply(result(a, read.contract()))) + "\n\n");
    return McpController.Reply.STREAMED;
  }

  /** Progress and log events of one read stream; a write that fails ends the writing, not the read. */
  private static final class Events implements Consumer<String> {
    private final Context ctx;
    private final String readId;
    private final JsonNode progressToken;
    private final boolean logs;
    private int progress;
    private boolean gone;

    Events(Context ctx, String readId, JsonNode progressToken, boolean logs) {
      this.ctx = ctx;
      this.readId = readId;
      this.progressToken = progressToken;
      this.logs = logs;
    }

    @Override
    public void accept(String step) {
      if (progressToken != null) {
        ObjectNode n = Json.object();
        n.put("jsonrpc", "2.0");
        n.put("method", "notifications/progress");
        ObjectNode p = n.putObject("params");
        p.set("progressToken", progressToken);
        p.put("progress", ++progress);
        p.put("message", step);
        write("data: " + Json.text(n) + "\n\n");
      }
      log(step);
    }

    void log(String message) {
      if (!logs) {
        return;
      }
      ObjectNode n = Json.object();
      n.put("jsonrpc", "2.0");
      n.put("method", "notifications/message");
      ObjectNode p = n.putObject("params");
      p.put("level", "info");
      p.put("logger", "onceport");
      p.putObject("data").put("read_id", readId).put("message", message);
      write("data: " + Json.text(n) + "\n\n");
    }

    void write(String event) {
      if (gone) {
        return;
      }
      try {
        OutputStream out = ctx.res().getOutputStream();
        out.write(event.getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException | RuntimeException e) {
        gone = true; // the client left; a read leaves nothing to record or resume
      }
    }
  }

  /** The {@code CallToolResult} of a read. */
  static ObjectNode result(ReadPath.Answer a, ToolContract contract) {
    ObjectNode res = Json.object();
    ArrayNode content = res.putArray("content");
    String body = a.result() == null ? "" : a.result().body();
    JsonNode blocks = a.result() != null && contract != null
        && ToolContract.RESULT_MCP_CONTENT.equals(contract.resultFormat()) ? parseObject(body) : null;
    if (blocks != null && blocks.path("content").isArray() && !blocks.path("content").isEmpty()) {
      blocks.path("content").forEach(b -> content.add(b.deepCopy()));
    } else {
      content.addObject().put("type", "text").put("text", body.isEmpty() ? a.message() : body);
    }
    ObjectNode summary = Json.object();
    summary.putNull("execution_id");
    summary.put("read_id", a.readId());
    summary.put("state", a.completed() ? "completed" : "failed");
    summary.put("outcome", a.result() == null ? "unknown" : a.completed() ? "completed" : "failed");
    summary.put("delivery", "not_tracked");
    Integer status = a.result() == null ? null : a.result().status();
    if (status == null) {
      summary.putNull("target_status");
    } else {
      summary.put("target_status", status);
    }
    summary.putNull("exit_status");
    summary.putNull("result_reference");
    summary.put("attached", false);
    summary.put("message", a.message());
    JsonNode structured = summary;
    if (contract != null && contract.outputSchema() != null) {
      structured = a.completed() ? parseObject(body) : null;
    }
    if (structured != null) {
      res.set("structuredContent", structured);
    }
    res.put("isError", !a.completed());
    res.putObject("_meta").set("onceport/execution", summary);
    return res;
  }

  private static JsonNode parseObject(String body) {
    try {
      JsonNode n = Json.MAPPER.readTree(body);
      return n != null && n.isObject() ? n : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
