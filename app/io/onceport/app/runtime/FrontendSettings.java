package io.onceport.app.runtime;

import io.onceport.frontend.auth.oauth.OAuthSettings;
import io.onceport.frontend.mcp.AgentLimits;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a front end listens and what it accepts.
 *
 * @param sessionPolicy {@code operator|auto}, stamped on every call for the workers' ladder
 * @param codecUiOrigins Temporal UI origins allowed to call the codec server
 * @param codecAuth true when the codec server requires an operator token
 * @param allowedHosts host names accepted in the {@code Host} header on every route; empty means
 *     the loopback names, and is refused when {@code listen} is not a loopback address
 * @param deliveryGrace how long after a final result was written a cancellation of its request still
 *     makes it "not delivered" ({@code --delivery-grace})
 * @param oauth the OAuth resource-server settings ({@code auth:}, {@code --auth-*}; docs/auth.md), or
 *     null when only static agent tokens are accepted
 * @param agentLimits what one agent may hold on this front end ({@code --agent-max-waits},
 *     {@code --agent-max-sessions}, {@code --agent-sessions-per-minute})
 */
public record FrontendSettings(
    HostPort listen, Duration callWait, List<String> allowedOrigins, boolean allowAnonymous, String sessionPolicy,
    List<String> codecUiOrigins, boolean codecAuth, List<String> allowedHosts, Duration deliveryGrace,
    OAuthSettings oauth, AgentLimits agentLimits) {
  public FrontendSettings {
    Objects.requireNonNull(listen, "listen == null");
    Objects.requireNonNull(agentLimits, "agentLimits == null");
    Objects.requireNonNull(callWait, "callWait == null");
    Objects.requireNonNull(deliveryGrace, "deliveryGrace == null");
    allowedOrigins = List.copyOf(allowedOrigins);
    codecUiOrigins = List.copyOf(codecUiOrigins);
    allowedHosts = List.copyOf(allowedHosts);
    if (allowedHosts.isEmpty() && !listen.isLoopback()) {
      throw new IllegalArgumentException("listening on " + listen + ", which is not a loopback address, needs allowed hosts "
          + "(--allowed-host NAME)");
    }
  }

  /** With the default agent limits. */
  public FrontendSettings(HostPort listen, Duration callWait, List<String> allowedOrigins, boolean allowAnonymous,
      String sessionPolicy, List<String> codecUiOrigins, boolean codecAuth, List<String> allowedHosts, Duration deliveryGrace,
      OAuthSettings oauth) {
    this(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth, allowedHosts, deliveryGrace,
        oauth, AgentLimits.DEFAULTS);
  }

  /** These settings with other agent limits. */
  public FrontendSettings withAgentLimits(AgentLimits limits) {
    return new FrontendSettings(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth,
        allowedHosts, deliveryGrace, oauth, limits);
  }

  /** Without OAuth: static agent tokens only. */
  public FrontendSettings(HostPort listen, Duration callWait, List<String> allowedOrigins, boolean allowAnonymous,
      String sessionPolicy, List<String> codecUiOrigins, boolean codecAuth, List<String> allowedHosts, Duration deliveryGrace) {
    this(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth, allowedHosts, deliveryGrace,
        null);
  }

  /** These settings with OAuth access tokens accepted as {@code oauth} says (null: static tokens only). */
  public FrontendSettings withOAuth(OAuthSettings oauth) {
    return new FrontendSettings(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth,
        allowedHosts, deliveryGrace, oauth, agentLimits);
  }

  /** With the default delivery grace. */
  public FrontendSettings(HostPort listen, Duration callWait, List<String> allowedOrigins, boolean allowAnonymous,
      String sessionPolicy, List<String> codecUiOrigins, boolean codecAuth, List<String> allowedHosts) {
    this(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth, allowedHosts,
        io.onceport.frontend.mcp.McpConfig.DEFAULT_DELIVERY_GRACE);
  }

  /** Settings accepting only the loopback host names (listen must be a loopback address), default delivery grace. */
  public FrontendSettings(HostPort listen, Duration callWait, List<String> allowedOrigins, boolean allowAnonymous,
      String sessionPolicy, List<String> codecUiOrigins, boolean codecAuth) {
    this(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth, List.of());
  }

  /** These settings with another delivery grace. */
  public FrontendSettings withDeliveryGrace(Duration grace) {
    return new FrontendSettings(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins, codecAuth,
        allowedHosts, grace, oauth, agentLimits);
  }

  /** These settings with {@code origin} also allowed to call the codec server (no duplicate). */
  public FrontendSettings withCodecUiOrigin(String origin) {
    Objects.requireNonNull(origin, "origin == null");
    if (codecUiOrigins.contains(origin)) {
      return this;
    }
    List<String> origins = new java.util.ArrayList<>(codecUiOrigins);
    origins.add(origin);
    return new FrontendSettings(listen, callWait, allowedOrigins, allowAnonymous, sessionPolicy, origins, codecAuth, allowedHosts,
        deliveryGrace, oauth, agentLimits);
  }

  /** Loopback on a free port, everything else default: for tests and benchmarks. */
  public static FrontendSettings loopback(Duration callWait, String sessionPolicy) {
    return new FrontendSettings(new HostPort("127.0.0.1", 0), callWait, List.of(), false, sessionPolicy, List.of(), true);
  }
}
