package io.onceport.app.bench;

import io.onceport.app.demo.DemoTarget;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.shared.net.JdkHttpServers;
import java.io.IOException;
import java.util.List;

/**
 * The world outside the gateway in JVMs of their own for {@code onceport bench}: the embedded engine
 * (which keeps every history in memory) and the demo target (which keeps every release and its
 * ledger), each in its own child, so the gateway's memory is measured apart from theirs and each
 * one's CPU is counted only for the subjects that use it (the direct POST and the pass-through do
 * not use the engine). Started with {@code engine}, {@code target} or both; prints {@code engine
 * listening on PORT} and {@code target listening on PORT}; exits when its stdin closes (the bench's
 * lifeline) or on a signal.
 */
public final class EngineChild {
  static final String READY = "engine listening on ";
  static final String TARGET_READY = "target listening on ";
  static final String ENGINE = "engine";
  static final String TARGET = "target";

  private EngineChild() {}

  public static void main(String[] args) throws IOException {
    List<String> roles = args.length == 0 ? List.of(ENGINE, TARGET) : List.of(args);
    JdkHttpServers.noDelay(); // the demo target's keep-alive answers, without Nagle's wait
    EmbeddedEngine engine = roles.contains(ENGINE) ? EmbeddedEngine.start("127.0.0.1", 0) : null;
    DemoTarget target = roles.contains(TARGET) ? DemoTarget.start("127.0.0.1", 0) : null;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (target != null) {
        target.close();
      }
      if (engine != null) {
        engine.close();
      }
    }, "bench-engine-stop"));
    if (target != null) {
      System.out.println(TARGET_READY + target.port());
    }
    if (engine != null) {
      System.out.println(READY + engine.port());
    }
    System.out.flush();
    while (System.in.read() != -1) {
      // wait for EOF
    }
    System.exit(0); // the shutdown hook stops the engine
  }
}
