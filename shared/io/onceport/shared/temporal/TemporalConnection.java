package io.onceport.shared.temporal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.shared.cli.CommandName;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import io.onceport.shared.trace.Tracing;
import io.temporal.common.converter.DataConverter;
import io.temporal.serviceclient.GrpcCompression;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import com.uber.m3.tally.Scope;
import io.onceport.shared.temporal.connect.ClientSettings;
import io.onceport.shared.temporal.connect.Connector;
import io.onceport.shared.temporal.connect.TemporalConnectException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A connection to a Temporal frontend: service stubs and a workflow client for one namespace. */
public final class TemporalConnection implements AutoCloseable {
  /** The search attributes every execution upserts; the Temporal UI filters on them. */
  private final ClientSettings settings;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final Tracing tracing;
  private final TemporalTracing temporalTracing;

  private TemporalConnection(ClientSettings settings, WorkflowServiceStubs stubs, WorkflowClient client, Tracing tracing,
      TemporalTracing temporalTracing) {
    this.settings = settings;
    this.stubs = stubs;
    this.client = client;
    this.tracing = tracing;
    this.temporalTracing = temporalTracing;
  }

  /**
   * Connects in plaintext and checks the server answers within {@code timeout}.
   *
   * @param nonSticky clear sticky attributes from workflow task completions: required on the
   *     embedded engine, whose sticky queues never time out (a killed worker would hang its
   *     workflows forever)
   */
  public static TemporalConnection connect(
      String target, String namespace, boolean nonSticky, DataConverter converter, Duration timeout) {
    return connect(target, namespace, nonSticky, converter, timeout, null);
  }

  /**
   * As {@link #connect(String, String, boolean, DataConverter, Duration)}, reporting the Temporal
   * SDK's client and worker metrics to {@code metricsScope} (e.g. {@code Metrics.metricsScope()}),
   * or nowhere when null.
   */
  public static TemporalConnection connect(String target, String namespace, boolean nonSticky, DataConverter converter,
      Duration timeout, Scope metricsScope) {
    return connect(target, namespace, nonSticky, converter, timeout, metricsScope, List.of());
  }

  /**
   * As {@link #connect(String, String, boolean, DataConverter, Duration, Scope)} with further gRPC
   * client interceptors on the connection (fault injection in tests: an engine hiccup on the front
   * end's connection).
   */
  public static TemporalConnection connect(String target, String namespace, boolean nonSticky, DataConverter converter,
      Duration timeout, Scope metricsScope, List<ClientInterceptor> interceptors) {
    return connect(ClientSettings.plaintext(target, namespace), nonSticky, converter, timeout, metricsScope, interceptors);
  }

  /**
   * Connects with {@code settings} — Temporal's standard client configuration: TLS, mTLS, an API
   * key, gRPC metadata — and checks the server answers within {@code timeout}.
   *
   * @throws TemporalConnectException one line: a setting to fix, or (retryable) Temporal not answering
   */
  public static TemporalConnection connect(ClientSettings settings, boolean nonSticky, DataConverter converter,
      Duration timeout, Scope metricsScope, List<ClientInterceptor> interceptors) {
    return connect(settings, nonSticky, converter, timeout, metricsScope, interceptors, Tracing.OFF);
  }

  /**
   * As above, tracing with {@code tracing}: Temporal's client interceptors on this connection's
   * client, its worker interceptors for the workers that use it ({@link #workerInterceptors()}),
   * and {@link #tracing()} for the roles' own spans.
   */
  public static TemporalConnection connect(ClientSettings settings, boolean nonSticky, DataConverter converter,
      Duration timeout, Scope metricsScope, List<ClientInterceptor> interceptors, Tracing tracing) {
    WorkflowServiceStubsOptions.Builder options = Connector.options(settings)
        .setGrpcCompression(compressionFor(settings.address().value()));
    if (metricsScope != null) {
      options.setMetricsScope(metricsScope);
    }
    List<ClientInterceptor> all = new ArrayList<>(interceptors);
    if (nonSticky) {
      all.add(new NonStickyInterceptor());
    }
    if (!all.isEmpty()) {
      options.setGrpcClientInterceptors(all);
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options.build());
    try {
      Connector.awaitAnswer(stubs, settings, timeout);
      stubs.connect(timeout);
    } catch (TemporalConnectException e) {
      stubs.shutdownNow();
      throw e;
    } catch (RuntimeException e) {
      stubs.shutdownNow();
      throw new IllegalStateException("cannot reach Temporal at " + settings.address().value() + ": " + shortReason(e)
          + " (is `onceport serve` or a Temporal cluster running there? see --temporal)", e);
    }
    WorkflowClientOptions.Builder clientOptions = WorkflowClientOptions.newBuilder().setNamespace(settings.namespace().value());
    if (converter != null) {
      clientOptions.setDataConverter(converter);
    }
    TemporalTracing temporalTracing = TemporalTracing.of(tracing);
    if (!temporalTracing.client().isEmpty()) {
      clientOptions.setInterceptors(temporalTracing.client().toArray(WorkflowClientInterceptor[]::new));
    }
    return new TemporalConnection(settings, stubs, WorkflowClient.newInstance(stubs, clientOptions.build()), tracing,
        temporalTracing);
  }

