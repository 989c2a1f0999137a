package io.onceport.frontend.runtime;

import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.frontend.gateway.ContractCallPreparation;
import io.onceport.frontend.mcp.McpConfig;
import io.onceport.frontend.mcp.McpServer;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.frontend.temporal.TemporalExecutionGateway;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The front-end role: authenticates agents, prepares calls and attaches them to executions over
 * Temporal. Holds nothing that matters in memory: sessions are signed tokens, executions live in
 * Temporal, so any number of front ends can serve the same agents.
 */
public final class FrontendRuntime implements AutoCloseable {
  private final McpServer server;
  private final TemporalExecutionGateway gateway;

  private FrontendRuntime(McpServer server, TemporalExecutionGateway gateway) {
    this.server = server;
    this.gateway = gateway;
  }

  public static FrontendRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, ContractSet contracts, McpConfig.Builder config) {
    FingerprintKey key;
    try {
      key = FingerprintKey.loadOrCreate(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the fingerprint key under " + dataDir + ": " + e.getMessage(), e);
    }
    Fingerprinter fingerprinter = new Fingerprinter(key);
    ContractCallPreparation preparation = new ContractCallPreparation(contracts, new ArgumentValidator(), fingerprinter);
    TemporalExecutionGateway gateway = new TemporalExecutionGateway(
        connection, new ExecutionDirectory(connection), taskQueue, preparation, frontEndId());
    AgentRegistry agents = new AgentRegistry(dataDir);
    McpServer server = new McpServer(config.sessionKey(sessionKey(key)).build(), gateway, agents::authenticate).start();
    return new FrontendRuntime(server, gateway);
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
    server.stop();
  }
}
