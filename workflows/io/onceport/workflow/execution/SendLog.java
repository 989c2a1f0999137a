package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.replay.ReplayPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every send of the request and every status query, in order, with the counters the {@link
 * ReplayPolicy} decides on: sends that may have reached the target, retries of requests provably
 * not sent, status queries since the last send, sends whose outcome is still uncertain, and when
 * the last send ended (a "not executed" answer proves nothing before the contract's settle time).
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE)
final class SendLog {
  private final List<ExecutionRecord.Send> sends = new ArrayList<>();
  private final List<ExecutionRecord.StatusCheck> statusChecks = new ArrayList<>();
  private int notSentRetries;
  private int statusChecksSinceSend;
  private int uncertain;
  private long lastEndedMillis;
  /** Whether this run began a send (sends the journal proves for earlier runs are only added before that). */
  private boolean begun;

  /** A send begins; returns its attempt number (1 for the first, one more than the last send's). */
  int begin() {
    statusChecksSinceSend = 0;
    begun = true;
    return sends.isEmpty() ? 1 : sends.get(sends.size() - 1).attempt() + 1;
  }

  /** Whether this run began a send of its own. */
  boolean begun() {
    return begun;
  }

  void ended(long millis) {
    lastEndedMillis = millis;
  }

  void add(ExecutionRecord.Send send) {
    sends.add(send);
  }

  void retryingNotSent() {
    notSentRetries++;
  }

  void uncertain() {
    uncertain++;
  }

  /** Proof that no send under this key acted: nothing uncertain remains. */
  void provedNotActed() {
    uncertain = 0;
  }

  boolean anyUncertain() {
    return uncertain > 0;
  }

  void statusQueried() {
    statusChecksSinceSend++;
  }

  /** Adds a status check; returns how many there are (the attempt of its journal entry). */
  int checked(ExecutionRecord.StatusCheck check) {
    statusChecks.add(check);
    return statusChecks.size();
  }

  int size() {
    return sends.size();
  }

  /** What the replay policy decides on, now. */
  ReplayPolicy.Situation situation(ToolContract contract, long nowMillis, boolean succeeded) {
    int mayHaveReached = 0;
    for (ExecutionRecord.Send s : sends) {
      if (s.mayHaveReachedTarget()) {
        mayHaveReached++;
      }
    }
    long since = sends.isEmpty() ? 0 : Math.max(0, nowMillis - lastEndedMillis);
    return new ReplayPolicy.Situation(mayHaveReached, notSentRetries, statusChecksSinceSend, uncertain, since,
        contract.settleMillis(), contract.requestTimeoutMillis(), succeeded);
  }

  /** The policy's decision after the last send, written on that send once. */
  void decided(ReplayPolicy.Step step) {
    if (sends.isEmpty()) {
      return;
    }
    int last = sends.size() - 1;
    ExecutionRecord.Send s = sends.get(last);
    if (s.decision() == null) {
      sends.set(last, new ExecutionRecord.Send(s.attempt(), s.key(), s.startedAt(), s.endedAt(), s.observed(), s.status(),
          s.detail(), step.action().name().toLowerCase(Locale.ROOT)));
    }
  }

  List<ExecutionRecord.Send> sends() {
    return sends;
  }

  List<ExecutionRecord.StatusCheck> statusChecks() {
    return statusChecks;
  }
}
