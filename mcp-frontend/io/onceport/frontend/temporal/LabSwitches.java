package io.onceport.frontend.temporal;

/**
 * Temporary switches (issue 27: every performance mechanism earns its place): each front-end
 * mechanism can be turned off with {@code -Donceport.lab.NAME=false} so the bench measures what it
 * buys on both engines. Read once at class load. To be deleted with the mechanisms that do not pay.
 */
final class LabSwitches {
  private LabSwitches() {}

  /** The in-band answer path (a send hands its record to a caller in this process and takes its delivery report). */
  static final boolean IN_BAND = on("inband");
  /** Identical calls share one attach per intent on this front end. */
  static final boolean FLIGHTS = on("flights");
  /** Waiters of one execution share one awaitChange. */
  static final boolean WATCHES = on("watches");
  /** Evidence and delivery reports batched per run. */
  static final boolean OUTBOX = on("outbox");
  /** Execution locations cached by execution id. */
  static final boolean DIRECTORY_CACHE = on("directory");

  private static boolean on(String name) {
    return Boolean.parseBoolean(System.getProperty("onceport.lab." + name, "true"));
  }
}
