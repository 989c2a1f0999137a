package io.onceport.frontend.mcp;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.onceport.frontend.auth.Authenticator;
import io.onceport.frontend.gateway.ExecutionGateway;
import io.onceport.shared.runtime.FatalErrors;
import java.net.BindException;
import java.net.InetAddress;
import java.util.Objects;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.LoggerFactory;

/**
 * The MCP endpoint {@code /mcp} (Streamable HTTP: POST, GET, DELETE) on Javalin. Holds no
 * execution state: sessions are signed tokens and every answer comes from the gateway, so any
 * number of these can serve the same clients, and a restart loses nothing but streams in flight
 * (which clients resume with {@code Last-Event-ID}).
 */
public final class McpServer {
  /** Pending connections the listener keeps before it refuses more (the kernel caps it at somaxconn). */
  static final int ACCEPT_QUEUE = 1024;
  private final McpConfig config;
  private final Javalin app;
  private final McpController controller;
  private boolean started;

  public McpServer(McpConfig config, ExecutionGateway gateway, Authenticator authenticator) {
    this.config = Objects.requireNonNull(config, "config == null");
    Objects.requireNonNull(gateway, "gateway == null");
    Objects.requireNonNull(authenticator, "authenticator == null");
    if (config.allowAnonymous() && !isLoopback(config.listenHost())) {
      throw new IllegalArgumentException("anonymous access is only permitted on a loopback address, not "
          + config.listenHost());
    }
    Transport transport = new Transport(config, authenticator); // refuses a listener off loopback without allowed hosts
    this.controller = new McpController(config, gateway, transport);
    StreamableHttp mcp = controller.http();
    this.app = Javalin.create(cfg -> {
      cfg.startup.showJavalinBanner = false;
      cfg.startup.showOldJavalinVersionWarning = false;
      cfg.http.maxRequestSize = 4L * 1024 * 1024;
      // A waiting tools/call holds its thread; a storm of identical calls must all be taken in
      // (and time-stamped on arrival) rather than queue behind a small pool.
      org.eclipse.jetty.util.thread.QueuedThreadPool pool = new FatalErrorsPool(config.maxRequestThreads(), 8, 60_000);
      pool.setName("onceport-mcp");
      cfg.jetty.threadPool = pool;
      cfg.jetty.host = config.listenHost();
      cfg.jetty.port = config.listenPort();
      // Our own connector only to raise the accept queue: the JDK default backlog of 50 resets
      // connections when hundreds of agents (a duplicate storm) connect at once.
      cfg.jetty.addConnector((server, http) -> {
        ServerConnector connector = new ServerConnector(server, new org.eclipse.jetty.server.HttpConnectionFactory(http));
        connector.setHost(config.listenHost());
        connector.setPort(config.listenPort());
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        return connector;
      });
      cfg.routes.before(transport::checkRoute); // every route, /metrics, /readyz, /codec/* and 404s included
      cfg.routes.beforeMatched("/mcp", mcp::before); // Origin, authentication, Accept, Content-Type of /mcp
      cfg.routes.post("/mcp", mcp::post);
      cfg.routes.get("/mcp", mcp::get);
      cfg.routes.delete("/mcp", mcp::delete);
      config.extraRoutes().accept(cfg.routes);
      // Javalin answers an Error in a handler with a 500 and goes on; with FatalErrors installed the process ends.
      cfg.router.javaLangErrorHandler((response, error) -> {
        FatalErrors.report(error);
        response.setStatus(500);
      });
      cfg.routes.exception(McpException.class, McpServer::refuse);
    });
  }

  /** A refused request: its HTTP status, {@code Retry-After} when it may be sent again later, and a JSON-RPC error body. */
  private static void refuse(McpException e, Context ctx) {
    ctx.status(e.httpStatus);
    if (e.retryAfterSeconds > 0) {
      ctx.header("Retry-After", Long.toString(e.retryAfterSeconds));
    }
    ctx.contentType("application/json");
    ctx.result(Json.text(Json.error(e.id, e.code, e.getMessage(), e.data)));
  }

  static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (Exception e) {
      return false;
    }
  }

  /** Binds {@code listenHost:listenPort}; a busy port is a one-line {@link IllegalStateException}. */
  public McpServer start() {
    try {
      app.start();
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof BindException || t.getClass().getSimpleName().equals("JavalinBindException")) {
          throw new IllegalStateException("cannot listen on " + config.listenHost() + ":" + config.listenPort()
              + ": address already in use", e);
        }
      }
      throw new IllegalStateException("cannot listen on " + config.listenHost() + ":" + config.listenPort()
          + ": " + e.getMessage(), e);
    }
    // A tools/call or tasks/result may legitimately be silent for its whole wait; the idle timeout must not cut it.
    long idle = Math.max(config.callWait().toMillis(), config.taskResultWait().toMillis()) + 30_000;
    for (Connector c : app.jettyServer().server().getConnectors()) {
      if (c instanceof ServerConnector sc) {
        sc.setIdleTimeout(idle);
      }
    }
    started = true;
    if (config.allowAnonymous()) {
      LoggerFactory.getLogger(McpServer.class).warn(
          "anonymous access is on: requests without a bearer token act as 'anonymous' (loopback only)");
    }
    return this;
  }

  /**
   * {@code actor}'s credential {@code generation} was removed (or replaced by a new token): every
   * wait and stream it has on this front end ends now — connection closed, nothing more answered —
   * and the sessions it opened here are ended. The {@code CredentialWatcher} calls this for a
   * change of {@code agents.json} made by any process. Returns how many waits ended.
   *
   * @throws IllegalStateException when one of its sessions could not be ended (the engine was
   *     busy or unreachable); the rest was done, and calling again finishes it
   */
  public int credentialRemoved(String actor, String generation, String reason) {
    return controller.credentialRemoved(actor, generation, reason);
  }

  /** The long waits (held {@code tools/call}s, streams, {@code tasks/result}s) {@code actor} has on this front end now. */
  public int longWaits(String actor) {
    return controller.longWaits(actor);
  }

  /** The bound port (useful with port 0). */
  public int port() {
    return app.port();
  }

  public void stop() {
    if (started) {
      app.stop();
      started = false;
    }
    controller.close();
  }
}
