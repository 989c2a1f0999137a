package io.onceport.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.shared.codec.Payloads;
import io.onceport.activity.vault.VaultException;
import io.onceport.activity.vault.VaultService;
import io.onceport.app.logging.LogFormat;
import io.onceport.frontend.ops.Metrics;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.HostPort;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.temporal.connect.ClientSettings;
import io.onceport.app.runtime.TracingSetup;
import io.onceport.shared.trace.Tracing;
import io.onceport.shared.temporal.connect.TemporalConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import io.onceport.frontend.mcp.AgentLimits;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Options shared by {@code serve}, {@code worker} and {@code frontend}, as picocli mixins. */
final class RoleOptions {
  private RoleOptions() {}

  /**
   * Every role: Temporal, namespace and data dir (the shared {@link TemporalOptions}), task queue,
   * session policy, payload encryption, log format.
   */
  static final class Common {
    @Mixin TemporalOptions temporal;

    @Option(names = "--task-queue", defaultValue = "onceport", description = "Temporal task queue (default: ${DEFAULT-VALUE}).")
    String taskQueue;

    @Option(names = "--session-authorization", paramLabel = "operator|auto", defaultValue = "operator",
        description = "How a new agent session is authorized: 'operator' waits for `onceport sessions authorize`, "
            + "'auto' allows it (default: ${DEFAULT-VALUE}). Front ends stamp it on each call; workers apply it.")
    String sessionAuthorization;

    @Option(names = "--payload-encryption", paramLabel = "on|off", defaultValue = "on",
        description = "Encrypt workflow payloads (arguments, target responses) with AES-256-GCM keys from "
            + "DATA/keys/payload (default: ${DEFAULT-VALUE}). Every process of one deployment must share the keys.")
    String payloadEncryption;

    @Option(names = "--log-format", paramLabel = "text|json", defaultValue = "${env:ONCEPORT_LOG_FORMAT:-text}",
        description = "Log format on stderr (default: $ONCEPORT_LOG_FORMAT or text).")
    String logFormat;

    void validate() throws Exception {
      if (!sessionAuthorization.equals("operator") && !sessionAuthorization.equals("auto")) {
        throw new CliException("--session-authorization must be 'operator' or 'auto', not '" + sessionAuthorization + "'");
      }
      if (!payloadEncryption.equals("on") && !payloadEncryption.equals("off")) {
        throw new CliException("--payload-encryption must be 'on' or 'off', not '" + payloadEncryption + "'");
      }
      if (!logFormat.equals("text") && !logFormat.equals("json")) {
        throw new CliException("--log-format must be 'text' or 'json', not '" + logFormat + "'");
      }
      LogFormat.use(logFormat);
      io.onceport.shared.files.PrivateFiles.createDirectories(data()); // 0700 when created here, whatever the umask
    }

    Path data() {
      return temporal.data();
    }

    String namespace() {
      return temporal.namespace();
    }

    private TracingSetup tracing;

    /**
     * Tracing for this role from the {@code OTEL_*} variables (off unless an exporter is set), added
     * to {@code running} so that buffered spans are flushed when the process stops; the connections
     * made after this trace with it.
     */
    void startTracing(String role, List<AutoCloseable> running) {
      tracing = TracingSetup.fromEnvironment(role, System.getenv());
      running.add(tracing);
      if (tracing.tracing().enabled()) {
        LoggerFactory.getLogger("io.onceport." + role).info("tracing: spans go to {}", TracingSetup.describe(System.getenv()));
      }
    }

    /** The cluster's settings: every source in order of precedence (see {@link TemporalOptions}). */
    ClientSettings settings() {
      return temporal.settings();
    }

