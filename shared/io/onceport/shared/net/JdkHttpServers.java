package io.onceport.shared.net;

/**
 * The JDK's own HTTP server ({@code com.sun.net.httpserver}: the demo target, the soak's counting
 * target, the metrics endpoint) leaves Nagle's algorithm on for the connections it accepts unless
 * {@value #NO_DELAY} is {@code true}. On a keep-alive connection its small writes then wait for the
 * client's delayed ACK, up to 40 ms on Linux: measured with {@code onceport bench} (2026-12-06),
 * the bare Temporal baseline's POSTs to the demo target over OkHttp's kept-alive connections made
 * its C=1 median 52.6 ms; with TCP_NODELAY, 10.3 ms. The server reads the property once per JVM,
 * when its first server is created, so entry points call {@link #noDelay()} before anything else.
 */
public final class JdkHttpServers {
  public static final String NO_DELAY = "sun.net.httpserver.nodelay";

  private JdkHttpServers() {}

  /** TCP_NODELAY for the JDK HTTP server's connections, unless the JVM was given a value of its own. */
  public static void noDelay() {
    if (System.getProperty(NO_DELAY) == null) {
      System.setProperty(NO_DELAY, "true");
    }
  }
}
