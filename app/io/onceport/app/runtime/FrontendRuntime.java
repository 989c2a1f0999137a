package io.onceport.app.runtime;

import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.auth.TargetPolicy;
import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.activity.http.HttpChannel;
import io.onceport.shared.codec.KeyRing;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.auth.Authenticator;
import io.onceport.frontend.auth.CredentialWatcher;
import io.onceport.frontend.auth.oauth.OAuthAuthenticator;
import io.onceport.frontend.auth.oauth.ProtectedResourceMetadata;
import io.onceport.app.codec.CodecServer;
import io.onceport.app.codec.CodecSignIn;
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
import io.onceport.frontend.ops.Readiness;
import io.onceport.frontend.ops.ReadyGateway;
import io.onceport.shared.cli.CommandName;
import io.onceport.frontend.read.DirectReads;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.temporal.TemporalExecutionGateway;
import io.onceport.frontend.temporal.TemporalSessionRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.slf4j.LoggerFactory;

/**
 * The front-end role: authenticates agents, prepares calls and attaches them to executions over
 * Temporal; serves the codec server, {@code /metrics}, {@code /healthz} and {@code /readyz} on the
 * same listener. Holds nothing that matters in memory: sessions are signed tokens, executions live
 * in Temporal, so any number of front ends can serve the same agents.
 */
public final class FrontendRuntime implements AutoCloseable {
  private final McpServer server;
  private final TemporalExecutionGateway gateway;
  private final Readiness readiness;
  private final ReviewsGauge reviews;
  private final CredentialWatcher credentials;

  private FrontendRuntime(McpServer server, TemporalExecutionGateway gateway, Readiness readiness,
      ReviewsGauge reviews, CredentialWatcher credentials) {
    this.server = server;
    this.gateway = gateway;
    this.readiness = readiness;
    this.reviews = reviews;
    this.credentials = credentials;
  }

