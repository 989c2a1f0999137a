package io.onceport.shared.temporal.connect;

import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.ServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Service-stub options from {@link ClientSettings}, and the first call that proves the settings
 * work. The SDK's own {@code newConnectedServiceStubs} retries every failure until its timeout,
 * so a wrong CA looked like an engine that was down for ten seconds; here a failure that a retry
 * cannot fix ends the wait at once with the setting to change.
 */
public final class Connector {
  private Connector() {}

  /** Target, TLS (with certificates read again when they change), server name, API key and gRPC metadata. */
  public static WorkflowServiceStubsOptions.Builder options(ClientSettings s) {
    WorkflowServiceStubsOptions.Builder b = WorkflowServiceStubsOptions.newBuilder().setTarget(s.address().value());
    if (s.tls()) {
      try {
        b.setSslContext(RotatingTls.context(s));
      } catch (IllegalArgumentException e) {
        throw new TemporalConnectException("cannot use the TLS settings for Temporal at " + s.address().value() + ": "
            + e.getMessage(), false, e);
      }
      if (s.serverName() != null) {
        String name = s.serverName().value();
        b.setChannelInitializer(channel -> channel.overrideAuthority(name));
      }
    }
    return credentials(b, s);
  }

  /**
   * The API key and gRPC metadata of {@code s} on {@code b}: also for stubs on a connection's raw
   * channel (the operator service), which the SDK's own metadata interceptors do not cover.
   */
  public static <T extends ServiceStubsOptions.Builder<T>> T credentials(T b, ClientSettings s) {
    if (s.apiKey() != null) {
      ApiKey key = s.apiKey();
      b.addApiKey(key::get);
    }
    if (!s.grpcMetadata().isEmpty()) {
      Metadata headers = new Metadata();
      s.grpcMetadata().forEach((k, v) -> headers.put(Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER), v));
      b.addGrpcMetadataProvider(() -> headers);
    }
    return b;
  }

  /**
   * Waits until Temporal answers a {@code GetSystemInfo} call, at most {@code timeout}: a failure
   * that is a setting to fix throws at once, one that is Temporal not answering is retried (every
   * 100 ms, doubling to 1 s) until the time is up.
   *
   * @throws TemporalConnectException naming the setting to fix, or {@link TemporalConnectException#retryable()}
   */
  public static void awaitAnswer(WorkflowServiceStubs stubs, ClientSettings s, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pauseMillis = 100;
    while (true) {
      long left = deadline - System.nanoTime();
      try {
        stubs.blockingStub().withDeadlineAfter(Math.max(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS)
            .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        return;
      } catch (StatusRuntimeException | IllegalArgumentException | UncheckedIOException e) {
        TemporalConnectException failure = e instanceof StatusRuntimeException ? ConnectFailures.classify(e, s)
            : new TemporalConnectException("cannot use the credentials for Temporal at " + s.address().value() + ": "
                + e.getMessage(), false, e);
        if (!failure.retryable() || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis) >= deadline) {
          throw failure;
        }
      }
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TemporalConnectException("interrupted while connecting to Temporal at " + s.address().value(), true, e);
      }
      pauseMillis = Math.min(1000, pauseMillis * 2);
    }
  }
}
