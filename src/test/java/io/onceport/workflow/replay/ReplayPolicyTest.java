package io.onceport.workflow.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Situation;
import io.onceport.workflow.replay.ReplayPolicy.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replay policy as a table: every class against every fact, and the bounds. */
class ReplayPolicyTest {
  private static final ReplayPolicy P = ReplayPolicy.DEFAULT;
  private static final long SETTLE = 30_000;
  private static final long TIMEOUT = 30_000;

  private static final ReplayClass RO = ReplayClass.READ_ONLY;
  private static final ReplayClass KEY = ReplayClass.IDEMPOTENCY_KEY;
  private static final ReplayClass SQ = ReplayClass.STATUS_QUERY;
  private static final ReplayClass IRR = ReplayClass.IRREVERSIBLE;

  /** sends, notSentRetries, statusChecks, uncertain, sinceLastEnd. */
  private static Situation s(int sends, int notSent, int checks, int uncertain, long since) {
    return new Situation(sends, notSent, checks, uncertain, since, SETTLE, TIMEOUT, false);
  }

  private record Row(ReplayClass c, Fact fact, Situation s, Action expected) {}

  private static final List<Row> TABLE = List.of(
      // the first decision is always to send
      new Row(RO, Fact.NONE, Situation.initial(SETTLE, TIMEOUT), Action.SEND),
      new Row(IRR, Fact.NONE, Situation.initial(SETTLE, TIMEOUT), Action.SEND),
      // not sent: retried for every class, then failed as not executed, or review if an earlier send is unknown
      new Row(RO, Fact.NOT_SENT, s(1, 0, 0, 0, 0), Action.RETRY_NOT_SENT),
      new Row(KEY, Fact.NOT_SENT, s(1, 4, 0, 0, 0), Action.RETRY_NOT_SENT),
      new Row(SQ, Fact.NOT_SENT, s(1, 0, 0, 0, 0), Action.RETRY_NOT_SENT),
      new Row(IRR, Fact.NOT_SENT, s(1, 0, 0, 0, 0), Action.RETRY_NOT_SENT),
      new Row(IRR, Fact.NOT_SENT, s(6, 5, 0, 0, 0), Action.FAIL_NOT_EXECUTED),
      new Row(KEY, Fact.NOT_SENT, s(6, 5, 0, 1, 0), Action.NEEDS_REVIEW),
      // an answer settles, whatever the class
      new Row(IRR, Fact.ANSWERED, new Situation(1, 0, 0, 0, 0, SETTLE, TIMEOUT, true), Action.SETTLE_COMPLETED),
      new Row(KEY, Fact.ANSWERED, new Situation(1, 0, 0, 0, 0, SETTLE, TIMEOUT, false), Action.SETTLE_FAILED),
      // unknown outcome / lost worker
      new Row(RO, Fact.OUTCOME_UNKNOWN, s(1, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.OUTCOME_UNKNOWN, s(1, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.WORKER_LOST, s(3, 0, 0, 3, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.WORKER_LOST, s(4, 0, 0, 4, 0), Action.NEEDS_REVIEW),
      new Row(RO, Fact.OUTCOME_UNKNOWN, s(4, 0, 0, 4, 0), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.OUTCOME_UNKNOWN, s(1, 0, 0, 1, 0), Action.QUERY_STATUS),
      new Row(SQ, Fact.WORKER_LOST, s(1, 0, 0, 1, 0), Action.QUERY_STATUS),
      new Row(IRR, Fact.OUTCOME_UNKNOWN, s(1, 0, 0, 1, 0), Action.NEEDS_REVIEW),
      new Row(IRR, Fact.WORKER_LOST, s(1, 0, 0, 1, 0), Action.NEEDS_REVIEW),
      // sent before (the journal holds the dispatched entry: a reset or replayed history asked again): an unknown outcome
      new Row(RO, Fact.SENT_BEFORE, s(1, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.SENT_BEFORE, s(1, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.SENT_BEFORE, s(3, 0, 0, 3, 0), Action.RESEND_SAME_KEY),
      new Row(KEY, Fact.SENT_BEFORE, s(4, 0, 0, 4, 0), Action.NEEDS_REVIEW),
      new Row(RO, Fact.SENT_BEFORE, s(4, 0, 0, 4, 0), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.SENT_BEFORE, s(1, 0, 0, 1, 0), Action.QUERY_STATUS),
      new Row(IRR, Fact.SENT_BEFORE, s(1, 0, 0, 1, 0), Action.NEEDS_REVIEW),
      new Row(IRR, Fact.SENT_BEFORE, s(2, 0, 0, 2, 0), Action.NEEDS_REVIEW),
      // status verdicts
      new Row(SQ, Fact.STATUS_COMPLETED, s(1, 0, 1, 1, 10), Action.SETTLE_COMPLETED),
      new Row(SQ, Fact.STATUS_FAILED, s(1, 0, 1, 1, 10), Action.SETTLE_FAILED),
      new Row(SQ, Fact.STATUS_NOT_EXECUTED, s(1, 0, 1, 1, SETTLE - 1), Action.QUERY_STATUS),
      new Row(SQ, Fact.STATUS_NOT_EXECUTED, s(1, 0, 1, 1, SETTLE), Action.RESEND_SAME_KEY),
      new Row(SQ, Fact.STATUS_NOT_EXECUTED, s(4, 0, 1, 1, SETTLE), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.STATUS_NOT_EXECUTED, s(1, 0, 12, 1, 0), Action.NEEDS_REVIEW),
      new Row(IRR, Fact.STATUS_NOT_EXECUTED, s(1, 0, 1, 1, SETTLE), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.STATUS_OTHER, s(1, 0, 1, 1, 0), Action.QUERY_STATUS),
      new Row(SQ, Fact.STATUS_OTHER, s(1, 0, 11, 1, 0), Action.QUERY_STATUS),
      new Row(SQ, Fact.STATUS_OTHER, s(1, 0, 12, 1, 0), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.STATUS_OTHER, s(1, 0, 2, 1, 90_000), Action.NEEDS_REVIEW),
      new Row(SQ, Fact.STATUS_RUNNING, s(1, 0, 40, 1, 89_999), Action.QUERY_STATUS),
      new Row(SQ, Fact.STATUS_RUNNING, s(1, 0, 2, 1, 90_000), Action.NEEDS_REVIEW),
      // operators
      new Row(IRR, Fact.RESOLVED_COMPLETED, s(1, 0, 0, 1, 0), Action.SETTLE_COMPLETED),
      new Row(IRR, Fact.RESOLVED_FAILED, s(1, 0, 0, 1, 0), Action.SETTLE_FAILED),
      new Row(IRR, Fact.RESOLVED_REDISPATCH, s(1, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      new Row(SQ, Fact.RESOLVED_REDISPATCH, s(4, 0, 0, 1, 0), Action.RESEND_SAME_KEY),
      // sending was impossible
      new Row(IRR, Fact.NOT_DISPATCHABLE, s(1, 0, 0, 0, 0), Action.FAIL_NOT_EXECUTED),
      new Row(KEY, Fact.NOT_DISPATCHABLE, s(2, 0, 0, 1, 0), Action.NEEDS_REVIEW));

  @Test
  void everyClassAndFactLeadsToTheTabulatedStep() {
    StringBuilder wrong = new StringBuilder();
    for (Row r : TABLE) {
      Action got = P.decide(r.c(), r.fact(), r.s()).action();
      if (got != r.expected()) {
        wrong.append(r.c().wireName()).append(' ').append(r.fact()).append(' ').append(r.s())
            .append(": expected ").append(r.expected()).append(", got ").append(got).append('\n');
      }
    }
    assertEquals("", wrong.toString());
  }

  @Test
  void irreversibleAndStatusQueryNeverResendWithoutProofOrAnOperator() {
    // Exhaustive over a grid of counters: no fact other than a proof or an operator re-sends.
    for (ReplayClass c : List.of(SQ, IRR)) {
      for (Fact f : Fact.values()) {
        for (int sends = 1; sends <= 5; sends++) {
          for (int checks = 0; checks <= 13; checks++) {
            for (long since : new long[] {0, SETTLE - 1, SETTLE, 200_000}) {
              Action a = P.decide(c, f, s(sends, 0, checks, 1, since)).action();
              if (a == Action.RESEND_SAME_KEY) {
                boolean proof = c == SQ && f == Fact.STATUS_NOT_EXECUTED && since >= SETTLE;
                // until_verified: the effect proven absent (a check after settle, or an operator) is proof for status_query.
                boolean absent = c == SQ && (f == Fact.NOT_APPLIED && since >= SETTLE || f == Fact.RESOLVED_NOT_APPLIED);
                assertTrue(proof || absent || f == Fact.RESOLVED_REDISPATCH, c + " " + f + " sends=" + sends + " since=" + since);
              }
              if (c == IRR) {
                assertFalse(a == Action.QUERY_STATUS, "irreversible never polls: " + f);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void anEffectFoundAbsentIsResentUnderTheSameKeyWhereTheClassAllowsItAndReviewedForIrreversible() {
    long settled = SETTLE;
    assertEquals(new Step(Action.RESEND_SAME_KEY, Duration.ZERO, "a verification check found the effect absent; sending again under "
        + "the same key (send 2 of 4)"), P.decide(SQ, Fact.NOT_APPLIED, s(1, 0, 0, 0, settled)));
    assertEquals(Action.RESEND_SAME_KEY, P.decide(ReplayClass.IDEMPOTENCY_KEY, Fact.NOT_APPLIED, s(1, 0, 0, 0, settled)).action());
    assertEquals(new Step(Action.NEEDS_REVIEW, Duration.ZERO, "a verification check found the effect absent; an irreversible action "
        + "is never re-sent automatically"), P.decide(IRR, Fact.NOT_APPLIED, s(1, 0, 0, 0, settled)));
    assertEquals(new Step(Action.NEEDS_REVIEW, Duration.ZERO, "a verification check found the effect absent after 4 sends under the "
        + "same key"), P.decide(SQ, Fact.NOT_APPLIED, s(4, 0, 0, 0, settled)));
    // Before settle the target may still be applying it: checked again once settle has passed, whatever the class.
    assertEquals(new Step(Action.CHECK_EFFECT, Duration.ofMillis(1_000), "a verification check found the effect absent, but before the "
        + "settle time passed: checking again once it has"), P.decide(IRR, Fact.NOT_APPLIED, s(1, 0, 0, 0, SETTLE - 1_000)));
    // An operator's verdict is taken at once.
    assertEquals(Action.RESEND_SAME_KEY, P.decide(SQ, Fact.RESOLVED_NOT_APPLIED, s(1, 0, 0, 0, 0)).action());
    assertEquals(new Step(Action.NEEDS_REVIEW, Duration.ZERO, "an operator found the effect absent; an irreversible action is never "
        + "re-sent automatically"), P.decide(IRR, Fact.RESOLVED_NOT_APPLIED, s(1, 0, 0, 0, 0)));
  }

  @Test
  void everyUnknownEndsInABoundedNumberOfSteps() {
    // Following the policy's own answers with "still unknown" facts ends in review, never loops.
    for (ReplayClass c : ReplayClass.values()) {
      int sends = 1;
      int checks = 0;
      long since = 0;
      Action a = P.decide(c, Fact.OUTCOME_UNKNOWN, s(sends, 0, checks, sends, since)).action();
      int steps = 0;
      while (a != Action.NEEDS_REVIEW) {
        assertTrue(++steps < 100, c + " did not converge");
        if (a == Action.RESEND_SAME_KEY) {
          sends++;
          checks = 0;
          a = P.decide(c, Fact.OUTCOME_UNKNOWN, s(sends, 0, checks, sends, 0)).action();
        } else {
          assertEquals(Action.QUERY_STATUS, a);
          checks++;
          since += 5_000;
          a = P.decide(c, Fact.STATUS_OTHER, s(sends, 0, checks, sends, since)).action();
        }
      }
    }
  }

  @Test
  void aResetRunThatFindsEverySendMadeBeforeAsksAnOperatorAfterAtMostMaxSendsAttempts() {
    // A reset to before the first send: every attempt the run asks for is already in the journal.
    // The re-sendable classes move on to the next attempt under the same key, never past maxSends.
    for (ReplayClass c : ReplayClass.values()) {
      int attempts = 1;
      ReplayPolicy.Step step = P.decide(c, Fact.SENT_BEFORE, s(attempts, 0, 0, attempts, 0));
      while (step.action() == Action.RESEND_SAME_KEY) {
        attempts++;
        assertTrue(attempts <= P.maxSends(), c + " asked for attempt " + attempts);
        step = P.decide(c, Fact.SENT_BEFORE, s(attempts, 0, 0, attempts, 0));
      }
      Action expected = c == SQ ? Action.QUERY_STATUS : Action.NEEDS_REVIEW;
      assertEquals(expected, step.action(), c.wireName());
      if (c == IRR) {
        assertEquals("it was sent before (the journal holds its dispatched entry: a reset or replayed history asked for it again)"
            + " and its outcome is unknown; an irreversible action is never re-sent automatically", step.reason());
      }
    }
  }

  @Test
  void aNotExecutedAnswerBeforeSettleWaitsExactlyUntilSettle() {
    ReplayPolicy.Step step = P.decide(SQ, Fact.STATUS_NOT_EXECUTED, s(1, 0, 1, 1, 12_000));
    assertEquals(Action.QUERY_STATUS, step.action());
    assertEquals(Duration.ofMillis(SETTLE - 12_000), step.delay());
  }

  @Test
  void backoffDoublesUpToTheCap() {
    assertEquals(Duration.ofSeconds(1), P.backoff(0));
    assertEquals(Duration.ofSeconds(8), P.backoff(3));
    assertEquals(Duration.ofSeconds(30), P.backoff(10));
    assertEquals(Duration.ofSeconds(30), P.backoff(1000));
  }

  @Test
  void invalidLimitsAreRefusedWithExactMessages() {
    assertEquals("Invalid max sends: 0",
        assertThrows(IllegalArgumentException.class, () -> ReplayPolicy.newBuilder().setMaxSends(0)).getMessage());
    assertEquals("Invalid initial backoff: PT-1S",
        assertThrows(IllegalArgumentException.class, () -> ReplayPolicy.newBuilder().setInitialBackoff(Duration.ofSeconds(-1))).getMessage());
    assertEquals("Invalid backoff: max PT1S < initial PT2S",
        assertThrows(IllegalArgumentException.class, () -> ReplayPolicy.newBuilder()
            .setInitialBackoff(Duration.ofSeconds(2)).setMaxBackoff(Duration.ofSeconds(1)).build()).getMessage());
  }

  @Test
  void theReadmeReplayTableIsTheOneThePolicyRenders() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String table = ReplayTable.markdown(P);
    assertTrue(readme.contains(table),
        "README.md's replay table differs from the policy; replace it with:\n" + table);
  }
}
