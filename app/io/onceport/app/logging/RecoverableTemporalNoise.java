package io.onceport.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import io.onceport.workflow.ErrorTypes;
import java.util.List;

/**
 * Drops the Temporal SDK's log lines about an {@code UnhandledCommand} rejection (with their stack
 * traces). The server rejects a workflow task completion when a signal or update arrived while the
 * task ran — every attached retry can cause one — and the SDK simply runs the task again; its own
 * handler calls the error "likely recoverable". Logged at WARN with a full trace, it reads like a
 * failure on every ordinary retry. Likewise the SDK's "Activity failure" trace for a send that
 * reported one of the channel facts the replay policy acts on ({@code NotSent}, {@code
 * OutcomeUnknown}): the workflow logs the fact and its next step, and the record and the journal keep
 * it, so the trace repeats what is already said. Anything else from the SDK passes.
 */
public final class RecoverableTemporalNoise extends Filter<ILoggingEvent> {
  static final String MARK = "UnhandledCommand";
  static final String APPLICATION_FAILURE = "io.temporal.failure.ApplicationFailure";
  static final List<String> REPORTED_FACTS = List.of(
      "type='" + ErrorTypes.NOT_SENT + "'", "type='" + ErrorTypes.OUTCOME_UNKNOWN + "'");

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
    IThrowableProxy thrown = event.getThrowableProxy();
    if (thrown != null && APPLICATION_FAILURE.equals(thrown.getClassName()) && thrown.getMessage() != null
        && REPORTED_FACTS.stream().anyMatch(thrown.getMessage()::contains)) {
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }
}
