package io.onceport.activity.ssh;

import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts what the channel asked of its activity; resolves credentials from a map. */
class RecordingContext implements DispatchContext {
  final AtomicInteger beforeSend = new AtomicInteger();
  final AtomicInteger heartbeats = new AtomicInteger();
  private final Map<String, Credential> credentials;

  RecordingContext(Map<String, Credential> credentials) {
    this.credentials = credentials;
  }

  RecordingContext() {
    this(Map.of());
  }

  @Override
  public void beforeSend() {
    beforeSend.incrementAndGet();
  }

  @Override
  public void heartbeat(String phase) {
    heartbeats.incrementAndGet();
  }

  @Override
  public Credential credential(String reference) {
    Credential c = credentials.get(reference);
    if (c == null) {
      throw ApplicationFailure.newNonRetryableFailure("no credential " + reference, ErrorTypes.CREDENTIAL_UNAVAILABLE);
    }
    return c;
  }
}
