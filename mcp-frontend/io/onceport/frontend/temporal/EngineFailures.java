package io.onceport.frontend.temporal;

import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.gateway.GatewayException;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.failure.ApplicationFailure;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * What a failed call to the engine means for the front end's next step. The distinction that
 * matters is between answers that say what happened (the run is closed, the key was used for
 * another request) and failures whose effect is unknown: after those the gateway finds out what the
 * first attempt did before it does anything that could start a run.
 */
final class EngineFailures {
  private EngineFailures() {}

  enum Kind {
    /** The run is closed (completed, expired) or does not exist: it takes no more calls. */
    RUN_CLOSED,
    /** A keyed start found the key's closed execution (reuse policy REJECT_DUPLICATE). */
    ALREADY_STARTED,
    /** The engine turned the request away for now: in-flight update limits, rate limits. */
    BUSY,
    /** The attach validator refused: the intent key was used for a different request. */
    INTENT_KEY_MISMATCH,
    /** The attach validator refused: the run is past its tail and closes soon; the call is the intent's next run. */
    RUN_CLOSING,
    /** A timeout, a lost connection, an internal error: the request may or may not have taken effect. */
    UNKNOWN_FATE
  }

  static Kind classify(Throwable e) {
    ApplicationFailure app = applicationFailure(e);
    if (app != null && (ErrorTypes.INTENT_KEY_MISMATCH.equals(app.getType())
        || String.valueOf(app.getOriginalMessage()).startsWith(ExecutionSearchAttributes.INTENT_KEY_MISMATCH_PREFIX))) {
      return Kind.INTENT_KEY_MISMATCH;
    }
    if (app != null && ErrorTypes.RUN_CLOSING.equals(app.getType())) {
      return Kind.RUN_CLOSING;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof WorkflowNotFoundException) {
        return Kind.RUN_CLOSED;
      }
      if (t instanceof StatusRuntimeException sre) {
        Status.Code code = sre.getStatus().getCode();
        String text = String.valueOf(sre.getStatus().getDescription()).toLowerCase(Locale.ROOT);
        switch (code) {
          case NOT_FOUND:
            return Kind.RUN_CLOSED;
          case ALREADY_EXISTS:
            return Kind.ALREADY_STARTED;
          case RESOURCE_EXHAUSTED:
            return Kind.BUSY;
          case FAILED_PRECONDITION:
            // e.g. "limit on number of total updates has been reached": this run takes no more updates.
            return text.contains("complet") || text.contains("closed") ? Kind.RUN_CLOSED : Kind.BUSY;
          default:
            return Kind.UNKNOWN_FATE;
        }
      }
      if (t instanceof CancellationException || t instanceof TimeoutException) {
        return Kind.UNKNOWN_FATE;
      }
    }
    String text = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (text.contains("already completed") || text.contains("workflow execution already finished")) {
      return Kind.RUN_CLOSED;
    }
    return Kind.UNKNOWN_FATE;
  }

  static ApplicationFailure applicationFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app;
      }
    }
    return null;
  }

  /** One line for logs and answers: the gRPC status, else the innermost message. */
  static String reason(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException sre) {
        return sre.getStatus().getCode() + (sre.getStatus().getDescription() == null ? "" : " " + sre.getStatus().getDescription());
      }
    }
    return TemporalConnection.shortReason(e);
  }

  /** The call could not be attached within its budget: busy when the engine turned it away, else unavailable. */
  static GatewayException giveUp(EngineFailures.Kind kind, String executionId, RuntimeException cause) {
    if (kind == EngineFailures.Kind.BUSY) {
      return new GatewayException(GatewayException.Kind.BUSY, "the execution engine is busy and turned this call away ("
          + EngineFailures.reason(cause) + ")", executionId, cause);
    }
    return new GatewayException(GatewayException.Kind.UNAVAILABLE,
        "could not reach the execution for this call: " + EngineFailures.reason(cause), executionId, cause);
  }

  /** The intent key was used for a different request: the validator's text, as a refusal. */
  static GatewayException mismatch(RuntimeException e) {
    var failure = EngineFailures.applicationFailure(e);
    String message = failure != null ? failure.getOriginalMessage() : e.getMessage();
    return new GatewayException(GatewayException.Kind.INTENT_KEY_MISMATCH, message, e);
  }
}
