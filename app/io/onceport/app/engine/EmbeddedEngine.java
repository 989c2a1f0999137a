package io.onceport.app.engine;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * The development engine: Temporal's Java test server served over gRPC on a loopback port, so
 * workers, front ends and the CLI in other processes can reach it.
 *
 * <p>Limits (see README): state is in memory and lost when the process exits; there are no
 * visibility queries; sticky task queues never time out, so workers on it must disable sticky
 * execution ({@link TemporalConnection} does when told the engine is embedded). Time skipping is
 * locked: workflow timers run on real time. Its debug ledger of time locks, which grew and was
 * searched on every state change, keeps nothing ({@link TimerLockLedger}).
 */
public final class EmbeddedEngine implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;
  private final String host;

  private EmbeddedEngine(TestServicesStarter services, Server server, String host) {
    this.services = services;
    this.server = server;
    this.host = host;
  }

  /** Starts the engine on {@code host:port} (port 0 picks a free port). */
  public static EmbeddedEngine start(String host, int port) {
    TestServicesStarter services = new TestServicesStarter(true, 0);
    TimerLockLedger.discard(services);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, port));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    Server server = builder.build();
    try {
      server.start();
    } catch (IOException e) {
      services.close();
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      String why = cause instanceof BindException || String.valueOf(cause.getMessage()).contains("in use")
          ? "address already in use (another onceport serve or engine? choose --embedded-port, or --temporal to use a running cluster)"
          : String.valueOf(cause.getMessage());
      throw new IllegalStateException("cannot start the embedded Temporal engine on " + host + ":" + port + ": " + why, e);
    }
    return new EmbeddedEngine(services, server, host);
  }

  public int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  /** {@code host:port} for {@link TemporalConnection#connect}. */
  public String target() {
    return host + ":" + port();
  }

  @Override
  public void close() {
    server.shutdownNow();
    services.close();
  }
}
