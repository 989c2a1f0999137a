package io.onceport.activity.mcp;

import java.io.IOException;

/**
 * Runs the caller's hook once, for {@link HttpUpstream}; remembers its failure so it propagates
 * unchanged through OkHttp (which sees only the {@link IOException} it is carried in).
 */
final class BeforeWrite {
  private final Runnable hook;
  private boolean done;
  private RuntimeException failure;

  BeforeWrite(Runnable hook) {
    this.hook = hook;
  }

  void run() throws IOException {
    if (done) {
      return;
    }
    try {
      hook.run();
      done = true;
    } catch (RuntimeException e) {
      failure = e;
      throw new IOException("beforeWrite failed; nothing sent", e);
    }
  }

  void rethrow() {
    if (failure != null) {
      throw failure;
    }
  }
}