  /**
   * No gzip on a loopback connection (the embedded engine, the Temporal CLI's dev server, a cluster
   * reached through a local proxy), the SDK's default gzip otherwise. On loopback there are no
   * network bytes to save, and the payloads are AES-GCM ciphertext by default, which gzip cannot
   * shrink: compressing every request (17 KB a call) only burned CPU on both ends.
   */
  static GrpcCompression compressionFor(String target) {
    return isLoopback(target) ? GrpcCompression.NONE : GrpcCompression.GZIP;
  }

  /** Whether a {@code host:port} target names this machine by a loopback literal or {@code localhost} (no DNS look-up). */
  static boolean isLoopback(String target) {
    String host = target.strip();
    int scheme = host.indexOf(":///");
    if (scheme >= 0) {
      host = host.substring(scheme + 4);
    }
    if (host.startsWith("[")) {
      int close = host.indexOf(']');
      host = close > 0 ? host.substring(1, close) : host;
    } else if (host.indexOf(':') == host.lastIndexOf(':') && host.indexOf(':') >= 0) {
      host = host.substring(0, host.indexOf(':'));
    }
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    boolean ipv4 = host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    boolean ipv6 = host.indexOf(':') >= 0 && host.matches("[0-9a-fA-F:.]+");
    if (!ipv4 && !ipv6) {
      return false; // a name (even one spelled in hex digits, like "cafe"): not resolved here
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  public static String shortReason(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    if (e instanceof StatusRuntimeException sre) {
      return sre.getStatus().getCode() + (sre.getStatus().getDescription() == null ? "" : " " + sre.getStatus().getDescription());
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /** Registers search attributes (Onceport's: {@code ExecutionSearchAttributes.NAMES}); one that already exists is fine. */
  public void registerSearchAttributes(List<String> names) {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(
        Connector.credentials(OperatorServiceStubsOptions.newBuilder().setChannel(stubs.getRawChannel()), settings)
            .validateAndBuildWithDefaults());
    try {
      for (String name : names) {
        try {
          operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder()
              .setNamespace(namespace())
              .putAllSearchAttributes(Map.of(name, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD))
              .build());
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          if (code != Status.Code.ALREADY_EXISTS && !String.valueOf(e.getStatus().getDescription()).contains("already")) {
            throw new IllegalStateException("cannot register search attribute " + name + " in namespace " + namespace()
                + ": " + shortReason(e) + "; register them with: " + CommandName.command("temporal setup --temporal " + target()
                + " --namespace " + namespace()) + " (on Temporal Cloud: tcld namespace search-attributes add --namespace "
                + namespace() + " --sa " + name + "=Keyword)", e);
          }
        }
      }
    } finally {
      operator.shutdownNow();
    }
  }

  public String target() {
    return settings.address().value();
  }

  public String namespace() {
    return settings.namespace().value();
  }

  /** How this connection was made: address, namespace, TLS, credentials (no secret). */
  public ClientSettings settings() {
    return settings;
  }

  /** Tracing for the roles on this connection ({@link Tracing#OFF} unless an exporter is configured). */
  public Tracing tracing() {
    return tracing;
  }

  /** Temporal's tracing interceptors for workers on this connection; none when tracing is off. */
  public List<WorkerInterceptor> workerInterceptors() {
    return temporalTracing.worker();
  }

  /** "ADDRESS (namespace NS, AUTH)" for start-up lines: the kind of authentication, never a secret. */
  public String describe() {
    return settings.describe();
  }

  public WorkflowServiceStubs stubs() {
    return stubs;
  }

  public WorkflowClient client() {
    return client;
  }

  @Override
  public void close() {
    stubs.shutdownNow();
  }

  /** Clears sticky attributes so every workflow task goes to the shared task queue. */
  static final class NonStickyInterceptor implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        @SuppressWarnings("unchecked")
        public void sendMessage(Q message) {
          if (message instanceof RespondWorkflowTaskCompletedRequest request && request.hasStickyAttributes()) {
            message = (Q) request.toBuilder().clearStickyAttributes().build();
          }
          super.sendMessage(message);
        }
      };
    }
  }
}
