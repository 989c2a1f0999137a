package io.onceport.app.bench;

import io.onceport.app.demo.DemoTarget;
import io.onceport.app.engine.EmbeddedEngine;
import java.io.IOException;

/**
 * The world outside the gateway in a JVM of its own for {@code onceport bench}: the embedded engine
 * (which keeps every history in memory) and the demo target (which keeps every release and its
 * ledger), so the gateway's memory is measured apart from theirs, and their CPU is counted per call
 * like everyone else's. Prints {@code engine listening on PORT} and {@code target listening on
 * PORT}; exits when its stdin closes (the bench's lifeline) or on a signal.
 */
public final class EngineChild {
  static final String READY = "engine listening on ";
  static final String TARGET_READY = "target listening on ";

  private EngineChild() {}

  public static void main(String[] args) throws IOException {
    io.onceport.shared.net.JdkHttpServers.noDelay(); // the demo target's keep-alive answers, without Nagle's wait
    EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
    DemoTarget target = DemoTarget.start("127.0.0.1", 0);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      target.close();
      engine.close();
    }, "bench-engine-stop"));
    System.out.println(TARGET_READY + target.port());
    System.out.println(READY + engine.port());
    System.out.flush();
    while (System.in.read() != -1) {
      // wait for EOF
    }
    System.exit(0); // the shutdown hook stops the engine

  }
}
