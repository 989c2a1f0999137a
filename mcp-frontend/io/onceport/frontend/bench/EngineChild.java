package io.onceport.frontend.bench;

import io.onceport.frontend.temporal.EmbeddedEngine;
import java.io.IOException;

/**
 * The embedded engine in a JVM of its own for {@code onceport bench}, so the gateway's memory is
 * measured apart from the engine's (which keeps every history in memory) and the engine's CPU is
 * counted per call like everyone else's. Prints {@code engine listening on PORT}; exits when its
 * stdin closes (the bench's lifeline) or on a signal.
 */
public final class EngineChild {
  static final String READY = "engine listening on ";

  private EngineChild() {}

  public static void main(String[] args) throws IOException {
    EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
    Runtime.getRuntime().addShutdownHook(new Thread(engine::close, "bench-engine-stop"));
    System.out.println(READY + engine.port());
    System.out.flush();
    while (System.in.read() != -1) {
      // wait for EOF
    }
    System.exit(0); // the shutdown hook stops the engine

  }
}