    /**
     * Connects with {@code settings}; a failure is a {@link CliException} whose cause is the
     * {@link TemporalConnectException} (retryable or a setting to fix).
     */
    TemporalConnection connect(ClientSettings settings, boolean embeddedEngine, Metrics metrics) {
      try {
        HostPort.parse(settings.address().value());
      } catch (IllegalArgumentException e) {
        throw new CliException(settings.address().source() + ": " + e.getMessage());
      }
      try {
        return TemporalConnection.connect(settings, embeddedEngine, Payloads.dataConverter(payloadEncryption.equals("on"), data()),
            Duration.ofSeconds(10), metrics.metricsScope(), List.of(), tracing == null ? Tracing.OFF : tracing.tracing());
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage(), e);
      }
    }
  }

  /**
   * Connects as {@link Common#connect} does, but keeps retrying an unreachable Temporal with
   * exponential backoff (1 s doubling to 15 s between attempts) and logs every failed attempt:
   * a worker or front end started before its engine, or under load, waits for it instead of
   * exiting. Returns once connected; only stopping the process ends the wait. A setting to fix
   * (a wrong CA, a missing client certificate, TLS on or off, a refused API key) is not retried:
   * it fails at once with its one-line error.
   */
  static TemporalConnection connectRetrying(Common common, ClientSettings settings, boolean embeddedEngine, Metrics metrics,
      String role) throws InterruptedException {
    Logger log = LoggerFactory.getLogger("io.onceport." + role);
    long pauseMillis = 1000;
    for (int attempt = 1; ; attempt++) {
      try {
        TemporalConnection c = common.connect(settings, embeddedEngine, metrics);
        if (attempt > 1) {
          log.info("connected to Temporal at {} after {} attempts", settings.address().value(), attempt);
        }
        return c;
      } catch (CliException e) {
        if (!retryable(e)) {
          throw e;
        }
        log.warn("{}; retrying in {} s (attempt {}; the {} keeps trying until it is stopped)",
            e.getMessage(), pauseMillis / 1000.0, attempt, role);
        Thread.sleep(pauseMillis);
        pauseMillis = Math.min(15_000, pauseMillis * 2);
      }
    }
  }

  /** Temporal not answering (yet) — not a setting to fix, which a retry would only repeat. */
  private static boolean retryable(CliException e) {
    if (e.getCause() instanceof TemporalConnectException t) {
      return t.retryable();
    }
    return e.getMessage() != null && e.getMessage().startsWith("cannot reach Temporal");
  }

  /** The worker role: approvals, the vault, journal segments. */
  static final class Worker {
    @Option(names = "--approval-timeout", defaultValue = "PT15M",
        description = "How long an execution waits for an operator's approval before it is rejected (default: ${DEFAULT-VALUE}).")
    Duration approvalTimeout;

    @Option(names = "--passphrase-file", paramLabel = "FILE",
        description = "Vault passphrase file (or set ONCEPORT_VAULT_PASSPHRASE); never on the command line.")
    Path passphraseFile;

    @Option(names = "--journal-writer", paramLabel = "NAME",
        description = "This process's journal segment name (default: the host name). Two workers sharing a data dir need different names.")
    String journalWriter;

    VaultService openVault(Path data) {
      if (approvalTimeout.isNegative() || approvalTimeout.isZero()) {
        throw new CliException("--approval-timeout must be positive");
      }
      try {
        return VaultService.configure(data, passphraseFile, System.getenv());
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      }
    }
  }

  /** {@code --allowed-host} values checked: host names without port, IPv6 literals with or without brackets. */
  static List<String> allowedHosts(List<String> values) {
    List<String> hosts = new ArrayList<>();
    for (String v : values) {
      String h = v == null ? "" : v.strip();
      boolean bracketed = h.startsWith("[") && h.endsWith("]");
      if (h.isEmpty() || h.contains("/") || h.contains(" ") || (!bracketed && h.chars().filter(c -> c == ':').count() == 1)
          || (h.startsWith("[") && !bracketed)) {
        throw new CliException("--allowed-host takes a host name without scheme, port or path (e.g. mcp.example.com), not '" + v + "'");
      }
      hosts.add(h);
    }
    return hosts;
  }

  /** The front-end role: the MCP listener and what it accepts. */
  static final class Frontend {
    @Spec(Spec.Target.MIXEE) CommandSpec spec;

    @Mixin AuthOptions auth;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8765",
        description = "MCP endpoint address (default: ${DEFAULT-VALUE}; loopback unless you mean otherwise).")
    String listen;

    @Option(names = "--contracts", paramLabel = "DIR", defaultValue = "contracts", description = "Tool contracts directory (default: ./${DEFAULT-VALUE}).")
    Path contracts;

    @Option(names = "--call-wait", defaultValue = "PT30S",
        description = "How long tools/call waits for an outcome before answering with the pending state (default: ${DEFAULT-VALUE}).")
    Duration callWait;

    @Option(names = "--delivery-grace", paramLabel = "DURATION", defaultValue = "PT1S",
        description = "How long after a final result was written a notifications/cancelled of its request still makes it "
            + "'not delivered' (the client's timeout raced the answer); delivery is recorded after it (default: ${DEFAULT-VALUE}; PT0S..PT30S).")
    Duration deliveryGrace;

    @Option(names = "--agent-max-waits", paramLabel = "N", defaultValue = "" + AgentLimits.DEFAULT_LONG_WAITS,
        description = "Long waits one agent may hold at once on this front end: tools/call waiting for an outcome or "
            + "streaming it, tasks/result, resumed SSE streams; more answer HTTP 429 with Retry-After (default: ${DEFAULT-VALUE}).")
    int agentMaxWaits;

    @Option(names = "--agent-max-sessions", paramLabel = "N", defaultValue = "" + AgentLimits.DEFAULT_OPEN_SESSIONS,
        description = "Sessions one agent may have open (used in the last 10 minutes) on this front end; a new one over it "
            + "answers HTTP 429 with Retry-After (default: ${DEFAULT-VALUE}).")
    int agentMaxSessions;

    @Option(names = "--agent-sessions-per-minute", paramLabel = "N", defaultValue = "" + AgentLimits.DEFAULT_SESSIONS_PER_MINUTE,
        description = "New sessions (initialize, a new run id) one agent may open per minute on this front end; more answer "
            + "HTTP 429 with Retry-After (default: ${DEFAULT-VALUE}).")
    int agentSessionsPerMinute;

    @Option(names = "--allowed-origin", paramLabel = "ORIGIN", split = ",", description = "An Origin allowed besides loopback origins (repeatable).")
    List<String> allowedOrigins = new ArrayList<>();

    @Option(names = "--allowed-host", paramLabel = "HOST", split = ",",
        description = "A host name clients use to reach this listener (the Host header without port; repeatable). "
            + "Required when --listen is not a loopback address; default: localhost, 127.0.0.1, [::1]. Checked on every "
            + "route (/mcp, /codec, /metrics, /healthz, /readyz) against DNS rebinding.")
    List<String> allowedHosts = new ArrayList<>();

    @Option(names = "--allow-anonymous",
        description = "Accept requests without a bearer token as actor 'anonymous' (loopback only; for conformance testing).")
    boolean allowAnonymous;

    @Option(names = "--codec-ui-origin", paramLabel = "URL", split = ",",
        description = "Temporal UI origin allowed to call the codec server (/codec/encode, /codec/decode) with CORS (repeatable).")
    List<String> codecUiOrigins = new ArrayList<>();

    /**
     * Kept so that scripts passing {@code token} still start. {@code none} is refused: it never let
     * a request without a bearer token through, and an open codec server would decode every payload
     * for whoever reaches the port; an operator signs in once instead ({@code CodecSignIn}).
     */
    @Option(names = "--codec-auth", paramLabel = "token", defaultValue = "token", hidden = true,
        description = "Deprecated: the codec server always needs an operator (a signed-in browser or an operator's codec token).")
    String codecAuth;

    /** The config file's {@code auth:} section, or null. */
    private JsonNode authSection() {
      CommandLine cl = spec == null ? null : spec.commandLine();
      return cl != null && cl.getDefaultValueProvider() instanceof ConfigFile file ? file.section("auth") : null;
    }

    FrontendSettings settings(String sessionPolicy) {
      HostPort mcp = ServeCommand.parse("--listen", listen);
      if (allowAnonymous && !mcp.isLoopback()) {
        throw new CliException("--allow-anonymous is refused unless --listen is a loopback address");
      }
      List<String> hosts = RoleOptions.allowedHosts(allowedHosts);
      if (hosts.isEmpty() && !mcp.isLoopback()) {
        throw new CliException("--listen " + mcp + " is not a loopback address: name the host names clients use to reach it "
            + "with --allowed-host (repeatable, e.g. --allowed-host mcp.example.com); any other Host header is refused");
      }
      if (codecAuth.equals("none")) {
        throw new CliException("--codec-auth none was removed: reaching the port never decodes anything; sign in once with the "
            + "link serve prints, or `onceport operator codec-link` (docs/production.md, \"Codec server\")");
      }
      if (!codecAuth.equals("token")) {
        throw new CliException("--codec-auth must be 'token' (the default), not '" + codecAuth + "'");
      }
      if (callWait.isNegative()) {
        throw new CliException("--call-wait must not be negative");
      }
      if (deliveryGrace.isNegative() || deliveryGrace.compareTo(io.onceport.frontend.mcp.McpConfig.MAX_DELIVERY_GRACE) > 0) {
        throw new CliException("--delivery-grace must be between PT0S and " + io.onceport.frontend.mcp.McpConfig.MAX_DELIVERY_GRACE);
      }
      AgentLimits limits;
      try {
        limits = new AgentLimits(agentMaxWaits, agentMaxSessions, agentSessionsPerMinute);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      }
      return new FrontendSettings(mcp, callWait, allowedOrigins, allowAnonymous, sessionPolicy, codecUiOrigins,
          codecAuth.equals("token"), hosts, deliveryGrace, auth.settings(authSection()), limits);
    }
  }
}
