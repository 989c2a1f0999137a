package io.onceport.workflow.replay;

import io.onceport.workflow.contract.ReplayClass;
import java.time.Duration;
import java.util.Objects;

/**
 * The one place that decides whether an action may be sent (again). Channels report facts (not
 * sent; sent, outcome unknown; worker lost; answered; a status verdict); operators report
 * resolutions; this class maps (replay class, fact, counters) to the next {@link Step}; the
 * workflow carries the step out. No other layer — HTTP client, Temporal retry options, front-end
 * retry loops — may decide to send again.
 *
 * <p>Pure: no Temporal calls, no clock, no I/O. Every input is in the arguments, so the table in
 * the README is generated from it ({@link ReplayTable}) and a test fails when the two disagree.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li>A send that provably did not reach the target ({@link Fact#NOT_SENT}) is retried after
 *       backoff for every class, up to {@link Builder#setMaxNotSentRetries}; then the execution
 *       fails as not executed — or goes to review if an earlier send's outcome is still unknown.
 *   <li>{@code read_only} and {@code idempotency_key}: after an unknown outcome or a lost worker
 *       the request is re-sent under the same key (the execution id) with backoff, up to {@link
 *       Builder#setMaxSends} sends in all; then {@code needs_review}.
 *   <li>{@code status_query}: after an unknown outcome the status facility is asked. A
 *       completed/failed verdict settles. A not-executed verdict is proof only when it was
 *       obtained at least {@code settle} after the last send ended (the target can no longer be
 *       working on it); only then is the request re-sent under the same key. An earlier
 *       not-executed verdict, an answer in neither list, "still running" or a failed query mean
 *       "still unknown": poll with backoff within a bounded window, then {@code needs_review}.
 *   <li>{@code irreversible}: never re-sent automatically; an unknown outcome waits in {@code
 *       needs_review} for an operator.
 *   <li>A send the journal says was made before ({@link Fact#SENT_BEFORE}: a reset or replayed
 *       history asked for it again, and nothing was sent now) is an unknown outcome like any other:
 *       status query, same-key re-send where the class allows it (bounded as above), or an operator.
 *   <li>An operator's resolution is final: completed, failed, or redispatch (re-send under the
 *       same key, whatever the class: the operator checked the target).
 *   <li>{@code attach_window: until_verified}: a completed action whose effect a verification check
 *       (at least {@code settle} after the send ended) or an operator found absent is re-sent under
 *       the same key where the class allows re-sends ({@code idempotency_key}, {@code status_query};
 *       bounded by the sends in all), and waits for an operator for {@code irreversible} — never a
 *       second action under a new key.
 * </ul>
 *
 * <p>Long because: it is the one place every send is decided (the rules above); split, the table
 * rendered from it and the exhaustive tests would probe several classes that must agree.
 */
public final class ReplayPolicy {
  /** The policy with the documented defaults. */
  public static final ReplayPolicy DEFAULT = newBuilder().build();

  private final int maxSends;
  private final int maxNotSentRetries;
  private final int maxStatusChecks;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration statusGrace;

