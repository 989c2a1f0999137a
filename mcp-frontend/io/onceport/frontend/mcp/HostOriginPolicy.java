package io.onceport.frontend.mcp;

import java.net.InetAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Which {@code Host} and {@code Origin} headers a listener answers — on every route of it, not only
 * {@code /mcp}: {@code /metrics}, {@code /readyz}, {@code /healthz} and {@code /codec/*} too.
 *
 * <p>Why Host: a web page can make its own domain resolve to 127.0.0.1 (DNS rebinding) and then
 * read what the listener answers, as same-origin. Checking that {@code Host} names this server
 * defeats that. On loopback the names are known ({@code localhost}, {@code 127.0.0.1},
 * {@code [::1]}); on any other address they are not, so a listener there must be told the names
 * clients use ({@code --allowed-host}); it refuses to start otherwise. Why Origin: a browser sends
 * it on cross-site requests; only loopback origins and the configured ones are served.
 */
public final class HostOriginPolicy {
  static final List<String> LOOPBACK_HOSTS = List.of("localhost", "127.0.0.1", "[::1]");

  /** Null: any Host (only for {@link #lenient} listeners off loopback without a list). */
  private final List<String> hosts;
  private final List<String> origins;
  private final boolean loopbackOrigins;

  private HostOriginPolicy(List<String> hosts, List<String> origins, boolean loopbackOrigins) {
    this.hosts = hosts;
    this.origins = List.copyOf(origins);
    this.loopbackOrigins = loopbackOrigins;
  }

  /**
   * The policy of a listener on {@code listenHost}.
   *
   * @param allowedHosts host names (without port) clients put in {@code Host}; empty means the
   *     loopback names, which is only allowed when {@code listenHost} is a loopback address
   * @throws IllegalArgumentException when listening off loopback without allowed hosts
   */
  public static HostOriginPolicy forListener(
      String listenHost, List<String> allowedHosts, List<String> allowedOrigins, boolean allowLoopbackOrigins) {
    Objects.requireNonNull(listenHost, "listenHost == null");
    if (allowedHosts.isEmpty() && !isLoopback(listenHost)) {
      throw new IllegalArgumentException("listening on " + listenHost + ", which is not a loopback address, needs the host "
          + "names clients use (--allowed-host NAME, repeatable): without them any web page could reach this listener "
          + "through DNS rebinding");
    }
    return new HostOriginPolicy(allowedHosts.isEmpty() ? LOOPBACK_HOSTS : normalize(allowedHosts), allowedOrigins,
        allowLoopbackOrigins);
  }

  /**
   * As {@link #forListener}, except that a listener off loopback without allowed hosts accepts any
   * {@code Host}: for a worker's metrics listener, which serves nothing but metrics and health.
   */
  public static HostOriginPolicy lenient(String listenHost, List<String> allowedHosts) {
    if (allowedHosts.isEmpty() && !isLoopback(listenHost)) {
      return new HostOriginPolicy(null, List.of(), true);
    }
    return forListener(listenHost, allowedHosts, List.of(), true);
  }

  /** Lower case, IPv6 literals in brackets, as {@link #hostName} reports a Host header. */
  static List<String> normalize(List<String> hosts) {
    return hosts.stream().map(h -> {
      String n = h.trim().toLowerCase(Locale.ROOT);
      return n.contains(":") && !n.startsWith("[") ? "[" + n + "]" : n;
    }).toList();
  }

  /** Why a request with this {@code Host} header is refused (HTTP 403), or null when it is served. */
  public String hostProblem(String hostHeader) {
    if (hosts == null) {
      return null;
    }
    String host = hostName(hostHeader);
    return host != null && hosts.contains(host) ? null : "Forbidden: host " + hostHeader + " is not allowed";
  }

  /**
   * Why a request with this {@code Origin} header is refused (HTTP 403), or null when it is served
   * (no Origin, a loopback origin, a configured one, or one of {@code alsoAllowed}).
   */
  public String originProblem(String origin, Collection<String> alsoAllowed) {
    if (origin == null || origins.contains(origin) || alsoAllowed.contains(origin)
        || (loopbackOrigins && isLoopbackOrigin(origin))) {
      return null;
    }
    return "Forbidden: origin " + origin + " is not allowed";
  }

  /** The host part of a Host header, lower case, IPv6 kept in brackets; null when malformed. */
  static String hostName(String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String h = header.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? null : h.substring(0, end + 1);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  static boolean isLoopbackOrigin(String origin) {
    try {
      URI u = new URI(origin);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      String host = u.getHost() == null ? "" : u.getHost().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        return false;
      }
      if (u.getRawPath() != null && !u.getRawPath().isEmpty()) {
        return false;
      }
      return host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]");
    } catch (Exception e) {
      return false;
    }
  }

  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (Exception e) {
      return false;
    }
  }
}
