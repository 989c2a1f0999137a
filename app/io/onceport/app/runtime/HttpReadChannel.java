package io.onceport.app.runtime;

import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.frontend.read.ReadChannel;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import java.util.Objects;

/**
 * The read path's channel as the application wires it: the HTTP read channel
 * ({@code HttpChannel.forReads()}) with this process's credentials — the worker's vault in
 * {@code serve}, {@link CredentialResolver#NONE} in a frontend-only process.
 */
public final class HttpReadChannel implements ReadChannel {
  private final DispatchChannel http;
  private final CredentialResolver credentials;

  public HttpReadChannel(DispatchChannel http, CredentialResolver credentials) {
    this.http = Objects.requireNonNull(http, "http == null");
    this.credentials = Objects.requireNonNull(credentials, "credentials == null");
  }

  @Override
  public DispatchResult send(DispatchRequest request, Runnable beforeSend) {
    return http.dispatch(request, new DispatchContext() {
      @Override
      public void beforeSend() {
        beforeSend.run();
      }

      @Override
      public void heartbeat(String phase) {
        // no activity to keep alive: the read runs on the caller's request
      }

      @Override
      public Credential credential(String reference) {
        return credentials.resolve(reference);
      }
    });
  }
}
