package io.onceport.workflow.execution;

import java.util.Objects;

/**
 * The front end's report on writing a response that carried the final result to a caller.
 *
 * @param delivered true when the response was written and flushed completely
 */
public record DeliveryReport(String callId, boolean delivered, String at, String detail) {
  public DeliveryReport {
    Objects.requireNonNull(callId, "callId == null");
    Objects.requireNonNull(at, "at == null");
    detail = detail == null ? "" : detail;
  }
}
