package io.onceport.frontend.mcp;

import io.javalin.router.JavalinDefaultRoutingApi;
import io.onceport.frontend.auth.SessionRegistry;
import io.onceport.shared.trace.Tracing;
import java.time.Clock;
import java.util.function.Consumer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Configuration of the MCP endpoint. Built with {@link #newBuilder()}; setters fail fast with the
 * exact problem. The session key signs session ids so that any front end process holding the same
 * key accepts any session (sessions are not kept in front-end memory).
 */
public final class McpConfig {
  /** The delivery grace by default: covers the official SDK clients' cancel-after-timeout on a loaded host. */
  public static final Duration DEFAULT_DELIVERY_GRACE = Duration.ofMillis(1000);
  public static final Duration MAX_DELIVERY_GRACE = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_REQUEST_THREADS = 2000;
  private final String listenHost;
  private final int listenPort;
  private final byte[] sessionKey;
  private final boolean allowAnonymous;
  private final List<String> allowedOrigins;
  private final boolean allowLoopbackOrigins;
  private final List<String> allowedHosts;
  private final List<String> extraRouteOrigins;
  private final Duration callWait;
  private final Duration sessionTtl;
  private final Duration sseRetry;
  private final boolean sseToolCalls;
  private final Duration taskResultWait;
  private final Duration taskTtl;
  private final Duration deliveryGrace;
  private final int maxRequestThreads;
  private final AgentLimits agentLimits;
  private final String serverName;
  private final String serverVersion;
  private final SessionRevocations sessionRevocations;
  private final SessionRegistry sessionRegistry;
  private final Consumer<JavalinDefaultRoutingApi> extraRoutes;
  private final Clock clock;
  private final io.onceport.frontend.gateway.ReadPath readPath;
  private final Tracing tracing;

  private McpConfig(Builder b) {
    this.listenHost = b.listenHost;
    this.listenPort = b.listenPort;
    this.sessionKey = b.sessionKey.clone();
    this.allowAnonymous = b.allowAnonymous;
    this.allowedOrigins = List.copyOf(b.allowedOrigins);
    this.allowLoopbackOrigins = b.allowLoopbackOrigins;
    this.allowedHosts = List.copyOf(b.allowedHosts);
    this.extraRouteOrigins = List.copyOf(b.extraRouteOrigins);
    this.callWait = b.callWait;
    this.sessionTtl = b.sessionTtl;
    this.sseRetry = b.sseRetry;
    this.sseToolCalls = b.sseToolCalls;
    this.taskResultWait = b.taskResultWait;
    this.taskTtl = b.taskTtl;
    this.deliveryGrace = b.deliveryGrace;
    this.maxRequestThreads = b.maxRequestThreads;
    this.agentLimits = b.agentLimits;
    this.serverName = b.serverName;
    this.serverVersion = b.serverVersion;
    this.sessionRevocations = b.sessionRevocations == null ? new InMemorySessionRevocations() : b.sessionRevocations;
    this.sessionRegistry = b.sessionRegistry == null ? SessionRegistry.none() : b.sessionRegistry;
    this.extraRoutes = b.extraRoutes == null ? routes -> {} : b.extraRoutes;
    this.clock = b.clock;
    this.readPath = b.readPath;
    this.tracing = b.tracing;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  public String listenHost() { return listenHost; }
  public int listenPort() { return listenPort; }
  byte[] sessionKey() { return sessionKey.clone(); }
  public boolean allowAnonymous() { return allowAnonymous; }
  public List<String> allowedOrigins() { return allowedOrigins; }
  public boolean allowLoopbackOrigins() { return allowLoopbackOrigins; }
  public List<String> allowedHosts() { return allowedHosts; }
  /** Origins allowed on the extra routes besides {@link #allowedOrigins()} (the Temporal UI, for the codec server). */
  public List<String> extraRouteOrigins() { return extraRouteOrigins; }
  public Duration callWait() { return callWait; }
  public Duration sessionTtl() { return sessionTtl; }
  public Duration sseRetry() { return sseRetry; }
  public boolean sseToolCalls() { return sseToolCalls; }
  public Duration taskResultWait() { return taskResultWait; }
  public Duration taskTtl() { return taskTtl; }
  /** How long after writing a final result a cancellation of its request still makes it "not delivered". */
  public Duration deliveryGrace() { return deliveryGrace; }
  /** Threads serving requests: every waiting tools/call holds one. */
  public int maxRequestThreads() { return maxRequestThreads; }
  /** What one agent may hold on this front end (long waits, sessions): {@link AgentLimits}. */
  public AgentLimits agentLimits() { return agentLimits; }
  public String serverName() { return serverName; }
  public String serverVersion() { return serverVersion; }
  public SessionRevocations sessionRevocations() { return sessionRevocations; }
  /** Where agent sessions are recorded (started on initialize, ended on DELETE). */
  public SessionRegistry sessionRegistry() { return sessionRegistry; }
  /** Further routes on the same listener (codec server, metrics, health). */
  public Consumer<JavalinDefaultRoutingApi> extraRoutes() { return extraRoutes; }
  public Clock clock() { return clock; }
  /** The read path for {@code read_only} tools, or null: every call takes the durable path. */
  public io.onceport.frontend.gateway.ReadPath readPath() { return readPath; }
  /** A span for each MCP request, or {@link Tracing#OFF}. */
  public Tracing tracing() { return tracing; }

  public static final class Builder {
    private String listenHost = "127.0.0.1";
    private int listenPort = 8765;
    private byte[] sessionKey;
    private boolean allowAnonymous;
    private List<String> allowedOrigins = List.of();
    private boolean allowLoopbackOrigins = true;
    private List<String> allowedHosts = List.of();
    private List<String> extraRouteOrigins = List.of();
    private Duration callWait = Duration.ofSeconds(30);
    private Duration sessionTtl = Duration.ofHours(24);
    private Duration sseRetry = Duration.ofSeconds(1);
    private boolean sseToolCalls = true;
    private Duration taskResultWait = Duration.ofMinutes(5);
    private Duration taskTtl = Duration.ofHours(1);
    private Duration deliveryGrace = DEFAULT_DELIVERY_GRACE;
    private int maxRequestThreads = DEFAULT_MAX_REQUEST_THREADS;
    private AgentLimits agentLimits = AgentLimits.DEFAULTS;
    private String serverName = "onceport";
    private String serverVersion = "dev";
    private SessionRevocations sessionRevocations;
    private SessionRegistry sessionRegistry;
    private Consumer<JavalinDefaultRoutingApi> extraRoutes;
    private Clock clock = Clock.systemUTC();
    private io.onceport.frontend.gateway.ReadPath readPath;
    private Tracing tracing = Tracing.OFF;

    private Builder() {}

    /** Per-agent limits (default {@link AgentLimits#DEFAULTS}). */
    public Builder agentLimits(AgentLimits limits) {
      this.agentLimits = Objects.requireNonNull(limits, "limits == null");
      return this;
    }

    /** Spans for MCP requests (default: off). */
    public Builder tracing(Tracing tracing) {
      this.tracing = Objects.requireNonNull(tracing, "tracing == null");
      return this;
    }

    /** Host to bind; default 127.0.0.1. */
    public Builder listenHost(String host) {
      Objects.requireNonNull(host, "host == null");
      if (host.isBlank()) {
        throw new IllegalArgumentException("Invalid listen host: empty");
      }
      this.listenHost = host;
      return this;
    }

    /** Port to bind; default 8765, 0 picks a free port (see {@link McpServer#port()}). */
    public Builder listenPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("Invalid listen port: " + port);
      }
      this.listenPort = port;
      return this;
    }

    /** HMAC-SHA256 key signing session ids: exactly 32 bytes, the same on every front end. */
    public Builder sessionKey(byte[] key) {
      Objects.requireNonNull(key, "key == null");
      if (key.length != 32) {
        throw new IllegalArgumentException("Invalid session key: " + key.length + " bytes (expected 32)");
      }
      this.sessionKey = key.clone();
      return this;
    }

    /** Requests without a bearer token act as {@code anonymous}; refused unless bound to loopback. */
    public Builder allowAnonymous(boolean allow) {
      this.allowAnonymous = allow;
      return this;
    }

    /** Exact origins (scheme://host[:port]) allowed in addition to loopback ones. */
    public Builder allowedOrigins(List<String> origins) {
      Objects.requireNonNull(origins, "origins == null");
      for (String o : origins) {
        if (o == null || !o.matches("https?://[^/\\s]+")) {
          throw new IllegalArgumentException("Invalid origin: " + o + " (expected scheme://host[:port])");
        }
      }
      this.allowedOrigins = List.copyOf(origins);
      return this;
    }

    /** Whether http(s)://localhost, 127.0.0.1 and [::1] on any port are allowed; default true. */
    public Builder allowLoopbackOrigins(boolean allow) {
      this.allowLoopbackOrigins = allow;
      return this;
    }

    /**
     * Host names (without port) accepted in the {@code Host} header on every route, against DNS
     * rebinding. Empty (default): localhost, 127.0.0.1 and [::1] — and a server listening on any
     * other address refuses to start (it cannot know the names its clients use).
     */
    public Builder allowedHosts(List<String> hosts) {
      Objects.requireNonNull(hosts, "hosts == null");
      for (String h : hosts) {
        if (h == null || h.isBlank() || h.contains("/")) {
          throw new IllegalArgumentException("Invalid host: " + h);
        }
      }
      this.allowedHosts = hosts.stream().map(h -> h.toLowerCase(java.util.Locale.ROOT)).toList();
      return this;
    }

    /**
     * Origins (scheme://host[:port]; a trailing slash is dropped) allowed on the extra routes in
     * addition to {@link #allowedOrigins}: the Temporal UI's, which calls the codec server from the
     * operator's browser. {@code /mcp} does not accept them.
     */
    public Builder extraRouteOrigins(List<String> origins) {
      Objects.requireNonNull(origins, "origins == null");
      List<String> normalized = origins.stream().map(o -> o == null ? null : o.replaceAll("/+$", "")).toList();
      for (String o : normalized) {
        if (o == null || !o.matches("https?://[^/\\s]+")) {
          throw new IllegalArgumentException("Invalid origin: " + o + " (expected scheme://host[:port])");
        }
      }
      this.extraRouteOrigins = normalized;
      return this;
    }

    /** How long a {@code tools/call} waits for a settled outcome before answering "pending". */
    public Builder callWait(Duration wait) {
      this.callWait = positiveOrZero(wait, "call wait");
      return this;
    }

    /** How long a session id stays valid after {@code initialize}; default 24h. */
    public Builder sessionTtl(Duration ttl) {
      this.sessionTtl = positive(ttl, "session ttl");
      return this;
    }

    /** The SSE {@code retry:} hint sent with the priming event; default 1s. */
    public Builder sseRetry(Duration retry) {
      this.sseRetry = positive(retry, "sse retry");
      return this;
    }

    /** Answer {@code tools/call} with an SSE stream when the client accepts one; default true. */
    public Builder sseToolCalls(boolean sse) {
      this.sseToolCalls = sse;
      return this;
    }

    /** Upper bound for one blocking {@code tasks/result}; default 5 minutes. */
    public Builder taskResultWait(Duration wait) {
      this.taskResultWait = positive(wait, "task result wait");
      return this;
    }

    /** The {@code ttl} advertised on tasks; default 1 hour. */
    public Builder taskTtl(Duration ttl) {
      this.taskTtl = positive(ttl, "task ttl");
      return this;
    }

    /**
     * How long after a final result was written and flushed a {@code notifications/cancelled} for
     * its request still counts: the delivery is reported only after this grace, as not delivered if
     * the cancellation came (the client's timeout raced the answer and it never read it). Zero
     * reports at once. Default {@link #DEFAULT_DELIVERY_GRACE}.
     */
    public Builder deliveryGrace(Duration grace) {
      Objects.requireNonNull(grace, "delivery grace == null");
      if (grace.isNegative() || grace.compareTo(MAX_DELIVERY_GRACE) > 0) {
        throw new IllegalArgumentException("Invalid delivery grace: " + grace + " (0 to " + MAX_DELIVERY_GRACE + ")");
      }
      this.deliveryGrace = grace;
      return this;
    }

    /**
     * The most requests served at once; each waiting {@code tools/call} holds a thread, so this
     * bounds how many concurrent calls are answered without queueing. Default {@value #DEFAULT_MAX_REQUEST_THREADS}.
     */
    public Builder maxRequestThreads(int threads) {
      if (threads < 16 || threads > 100_000) {
        throw new IllegalArgumentException("Invalid request threads: " + threads + " (16 to 100000)");
      }
      this.maxRequestThreads = threads;
      return this;
    }

    public Builder serverInfo(String name, String version) {
      this.serverName = Objects.requireNonNull(name, "name == null");
      this.serverVersion = Objects.requireNonNull(version, "version == null");
      return this;
    }

    /** Where ended sessions are remembered; default: this process only (see docs/mcp.md). */
    public Builder sessionRevocations(SessionRevocations revocations) {
      this.sessionRevocations = Objects.requireNonNull(revocations, "revocations == null");
      return this;
    }

    public Builder sessionRegistry(SessionRegistry registry) {
      this.sessionRegistry = Objects.requireNonNull(registry, "registry == null");
      return this;
    }

    public Builder extraRoutes(Consumer<JavalinDefaultRoutingApi> routes) {
      this.extraRoutes = Objects.requireNonNull(routes, "routes == null");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock == null");
      return this;
    }

    /** Answers {@code read_only} calls without an execution where it can (see {@code ReadPath}); default none. */
    public Builder readPath(io.onceport.frontend.gateway.ReadPath reads) {
      this.readPath = Objects.requireNonNull(reads, "reads == null");
      return this;
    }

    public McpConfig build() {
      if (sessionKey == null) {
        throw new IllegalStateException("sessionKey is required (32 bytes)");
      }
      return new McpConfig(this);
    }

    private static Duration positive(Duration d, String what) {
      Objects.requireNonNull(d, what + " == null");
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + d);
      }
      return d;
    }

    private static Duration positiveOrZero(Duration d, String what) {
      Objects.requireNonNull(d, what + " == null");
      if (d.isNegative()) {
        throw new IllegalArgumentException("Invalid " + what + ": " + d);
      }
      return d;
    }
  }
}
