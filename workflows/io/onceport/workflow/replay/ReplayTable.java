package io.onceport.workflow.replay;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Situation;

/**
 * The README's replay table, rendered from {@link ReplayPolicy} decisions rather than written by
 * hand: each cell probes the policy with a representative situation and names the step it takes.
 * A test compares the README with {@link #markdown}, so the documentation cannot drift from the
 * code.
 */
public final class ReplayTable {
  private ReplayTable() {}

  /** The table as Markdown, one row per replay class. */
  public static String markdown(ReplayPolicy policy) {
    StringBuilder b = new StringBuilder();
    b.append("| class | not sent (nothing left) | sent, outcome unknown / worker lost | status: not executed | status: any other answer | operator resolution |\n");
    b.append("|---|---|---|---|---|---|\n");
    for (ReplayClass c : ReplayClass.values()) {
      b.append("| `").append(c.wireName()).append("` | ")
          .append(notSent(policy, c)).append(" | ")
          .append(unknown(policy, c)).append(" | ")
          .append(notExecuted(policy, c)).append(" | ")
          .append(otherAnswer(policy, c)).append(" | ")
          .append(resolution(policy, c)).append(" |\n");
    }
    return b.toString();
  }

  private static final long SETTLE = 30_000;
  private static final long TIMEOUT = 30_000;

  private static Situation afterSends(int sends, int checks, long since) {
    return new Situation(sends, 0, checks, 1, since, SETTLE, TIMEOUT, false);
  }

  private static String notSent(ReplayPolicy p, ReplayClass c) {
    Action first = p.decide(c, Fact.NOT_SENT, new Situation(1, 0, 0, 0, 0, SETTLE, TIMEOUT, false)).action();
    Action last = p.decide(c, Fact.NOT_SENT, new Situation(1, p.maxNotSentRetries(), 0, 0, 0, SETTLE, TIMEOUT, false)).action();
    return verb(first) + " (up to " + p.maxNotSentRetries() + " times, backoff), then " + verb(last);
  }

  private static String unknown(ReplayPolicy p, ReplayClass c) {
    Action first = p.decide(c, Fact.OUTCOME_UNKNOWN, afterSends(1, 0, 0)).action();
    Action lost = p.decide(c, Fact.WORKER_LOST, afterSends(1, 0, 0)).action();
    Action sentBefore = p.decide(c, Fact.SENT_BEFORE, afterSends(1, 0, 0)).action();
    if (first != lost || first != sentBefore) {
      throw new IllegalStateException("worker lost, sent before and outcome unknown differ for " + c.wireName());
    }
    if (first == Action.RESEND_SAME_KEY) {
      Action last = p.decide(c, Fact.OUTCOME_UNKNOWN, afterSends(p.maxSends(), 0, 0)).action();
      return verb(first) + " (up to " + p.maxSends() + " sends in all, backoff), then " + verb(last);
    }
    if (first == Action.NEEDS_REVIEW) {
      return verb(first) + "; never re-sent automatically";
    }
    return verb(first);
  }

  private static boolean queriesStatus(ReplayPolicy p, ReplayClass c) {
    return p.decide(c, Fact.OUTCOME_UNKNOWN, afterSends(1, 0, 0)).action() == Action.QUERY_STATUS;
  }

  private static String notExecuted(ReplayPolicy p, ReplayClass c) {
    if (!queriesStatus(p, c)) {
      return "—";
    }
    Action early = p.decide(c, Fact.STATUS_NOT_EXECUTED, afterSends(1, 1, SETTLE - 1)).action();
    Action late = p.decide(c, Fact.STATUS_NOT_EXECUTED, afterSends(1, 1, SETTLE)).action();
    Action exhausted = p.decide(c, Fact.STATUS_NOT_EXECUTED, afterSends(p.maxSends(), 1, SETTLE)).action();
    return "answered ≥ `settle` after the send ended: " + verb(late) + " (up to " + p.maxSends()
        + " sends in all, then " + verb(exhausted) + "); earlier: " + verb(early) + " once `settle` has passed";
  }

  private static String otherAnswer(ReplayPolicy p, ReplayClass c) {
    if (!queriesStatus(p, c)) {
      return "—";
    }
    Action poll = p.decide(c, Fact.STATUS_OTHER, afterSends(1, 1, 0)).action();
    Action checks = p.decide(c, Fact.STATUS_OTHER, afterSends(1, p.maxStatusChecks(), 0)).action();
    return verb(poll) + " again with backoff (up to " + p.maxStatusChecks() + " checks, within max(`settle`, timeout) + "
        + p.statusGrace().toSeconds() + " s; \"still running\" is polled for that whole window), then " + verb(checks);
  }

  private static String resolution(ReplayPolicy p, ReplayClass c) {
    Situation s = afterSends(1, 0, 0);
    return verb(p.decide(c, Fact.RESOLVED_COMPLETED, s).action()) + " / "
        + verb(p.decide(c, Fact.RESOLVED_FAILED, s).action()) + " / "
        + verb(p.decide(c, Fact.RESOLVED_REDISPATCH, s).action());
  }

  /** The words the README uses for each step. */
  static String verb(Action a) {
    return switch (a) {
      case SEND -> "sent";
      case RESEND_SAME_KEY -> "re-sent under the same key";
      case RETRY_NOT_SENT -> "retried";
      case QUERY_STATUS -> "status queried";
      case SETTLE_COMPLETED -> "completed";
      case SETTLE_FAILED -> "failed";
      case FAIL_NOT_EXECUTED -> "failed, not executed";
      case NEEDS_REVIEW -> "`needs_review`";
      case CHECK_EFFECT -> "checked again";
    };
  }
}