  public static FrontendRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, ContractSet contracts, FrontendSettings settings,
      Metrics metrics) {
    return start(connection, taskQueue, dataDir, contracts, settings, metrics, ReadAccess.NONE);
  }

  /**
   * What this process holds that the read path may use ({@link DirectReads}): {@code serve} passes
   * the worker's vault and journal, a frontend-only process passes {@link #NONE} (its credentialed
   * reads then take the durable path, where a worker resolves the credential).
   *
   * @param vault may be null
   * @param journal may be null
   */
  public record ReadAccess(io.onceport.activity.vault.VaultService vault, DirectReads.ReadJournal journal) {
    public static final ReadAccess NONE = new ReadAccess(null, null);
  }

  /** As {@link #start(TemporalConnection, String, Path, ContractSet, FrontendSettings, Metrics)}, with what reads may use. */
  public static FrontendRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, ContractSet contracts, FrontendSettings settings,
      Metrics metrics, ReadAccess access) {
    java.util.Objects.requireNonNull(access, "access == null");
    FingerprintKey key = fingerprintKey(dataDir);
    Fingerprinter fingerprinter = new Fingerprinter(key);
    ContractCallPreparation preparation =
        new ContractCallPreparation(contracts, new ArgumentValidator(), fingerprinter, settings.sessionPolicy());
    ReviewsGauge reviews = new ReviewsGauge(connection);
    ExecutionDirectory directory = new ExecutionDirectory(connection, reviews::remembered);
    TemporalExecutionGateway gateway = new TemporalExecutionGateway(
        connection, directory, taskQueue, preparation, frontEndId(), metrics, InProcessAnswers.of(taskQueue));
    AgentRegistry agents = new AgentRegistry(dataDir);
    Readiness readiness = new Readiness(checks(connection, taskQueue, dataDir, contracts));
    // The codec server answers operators only: a browser signed in with a one-time link (CodecSignIn),
    // or a codec token derived from an operator key (OperatorRegistry); agent tokens are never accepted.
    // Its /decode shows plain payloads as they are.
    OperatorRegistry operators = new OperatorRegistry(dataDir);
    CodecServer codec = new CodecServer(AesGcmPayloadCodec.forDisplay(KeyRing.loadOrCreate(dataDir)),
        token -> operators.authenticateCodecToken(token).isPresent(), settings.codecUiOrigins(), CodecServer.DEFAULT_PREFIX,
        CodecSignIn.forDataDir(dataDir));
    OpsRoutes ops = new OpsRoutes(metrics, readiness);
    McpServer[] bound = new McpServer[1];
    OAuthAuthenticator oauth = oauth(settings, agents, bound);
    McpConfig config = McpConfig.newBuilder()
        .listenHost(settings.listen().host()).listenPort(settings.listen().port())
        .allowAnonymous(settings.allowAnonymous())
        .allowedOrigins(settings.allowedOrigins())
        .allowedHosts(settings.allowedHosts())
        .extraRouteOrigins(settings.codecUiOrigins())
        .callWait(settings.callWait())
        .deliveryGrace(settings.deliveryGrace())
        .agentLimits(settings.agentLimits())
        .sessionKey(sessionKey(key))
        .sessionRegistry(new TemporalSessionRegistry(connection.client(), taskQueue, sessionWorkflowIds(key)))
        .readPath(readPath(connection, taskQueue, key, contracts, settings, metrics, access))
        .tracing(connection.tracing())
        .extraRoutes(routes -> {
          codec.register(routes);
          ops.register(routes);
          if (oauth != null) {
            new ProtectedResourceMetadata(oauth).register(routes);
          }
        })
        .build();
    McpServer server = new McpServer(config, new ReadyGateway(gateway, readiness),
        oauth != null ? oauth : agents.authenticator()).start();
    bound[0] = server;
    return new FrontendRuntime(server, gateway, readiness, reviews.start(metrics, directory::hasVisibility), watchCredentials(agents, server));
  }

  /** `agent remove` (in any process on this data dir) ends the removed credential's waits, streams and sessions here at once. */
  private static CredentialWatcher watchCredentials(AgentRegistry agents, McpServer server) {
    return CredentialWatcher.start(agents, (actor, generation) -> {
      int ended = server.credentialRemoved(actor, generation, "the agent's credential was removed (onceport agent remove)");
      LoggerFactory.getLogger(FrontendRuntime.class).info("{}'s credential {} was removed: {} wait(s) ended, its sessions ended",
          actor, generation, ended);
    });
  }

  /**
   * What a call needs, each a {@code /readyz} check: Temporal answers, the namespace exists, the
   * search attributes are registered, a worker polls the task queue, the payload keys load, and
   * there are contracts to call.
   */
  static HealthChecks checks(TemporalConnection connection, String taskQueue, Path dataDir, ContractSet contracts) {
    EngineReadiness engine = new EngineReadiness(connection, taskQueue);
    return new HealthChecks()
        .add("temporal", HealthChecks.temporalReachable(connection.stubs()))
        .addVerdict("namespace", "temporal", engine::namespace)
        .addVerdict("search_attributes", "temporal", engine::searchAttributes)
        .addVerdict("worker", "temporal", engine::workerPolling)
        .addVerdict("payload_keys", () -> payloadKeys(dataDir))
        .addVerdict("contracts", () -> contracts.size() > 0 ? HealthChecks.Verdict.OK : HealthChecks.Verdict.blocking(
            "no tool contracts loaded (see --contracts DIR)", null));
  }

  /** The payload keys load (a front end encrypts every call's input with them). */
  private static HealthChecks.Verdict payloadKeys(Path dataDir) {
    try {
      KeyRing.load(dataDir);
      return HealthChecks.Verdict.OK;
    } catch (IllegalStateException e) {
      return HealthChecks.Verdict.blocking(e.getMessage(), "copy the keys directory "
          + KeyRing.directory(dataDir).toAbsolutePath().normalize() + " from the gateway's data dir (or start the first "
          + CommandName.command("serve") + " there)");
    }
  }

  private static FingerprintKey fingerprintKey(Path dataDir) {
    try {
      return FingerprintKey.loadOrCreate(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the fingerprint key under " + dataDir + ": " + e.getMessage(), e);
    }
  }

  /** The read path with this process's own ladder: the same rungs as a worker's, with the vault it holds (or none). */
  private static DirectReads readPath(TemporalConnection connection, String taskQueue, FingerprintKey key,
      ContractSet contracts, FrontendSettings settings, Metrics metrics, ReadAccess access) {
    String policy = settings.sessionPolicy() == null ? SessionAuthorities.OPERATOR : settings.sessionPolicy();
    SessionAuthority auto = SessionAuthority.auto();
    SessionAuthority operator = SessionAuthorities.forPolicy(SessionAuthorities.OPERATOR, connection.client(), taskQueue,
        sessionWorkflowIds(key));
    AuthorizationActivitiesImpl ladder = new AuthorizationActivitiesImpl(access.vault(),
        SessionAuthorities.AUTO.equals(policy) ? auto : operator, java.time.Duration.ofMinutes(15), TargetPolicy.allowAll(),
        p -> SessionAuthorities.AUTO.equals(p) ? auto : operator);
    return new DirectReads(contracts, new ArgumentValidator(), ladder,
        new HttpReadChannel(HttpChannel.forReads(), access.vault() == null ? CredentialResolver.NONE : access.vault()),
        settings.callWait(), policy,
        metrics, access.journal());
  }

  /** Session workflow ids keyed with the fingerprint key: an agent cannot compute its session's workflow id. */
  public static io.onceport.workflow.session.SessionWorkflowIds sessionWorkflowIds(FingerprintKey key) {
    return io.onceport.workflow.session.SessionWorkflowIds.keyed(key::hmac);
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

  /**
   * The OAuth resource server of {@code settings}, or null. Without a configured resource URI it is
   * the loopback listener's {@code http://HOST:PORT/mcp}, read from {@code bound[0]} once it listens.
   */
  private static OAuthAuthenticator oauth(FrontendSettings settings, AgentRegistry agents, McpServer[] bound) {
    if (settings.oauth() == null) {
      return null;
    }
    if (settings.oauth().resource() == null && !settings.listen().isLoopback()) {
      throw new IllegalArgumentException("listening on " + settings.listen() + " with OAuth needs the canonical resource URI "
          + "clients reach this server at (auth.resource / --auth-resource, e.g. https://mcp.example.com/mcp)");
    }
    return new OAuthAuthenticator(settings.oauth(), agents.authenticator(),
        () -> bound[0] == null ? null : URI.create("http://" + urlHost(settings.listen().host()) + ":" + bound[0].port() + "/mcp"));
  }

  private static String urlHost(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }

  static String frontEndId() {
    return "frontend:" + ManagementFactory.getRuntimeMXBean().getName();
  }

  /** The long waits {@code actor} has on this front end now (see {@link McpServer#longWaits}). */
  public int longWaits(String actor) {
    return server.longWaits(actor);
  }

  public int port() {
    return server.port();
  }

  /**
   * Evaluates readiness until it is ready or {@code within} has passed (a worker started with
   * this front end polls within moments), and returns the last report: what the start-up line says.
   */
  public HealthChecks.Report awaitReady(java.time.Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    HealthChecks.Report report = readiness.evaluate();
    while (!report.ready() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      report = readiness.evaluate();
    }
    return report;
  }

  /** What {@code /readyz} reports and calls are gated on. */
  public Readiness readiness() {
    return readiness;
  }

  public TemporalExecutionGateway gateway() {
    return gateway;
  }

  @Override
  public void close() {
    credentials.close();
    reviews.close();
    server.stop();
    gateway.close(); // sends the evidence and delivery reports still owed to runs
  }
}
