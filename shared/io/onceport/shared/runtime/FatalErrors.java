package io.onceport.shared.runtime;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Error} anywhere in a {@code serve} or {@code worker} process ends the process, so that
 * its supervisor (systemd, Kubernetes, compose) starts a whole one instead of it running on half
 * alive. The case that made this necessary: one 1.4 GB line from an upstream threw
 * OutOfMemoryError; on the embedded engine that error also killed the engine's timer thread, and
 * executions waiting on timers never woke — while the process went on answering as if healthy.
 *
 * <p>Two halves. {@link #install} makes the JVM's default uncaught-exception handler fatal for an
 * {@code Error} (logged, then {@link Runtime#halt} with {@link #EXIT_STATUS}: no shutdown hooks,
 * which could block on the broken state; what must survive a crash is fsynced already). Libraries
 * that catch {@code Throwable} on their own threads — the Temporal SDK's activity and workflow task
 * executors, Jetty's thread pool, Javalin's handler dispatch — never let an error reach that
 * handler; the hooks wired for them ({@code FatalErrorInterceptor}, the front end's pool and error
 * handler) hand it over with {@link #report}. OutOfMemoryErrors thrown where neither reaches (gRPC's
 * event loops) are covered by {@code -XX:+ExitOnOutOfMemoryError}, which {@code bin/onceport} and the
 * container image pass to the JVM.
 *
 * <p>{@link #report} goes through {@link Thread#getDefaultUncaughtExceptionHandler()}, the JVM's own
 * hook, rather than a registry of ours: a process that did not install the fatal handler (a test, an
 * embedding application) keeps its own policy.
 */
public final class FatalErrors {
  /** The exit status of a process ended by an error ({@code EX_SOFTWARE} of sysexits.h). */
  public static final int EXIT_STATUS = 70;
  private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);
  /** Thrown by the Temporal SDK into a cached workflow's threads to unwind them on eviction: not a failure. */
  private static final String SDK_THREAD_UNWIND = "io.temporal.internal.sync.DestroyWorkflowThreadError";

  private FatalErrors() {}

  /** Makes an {@code Error} in any thread without its own handler end the process ({@code role} names it in the log). */
  public static void install(String role) {
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
      Error error = errorIn(failure);
      if (error == null) {
        if (previous != null) {
          previous.uncaughtException(thread, failure);
        } else {
          LOG.error("uncaught exception in thread {}", thread.getName(), failure);
        }
        return;
      }
      halt(role, thread, error);
    });
  }

  /**
   * Hands an error a library caught to the default uncaught-exception handler, as if it had ended
   * {@code Thread.currentThread()}: fatal where {@link #install} ran, the JVM's default elsewhere.
   */
  public static void report(Error error) {
    Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
    if (handler != null) {
      handler.uncaughtException(Thread.currentThread(), error);
    }
  }

  /**
   * The {@code Error} that {@code failure} is or wraps (libraries wrap what they catch), or null.
   * The Temporal SDK's own control-flow error, which unwinds an evicted workflow's thread, is not one.
   */
  public static Error errorIn(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof Error e && !e.getClass().getName().equals(SDK_THREAD_UNWIND)) {
        return e;
      }
    }
    return null;
  }

  private static void halt(String role, Thread thread, Error error) {
    try {
      LOG.error("fatal: {} in thread {}: {}; onceport {} exits with status {} for its supervisor to restart it",
          error.getClass().getName(), thread.getName(), error.getMessage(), role, EXIT_STATUS, error);
    } catch (Throwable logging) {
      // Logging may itself fail (no memory left): say it on stderr, then go.
      try {
        System.err.println("onceport " + role + ": fatal: " + error + " in thread " + thread.getName() + "; exiting with status "
            + EXIT_STATUS);
      } catch (Throwable ignored) {
        // nothing more can be said
      }
    } finally {
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_STATUS);
    }
  }
}