  private ReplayPolicy(Builder b) {
    this.maxSends = b.maxSends;
    this.maxNotSentRetries = b.maxNotSentRetries;
    this.maxStatusChecks = b.maxStatusChecks;
    this.initialBackoff = b.initialBackoff;
    this.maxBackoff = b.maxBackoff;
    this.statusGrace = b.statusGrace;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /** What a channel, a status query or an operator reported. */
  public enum Fact {
    /** Nothing has been sent yet: the first decision. */
    NONE,
    /** Provably nothing reached the target (connection refused, DNS, TLS before the request). */
    NOT_SENT,
    /** Request bytes may have reached the target and no answer was observed. */
    OUTCOME_UNKNOWN,
    /** The worker stopped heartbeating mid-send (killed, partitioned): an unknown outcome. */
    WORKER_LOST,
    /**
     * Nothing was sent now: the journal (the durable send ledger outside the workflow history)
     * already holds this send's {@code dispatched} entry, so it was sent before — by a run this one
     * was reset from, or a replayed history — and its outcome is unknown to this run.
     */
    SENT_BEFORE,
    /** The target answered (any status or exit code). */
    ANSWERED,
    /** The request could not be built or authorized at send time (bad template, credential, journal); nothing sent. */
    NOT_DISPATCHABLE,
    /** The status facility says the action ran and succeeded. */
    STATUS_COMPLETED,
    /** The status facility says the action ran and failed. */
    STATUS_FAILED,
    /** The status facility says the action did not run. */
    STATUS_NOT_EXECUTED,
    /** The target says it is still working on it (an SSH marker: started, not finished). */
    STATUS_RUNNING,
    /** Anything else: 202 "processing", a code in neither list, a failed query, "cannot tell". */
    STATUS_OTHER,
    /** An operator resolved it as completed. */
    RESOLVED_COMPLETED,
    /** An operator resolved it as failed. */
    RESOLVED_FAILED,
    /** An operator established it did not run and asked to send it again. */
    RESOLVED_REDISPATCH,
    /**
     * A verification check found the effect of a completed action absent ({@code attach_window:
     * until_verified}, {@code not_applied_when}): the target answered, but what it was to change is
     * unchanged. Not proof that nothing acted; proof that the effect is not there.
     */
    NOT_APPLIED,
    /** An operator established the effect absent ({@code onceport executions verify --not-applied}). */
    RESOLVED_NOT_APPLIED
  }

  /** What happens next. */
  public enum Action {
    /** Send the request (the first time). */
    SEND,
    /** Send it again under the same key (the execution id). */
    RESEND_SAME_KEY,
    /** Send a request that provably did not leave, after {@link Step#delay()}. */
    RETRY_NOT_SENT,
    /** Ask the status facility after {@link Step#delay()} (zero: now). */
    QUERY_STATUS,
    /** Settle as completed. */
    SETTLE_COMPLETED,
    /** Settle as failed (the target answered with a failure, or an operator said so). */
    SETTLE_FAILED,
    /** Fail without having executed anything. */
    FAIL_NOT_EXECUTED,
    /** Ask an operator: the outcome is unknown and may not be guessed. */
    NEEDS_REVIEW,
    /**
     * Check the effect again, after {@link Step#delay()} at the earliest: a "not applied" answer
     * obtained before {@code settle} passed since the send ended proves nothing yet.
     */
    CHECK_EFFECT;

    /** True for the steps that put a request on the wire. */
    public boolean sends() {
      return this == SEND || this == RESEND_SAME_KEY || this == RETRY_NOT_SENT;
    }
  }

  /**
   * The counters a decision depends on.
   *
   * @param sends requests sent so far (every send, whatever its outcome)
   * @param notSentRetries sends retried because the previous one provably did not leave
   * @param statusChecks status queries made since the last send
   * @param uncertainSends sends whose outcome is still unknown (not answered, not disproved)
   * @param sinceLastSendEndedMillis time since the last send ended (for the first re-send
   *     decision: since the first request ended); the time a status answer was obtained
   * @param settleMillis the contract's {@code replay.status.settle}: the least time between a
   *     send's end and a status answer that may cause a re-send
   * @param requestTimeoutMillis the contract's request timeout; bounds how long "still running" is
   *     believed
   * @param answerSucceeded for {@link Fact#ANSWERED}: a 2xx status or exit status 0
   */
  public record Situation(
      int sends,
      int notSentRetries,
      int statusChecks,
      int uncertainSends,
      long sinceLastSendEndedMillis,
      long settleMillis,
      long requestTimeoutMillis,
      boolean answerSucceeded) {
    public Situation {
      if (sends < 0 || notSentRetries < 0 || statusChecks < 0 || uncertainSends < 0) {
        throw new IllegalArgumentException("Invalid counters: sends=" + sends + " notSentRetries=" + notSentRetries
            + " statusChecks=" + statusChecks + " uncertainSends=" + uncertainSends);
      }
      if (settleMillis < 0 || requestTimeoutMillis < 0) {
        throw new IllegalArgumentException("Invalid durations: settle=" + settleMillis + "ms timeout=" + requestTimeoutMillis + "ms");
      }
    }

    /** Before anything was sent. */
    public static Situation initial(long settleMillis, long requestTimeoutMillis) {
      return new Situation(0, 0, 0, 0, 0, settleMillis, requestTimeoutMillis, false);
    }
  }

  /**
   * The decision.
   *
   * @param delay how long to wait before carrying it out (zero: now)
   * @param reason one sentence for the record and the journal
   */
  public record Step(Action action, Duration delay, String reason) {
    public Step {
      Objects.requireNonNull(action, "action == null");
      Objects.requireNonNull(delay, "delay == null");
      Objects.requireNonNull(reason, "reason == null");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("Invalid delay: " + delay);
      }
    }
  }

