package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.workflow.execution.CancelRequest;
import io.onceport.workflow.execution.ExecutionRecord;

/**
 * Notifications from the client. Only {@code notifications/cancelled} does anything: before
 * dispatch it cancels the execution; after, it only notes that this caller stopped waiting — the
 * execution goes on, the request is not answered and its delivery is {@code not_delivered}. A
 * notification is never answered, so nothing here throws.
 */
final class NotificationHandler {
  private final ExecutionGateway gateway;
  private final InFlightRequests inFlight;

  NotificationHandler(ExecutionGateway gateway, InFlightRequests inFlight) {
    this.gateway = gateway;
    this.inFlight = inFlight;
  }

  /** @param session null in 2026-07-28 (the actor scopes the request ids then) */
  void receive(String actor, Session session, String method, JsonNode params) {
    if ("notifications/cancelled".equals(method) && params != null) {
      String reason = "notifications/cancelled: " + params.path("reason").asText("no reason given");
      InFlightRequests.Cancellation c = inFlight.cancel(session == null ? actor : session.nonce(), params.path("requestId"), reason);
      if (c != null && c.executionToCancel() != null) {
        c.entry().resolveCancel(cancelQuietly(c.executionToCancel(), actor, reason));
      }
      // Not in flight (already answered, or never seen): nothing to do, as MCP allows.
    }
    // notifications/initialized, progress, roots changes: nothing to do
  }

  /** Cancels an execution for a caller that cannot be answered; null when the execution layer failed. */
  ExecutionRecord cancelQuietly(String executionId, String actor, String reason) {
    try {
      return gateway.cancel(executionId, new CancelRequest(actor, reason, null));
    } catch (RuntimeException e) {
      return null; // nothing to answer to a notification; the record keeps its state
    }
  }
}
