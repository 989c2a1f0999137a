package io.onceport.frontend.mcp;

import io.javalin.http.Context;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.workflow.execution.DeliveryReport;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes responses itself, synchronously, so that it sees whether the bytes reached the socket,
 * and reports delivery of final results to the gateway: after the write and flush succeeded
 * ({@code delivered=true}), or when the client was already gone or the write failed
 * ({@code delivered=false}). Never before writing.
 */
final class ResponseWriter {
  private static final Logger log = LoggerFactory.getLogger(ResponseWriter.class);
  private final ExecutionGateway gateway;
  private final Clock clock;

  ResponseWriter(ExecutionGateway gateway, Clock clock) {
    this.gateway = gateway;
    this.clock = clock;
  }

  /** An execution whose final result a response carries, and the call it answers. */
  record Pending(String executionId, String callId) {}

  /** Writes a complete JSON body; reports each pending delivery. */
  void writeJson(Context ctx, int status, byte[] body, List<Pending> deliveries) {
    if (!deliveries.isEmpty() && ClientConnection.isGone(ctx.req())) {
      report(deliveries, false, "client disconnected before the response was written");
      return;
    }
    ctx.status(status);
    ctx.res().setContentType("application/json");
    ctx.res().setContentLength(body.length);
    try {
      OutputStream out = ctx.res().getOutputStream();
      out.write(body);
      out.flush();
    } catch (IOException | RuntimeException e) {
      report(deliveries, false, "write failed: " + e.getClass().getSimpleName());
      return;
    }
    report(deliveries, true, "");
  }

  void report(List<Pending> deliveries, boolean delivered, String detail) {
    String at = Instant.now(clock).toString();
    for (Pending p : deliveries) {
      try {
        gateway.reportDelivery(p.executionId(), new DeliveryReport(p.callId(), delivered, at, detail));
      } catch (RuntimeException e) {
        log.warn("could not report delivery={} of {}: {}", delivered, p.executionId(), e.toString());
      }
    }
  }
}