  /** The one decision: what happens after {@code fact}, for a tool of class {@code replay}. */
  public Step decide(ReplayClass replay, Fact fact, Situation s) {
    Objects.requireNonNull(replay, "replay == null");
    Objects.requireNonNull(fact, "fact == null");
    Objects.requireNonNull(s, "s == null");
    return switch (fact) {
      case NONE -> now(Action.SEND, "first send");
      case ANSWERED -> s.answerSucceeded()
          ? now(Action.SETTLE_COMPLETED, "the target answered with success")
          : now(Action.SETTLE_FAILED, "the target answered with a failure");
      case NOT_SENT -> notSent(s);
      case NOT_DISPATCHABLE -> s.uncertainSends() > 0
          ? now(Action.NEEDS_REVIEW, "an earlier send's outcome is unknown and this one could not be sent")
          : now(Action.FAIL_NOT_EXECUTED, "the request could not be sent; nothing was executed");
      case OUTCOME_UNKNOWN, WORKER_LOST, SENT_BEFORE -> unknown(replay, fact, s);
      case STATUS_COMPLETED -> now(Action.SETTLE_COMPLETED, "the status facility found it completed");
      case STATUS_FAILED -> now(Action.SETTLE_FAILED, "the status facility found it failed");
      case STATUS_NOT_EXECUTED -> notExecuted(replay, s);
      case STATUS_RUNNING -> replay == ReplayClass.IRREVERSIBLE ? neverResent() : running(s);
      case STATUS_OTHER -> replay == ReplayClass.IRREVERSIBLE ? neverResent() : stillUnknown(s, "the status answer proves nothing");
      case RESOLVED_COMPLETED -> now(Action.SETTLE_COMPLETED, "an operator resolved it as completed");
      case RESOLVED_FAILED -> now(Action.SETTLE_FAILED, "an operator resolved it as failed");
      case RESOLVED_REDISPATCH -> now(Action.RESEND_SAME_KEY, "an operator established it did not run");
      case NOT_APPLIED -> notApplied(replay, s, "a verification check found the effect absent", true);
      case RESOLVED_NOT_APPLIED -> notApplied(replay, s, "an operator found the effect absent", false);
    };
  }

  /**
   * The effect of a completed action is absent: where the class allows a re-send after an unknown
   * outcome or a status query's proof ({@code idempotency_key}, {@code status_query}; {@code
   * read_only} has no effect to verify), it is sent again under the same key, bounded by {@link
   * Builder#setMaxSends}; {@code irreversible} waits for an operator. A check's answer counts only
   * once {@code settle} has passed since the last send ended (the target may still be applying it);
   * an operator's is taken at once.
   */
  private Step notApplied(ReplayClass replay, Situation s, String what, boolean settleFirst) {
    if (settleFirst && s.sinceLastSendEndedMillis() < s.settleMillis()) {
      return new Step(Action.CHECK_EFFECT, Duration.ofMillis(s.settleMillis() - s.sinceLastSendEndedMillis()),
          what + ", but before the settle time passed: checking again once it has");
    }
    if (replay == ReplayClass.IRREVERSIBLE) {
      return now(Action.NEEDS_REVIEW, what + "; an irreversible action is never re-sent automatically");
    }
    if (s.sends() >= maxSends) {
      return now(Action.NEEDS_REVIEW, what + " after " + s.sends() + " sends under the same key");
    }
    return now(Action.RESEND_SAME_KEY, what + "; sending again under the same key (send " + (s.sends() + 1) + " of " + maxSends + ")");
  }

  private Step notSent(Situation s) {
    if (s.notSentRetries() < maxNotSentRetries) {
      return new Step(Action.RETRY_NOT_SENT, backoff(s.notSentRetries()),
          "not sent; retry " + (s.notSentRetries() + 1) + " of " + maxNotSentRetries);
    }
    if (s.uncertainSends() > 0) {
      return now(Action.NEEDS_REVIEW, "the target stayed unreachable and an earlier send's outcome is unknown");
    }
    return now(Action.FAIL_NOT_EXECUTED, "the target stayed unreachable after " + maxNotSentRetries + " retries; nothing was sent");
  }

  private Step unknown(ReplayClass replay, Fact fact, Situation s) {
    String what = switch (fact) {
      case WORKER_LOST -> "the worker was lost mid-send";
      case SENT_BEFORE -> "it was sent before (the journal holds its dispatched entry: a reset or replayed history asked"
          + " for it again) and its outcome is unknown";
      default -> "the outcome is unknown";
    };
    return switch (replay) {
      case READ_ONLY, IDEMPOTENCY_KEY -> s.sends() < maxSends
          ? new Step(Action.RESEND_SAME_KEY, backoff(s.sends() - 1),
              what + "; re-sending under the same key (send " + (s.sends() + 1) + " of " + maxSends + ")")
          : now(Action.NEEDS_REVIEW, what + " after " + s.sends() + " sends under the same key");
      case STATUS_QUERY -> now(Action.QUERY_STATUS, what + "; asking the status facility");
      case IRREVERSIBLE -> now(Action.NEEDS_REVIEW, what + "; an irreversible action is never re-sent automatically");
    };
  }

