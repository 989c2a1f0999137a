package io.onceport.frontend.ops;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Drops the Temporal SDK's log lines about an {@code UnhandledCommand} rejection (with their stack
 * traces). The server rejects a workflow task completion when a signal or update arrived while the
 * task ran — every attached retry can cause one — and the SDK simply runs the task again; its own
 * handler calls the error "likely recoverable". Logged at WARN with a full trace, it reads like a
 * failure on every ordinary retry. Anything else from the SDK passes.
 */
public final class RecoverableTemporalNoise extends Filter<ILoggingEvent> {
  static final String MARK = "UnhandledCommand";

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (!event.getLoggerName().startsWith("io.temporal.")) {
      return FilterReply.NEUTRAL;
    }
    if (event.getFormattedMessage() != null && event.getFormattedMessage().contains(MARK)) {
      return FilterReply.DENY;
    }
    for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(MARK)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
