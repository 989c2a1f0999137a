package io.onceport.frontend.mcp;

import io.onceport.shared.runtime.FatalErrors;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The front end's Jetty pool, which hands an {@code Error} a job threw to {@link FatalErrors#report}.
 * Jetty's pool catches every {@code Throwable} a job throws, logs "Job failed" and takes the next
 * job: an OutOfMemoryError in a connection's job left the process serving on, half alive.
 */
final class FatalErrorsPool extends QueuedThreadPool {
  FatalErrorsPool(int maxThreads, int minThreads, int idleTimeout) {
    super(maxThreads, minThreads, idleTimeout);
  }

  @Override
  protected void onJobFailure(Throwable failure) {
    Error error = FatalErrors.errorIn(failure);
    if (error != null) {
      FatalErrors.report(error);
    }
    super.onJobFailure(failure);
  }
}