  private Step notExecuted(ReplayClass replay, Situation s) {
    if (replay == ReplayClass.IRREVERSIBLE) {
      return neverResent();
    }
    if (s.sinceLastSendEndedMillis() < s.settleMillis()) {
      // The first request may still be running at the target: this answer proves nothing yet.
      long wait = s.settleMillis() - s.sinceLastSendEndedMillis();
      if (s.statusChecks() >= maxStatusChecks) {
        return now(Action.NEEDS_REVIEW, "no proof after " + s.statusChecks() + " status checks");
      }
      return new Step(Action.QUERY_STATUS, Duration.ofMillis(wait),
          "not executed, but asked before the settle time passed: asking again once it has");
    }
    if (s.sends() >= maxSends) {
      return now(Action.NEEDS_REVIEW, "proved not executed, but " + s.sends() + " sends were already made");
    }
    return now(Action.RESEND_SAME_KEY, "proved not executed (asked after the settle time); re-sending under the same key");
  }

  private static Step neverResent() {
    return now(Action.NEEDS_REVIEW, "an irreversible action is never re-sent automatically");
  }

  private Step running(Situation s) {
    // Still running is believed for as long as the contract lets the action run, however many checks that takes.
    if (s.sinceLastSendEndedMillis() >= window(s)) {
      return now(Action.NEEDS_REVIEW, "still running after " + Duration.ofMillis(window(s)));
    }
    return new Step(Action.QUERY_STATUS, backoff(s.statusChecks() - 1), "still running at the target; polling again");
  }

  private Step stillUnknown(Situation s, String why) {
    if (s.statusChecks() >= maxStatusChecks) {
      return now(Action.NEEDS_REVIEW, why + "; no proof after " + s.statusChecks() + " status checks");
    }
    if (s.sinceLastSendEndedMillis() >= window(s)) {
      return now(Action.NEEDS_REVIEW, why + "; no proof within " + Duration.ofMillis(window(s)));
    }
    return new Step(Action.QUERY_STATUS, backoff(s.statusChecks() - 1), why + "; polling again");
  }

  /** How long after the last send ended status answers are awaited: settle or timeout, plus a grace. */
  public long window(Situation s) {
    return Math.max(s.settleMillis(), s.requestTimeoutMillis()) + statusGrace.toMillis();
  }

  /** Backoff for the n-th retry (n from 0): initial × 2^n, capped. */
  public Duration backoff(int n) {
    int k = Math.max(0, Math.min(n, 20));
    long millis = initialBackoff.toMillis() << k;
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }

  public int maxSends() {
    return maxSends;
  }

  public int maxNotSentRetries() {
    return maxNotSentRetries;
  }

  public int maxStatusChecks() {
    return maxStatusChecks;
  }

  public Duration statusGrace() {
    return statusGrace;
  }

  private static Step now(Action action, String reason) {
    return new Step(action, Duration.ZERO, reason);
  }

  /** Limits with defaults; setters fail fast. */
  public static final class Builder {
    private int maxSends = 4;
    private int maxNotSentRetries = 5;
    private int maxStatusChecks = 12;
    private Duration initialBackoff = Duration.ofSeconds(1);
    private Duration maxBackoff = Duration.ofSeconds(30);
    private Duration statusGrace = Duration.ofSeconds(60);

    private Builder() {}

    /** Sends in all (the first one included) before a re-sendable class asks an operator. Default 4. */
    public Builder setMaxSends(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("Invalid max sends: " + n);
      }
      this.maxSends = n;
      return this;
    }

    /** Retries of a send that provably did not leave. Default 5. */
    public Builder setMaxNotSentRetries(int n) {
      if (n < 0) {
        throw new IllegalArgumentException("Invalid max not-sent retries: " + n);
      }
      this.maxNotSentRetries = n;
      return this;
    }

    /** Status queries after one send before an operator is asked. Default 12. */
    public Builder setMaxStatusChecks(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("Invalid max status checks: " + n);
      }
      this.maxStatusChecks = n;
      return this;
    }

    /** First backoff (doubles each time). Default 1 s. */
    public Builder setInitialBackoff(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("Invalid initial backoff: " + d);
      }
      this.initialBackoff = d;
      return this;
    }

    /** Longest backoff. Default 30 s. */
    public Builder setMaxBackoff(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("Invalid max backoff: " + d);
      }
      this.maxBackoff = d;
      return this;
    }

    /** Added to max(settle, request timeout) to bound status polling. Default 60 s. */
    public Builder setStatusGrace(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("Invalid status grace: " + d);
      }
      this.statusGrace = d;
      return this;
    }

    public ReplayPolicy build() {
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("Invalid backoff: max " + maxBackoff + " < initial " + initialBackoff);
      }
      return new ReplayPolicy(this);
    }
  }
}
