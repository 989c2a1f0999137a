package io.onceport.frontend.mcp;

import io.javalin.http.Context;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.workflow.execution.DeliveryReport;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes responses itself, synchronously, so that it sees whether the bytes reached the socket,
 * and reports delivery of final results to the gateway. Delivery is a fact: {@code delivered=true}
 * only when the response was written and flushed to a client still reading it, no cancellation for
 * the request arrived first, and none arrived during the delivery grace that follows the flush (a
 * client whose own timeout fired as the answer arrived sends its {@code notifications/cancelled}
 * just after: it never read the answer). {@code delivered=false} when the client was already gone,
 * the write failed, or the request was cancelled. Never before writing.
 */
final class ResponseWriter {
  private static final Logger log = LoggerFactory.getLogger(ResponseWriter.class);
  private final ExecutionGateway gateway;
  private final Clock clock;
  private final Duration grace;
  private final ScheduledExecutorService timer;
  private final InFlightRequests inFlight;

  ResponseWriter(ExecutionGateway gateway, Clock clock, Duration grace, ScheduledExecutorService timer, InFlightRequests inFlight) {
    this.gateway = gateway;
    this.clock = clock;
    this.grace = grace;
    this.timer = timer;
    this.inFlight = inFlight;
  }

  /**
   * An execution whose final result a response carries, and the call it answers.
   *
   * @param entry the request this response answers, for cancellations (null when it cannot be cancelled)
   */
  record Pending(String executionId, String callId, InFlightRequests.Entry entry) {
    Pending(String executionId, String callId) {
      this(executionId, callId, null);
    }
  }

  /** Writes a complete JSON body; reports each pending delivery. */
  void writeJson(Context ctx, int status, byte[] body, List<Pending> deliveries) {
    if (!deliveries.isEmpty() && ClientConnection.isGone(ctx.req())) {
      report(deliveries, false, "client disconnected before the response was written");
      return;
    }
    List<Pending> cancelled = new ArrayList<>();
    List<Pending> writing = new ArrayList<>();
    for (Pending p : deliveries) {
      (p.entry() == null || p.entry().beginWrite() ? writing : cancelled).add(p);
    }
    if (!cancelled.isEmpty() && writing.isEmpty() && deliveries.size() == 1) {
      // The one request this response answers was cancelled: MCP says a cancelled request is not answered.
      unanswered(cancelled);
      ctx.status(202);
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
    written(writing);
    unanswered(cancelled);
  }

  /**
   * The responses carrying these results were written and flushed: each counts as delivered once
   * the grace passed without a cancellation for its request.
   */
  void written(List<Pending> deliveries) {
    if (deliveries.isEmpty()) {
      return;
    }
    String at = Instant.now(clock).toString();
    for (Pending p : deliveries) {
      if (p.entry() != null) {
        p.entry().written();
      }
    }
    Runnable decide = () -> {
      for (Pending p : deliveries) {
        String cancel = p.entry() == null ? null : p.entry().settle();
        if (cancel == null) {
          reportOne(p, new DeliveryReport(p.callId(), true, at, ""));
        } else {
          p.entry().unanswered();
          reportOne(p, new DeliveryReport(p.callId(), false, at,
              "cancelled by the client within " + grace.toMillis() + " ms of the response being written (" + cancel + ")"));
        }
        inFlight.release(p.entry());
      }
    };
    if (grace.isZero()) {
      decide.run();
    } else {
      try {
        timer.schedule(decide, grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RuntimeException e) {
        decide.run(); // shutting down: decide now rather than never
      }
    }
  }

  /** These requests were cancelled before their answer was written: not delivered, and not answered. */
  void unanswered(List<Pending> deliveries) {
    for (Pending p : deliveries) {
      if (p.entry() != null) {
        p.entry().unanswered();
      }
    }
    String at = Instant.now(clock).toString();
    for (Pending p : deliveries) {
      String reason = p.entry() == null ? null : p.entry().cancelReason();
      reportOne(p, new DeliveryReport(p.callId(), false, at, reason == null ? "cancelled by the client" : reason));
      inFlight.release(p.entry());
    }
  }

  void report(List<Pending> deliveries, boolean delivered, String detail) {
    String at = Instant.now(clock).toString();
    for (Pending p : deliveries) {
      reportOne(p, new DeliveryReport(p.callId(), delivered, at, detail));
      if (p.entry() != null) {
        p.entry().settle();
      }
      inFlight.release(p.entry());
    }
  }

  private void reportOne(Pending p, DeliveryReport report) {
    try {
      gateway.reportDeliveryLater(p.executionId(), report);
    } catch (RuntimeException e) {
      log.warn("could not report delivery={} of {}: {}", report.delivered(), p.executionId(), e.toString());
    }
  }
}
