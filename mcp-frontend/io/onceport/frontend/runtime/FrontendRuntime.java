package io.onceport.frontend.runtime;

import io.onceport.activity.codec.AesGcmPayloadCodec;
import io.onceport.activity.codec.KeyRing;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.codec.CodecServer;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.frontend.gateway.ContractCallPreparation;
import io.onceport.frontend.mcp.McpConfig;
import io.onceport.frontend.mcp.McpServer;
import io.onceport.frontend.ops.HealthChecks;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.ops.OpsRoutes;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.frontend.temporal.TemporalExecutionGateway;
import io.onceport.frontend.temporal.TemporalSessionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The front-end role: authenticates agents, prepares calls and attaches them to executions over
 * Temporal; serves the codec server, {@code /metrics}, {@code /healthz} and {@code /readyz} on the
 * same listener. Holds nothing that matters in memory: sessions are signed tokens, executions live
 * in Temporal, so any number of front ends can serve the same agents.
 */
public final class FrontendRuntime implements AutoCloseable {
  private final McpServer server;
  private final TemporalExecutionGateway gateway;
  private final ScheduledExecutorService reviewsCounter;

  private FrontendRuntime(McpServer server, TemporalExecutionGateway gateway, ScheduledExecutorService reviewsCounter) {
    this.server = server;
    this.gateway = gateway;
    this.reviewsCounter = reviewsCounter;
  }

  public static FrontendRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, ContractSet contracts, FrontendSettings settings,
      Metrics metrics) {
    FingerprintKey key;
    try {
      key = FingerprintKey.loadOrCreate(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the fingerprint key under " + dataDir + ": " + e.getMessage(), e);
    }
    Fingerprinter fingerprinter = new Fingerprinter(key);
    ContractCallPreparation preparation =
        new ContractCallPreparation(contracts, new ArgumentValidator(), fingerprinter, settings.sessionPolicy());
    ExecutionDirectory directory = new ExecutionDirectory(connection);
    TemporalExecutionGateway gateway = new TemporalExecutionGateway(
        connection, directory, taskQueue, preparation, frontEndId(), metrics);
    AgentRegistry agents = new AgentRegistry(dataDir);
    HealthChecks checks = new HealthChecks()
        .add("temporal", HealthChecks.temporalReachable(connection.stubs()))
        .add("contracts", () -> contracts.size() > 0);
    // The codec server answers operators only (a codec token derived from an operator key, see
    // OperatorRegistry); agent tokens are never accepted. Its /decode shows plain payloads as they are.
    OperatorRegistry operators = new OperatorRegistry(dataDir);
    CodecServer codec = new CodecServer(AesGcmPayloadCodec.forDisplay(KeyRing.loadOrCreate(dataDir)),
        token -> !settings.codecAuth() || operators.authenticateCodecToken(token).isPresent(),
        settings.codecUiOrigins(), CodecServer.DEFAULT_PREFIX);
    OpsRoutes ops = new OpsRoutes(metrics, checks);
    McpConfig config = McpConfig.newBuilder()
        .listenHost(settings.listen().host()).listenPort(settings.listen().port())
        .allowAnonymous(settings.allowAnonymous())
        .allowedOrigins(settings.allowedOrigins())
        .allowedHosts(settings.allowedHosts())
        .extraRouteOrigins(settings.codecUiOrigins())
        .callWait(settings.callWait())
        .deliveryGrace(settings.deliveryGrace())
        .sessionKey(sessionKey(key))
        .sessionRegistry(new TemporalSessionRegistry(connection.client(), taskQueue, sessionWorkflowIds(key)))
        .extraRoutes(routes -> {
          codec.register(routes);
          ops.register(routes);
        })
        .build();
    McpServer server = new McpServer(config, gateway, agents::authenticate).start();
    ScheduledExecutorService counter = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-reviews-gauge");
      t.setDaemon(true);
      return t;
    });
    counter.scheduleWithFixedDelay(() -> {
      try {
        metrics.reviewsWaiting(directory.countWaitingForOperators());
      } catch (RuntimeException e) {
        // Temporal unreachable for a moment: keep the last value; /readyz reports reachability.
      }
    }, 1, 15, TimeUnit.SECONDS);
    return new FrontendRuntime(server, gateway, counter);
  }

  /** Session workflow ids keyed with the fingerprint key: an agent cannot compute its session's workflow id. */
  public static io.onceport.activity.session.SessionWorkflowIds sessionWorkflowIds(FingerprintKey key) {
    return io.onceport.activity.session.SessionWorkflowIds.keyed(key::hmac);
  }

  /** The MCP session-signing key, derived from the data directory's fingerprint key. */
  static byte[] sessionKey(FingerprintKey key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(
          key.hmac("onceport/mcp-session-key").getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String frontEndId() {
    return "frontend:" + ManagementFactory.getRuntimeMXBean().getName();
  }

  public int port() {
    return server.port();
  }

  public TemporalExecutionGateway gateway() {
    return gateway;
  }

  @Override
  public void close() {
    reviewsCounter.shutdownNow();
    server.stop();
    gateway.close(); // sends the evidence and delivery reports still owed to runs
  }
}
