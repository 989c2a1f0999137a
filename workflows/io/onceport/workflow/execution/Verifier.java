package io.onceport.workflow.execution;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.replay.ReplayPolicy;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Step;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyEvaluator;
import io.onceport.workflow.verify.VerifyRequest;
import io.onceport.workflow.verify.VerifyRequest.Expectation;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Keeps an execution whose contract says {@code attach_window: until_verified} open, and its
 * identity alive, until its effect is confirmed: after the outcome is known (completed) it checks
 * {@code replay.verify} on the contract's schedule ({@link VerifySpec#intervalBefore}) — one read
 * activity per check, one timer between checks, nothing else — and settles on the first verdict:
 *
 * <ul>
 *   <li>verified (a check, or an operator's signed verdict): the verified window starts ({@link
 *       Execution#verified});
 *   <li>not applied: a fact for the {@link ReplayPolicy} — its step (a send under the same key where
 *       the class allows it, else a review; never a second action under a new key) is returned for
 *       the {@link Dispatcher} to carry out. A check's "not applied" before {@code settle} passed
 *       since the send ended counts as "not yet known" (the target may still be applying it);
 *   <li>no verdict by {@code give_up_after}: {@code needs_review}, waiting for an operator's verdict
 *       ({@code onceport executions verify}).
 * </ul>
 *
 * <p><b>Cost.</b> What any waiting execution costs: while it waits the run holds no thread and no
 * activity, only a timer; each check adds about ten history events (timer, activity, workflow task,
 * the journal's local activity); the schedule's cap ({@link VerifySpec#maxInterval()}) bounds a
 * round to about {@link VerifySpec#MAX_CHECKS} checks whatever {@code give_up_after} is, so the
 * history stays bounded without continuing as new.
 *
 * <p>Each check is on the record (the latest ones) and in the journal (every one): when, its
 * verdict, the answer's status and what the contract's pointers held. Expectations are resolved
 * once per round from the stored result and the arguments, so a check carries a few values, never
 * the stored result.
 */
final class Verifier {
  /** How a round of checks ended. */
  enum Ending {
    /** Confirmed: the verified window runs, then the run closes. */
    VERIFIED,
    /** Found absent: {@link #notApplied()} is the policy's step. */
    NOT_APPLIED
  }

  private final ReplayPolicy policy = ReplayPolicy.DEFAULT;
  private final Execution execution;
  private final Inbox inbox;
  private final MainLoop loop;
  private final OperatorDecisions decisions;
  private final DispatchActivities checks;
  /** A check's "not applied" came before settle: the next check not before this (workflow time). */
  private long notBefore;
  private Step notApplied;
  private String notAppliedDetail;

  Verifier(Execution execution, Inbox inbox, MainLoop loop, OperatorDecisions decisions, DispatchActivities checks) {
    this.execution = execution;
    this.inbox = inbox;
    this.loop = loop;
    this.decisions = decisions;
    this.checks = checks;
  }

  /** The policy's step after the effect was found absent ({@link Ending#NOT_APPLIED}). */
  Step notApplied() {
    return notApplied;
  }

  String notAppliedDetail() {
    return notAppliedDetail;
  }

  /** Runs a round of checks, from now until a verdict (a given-up round waits in review for an operator's). */
  Ending run() {
    ToolContract contract = execution.input().contract();
    VerifySpec spec = contract.replay().verify();
    execution.verificationStarted(spec.target(), Workflow.currentTimeMillis() + spec.giveUpAfter().toMillis());
    Expectation[] expected = expectations(spec);
    long giveUpAt = Instant.parse(execution.record().verification().giveUpAt()).toEpochMilli();
    long last = lastCheckMillis();
    while (true) {
      if (execution.verification().givenUp()) {
        Ending decided = awaitVerdictInReview();
        if (decided != null) {
          return decided;
        }
        continue;
      }
      int n = execution.verification().checkCount() - roundStartChecks() + 1;
      long due = Math.min(Math.max(last + spec.intervalBefore(n).toMillis(), notBefore), giveUpAt);
      execution.nextCheckAt(due);
      if (loop.waitUntil(due, inbox::verificationWaiting)) {
        Ending decided = consumeVerdict();
        if (decided != null) {
          return decided;
        }
        continue;
      }
      VerifyAnswer answer = check(contract, expected);
      last = Workflow.currentTimeMillis();
      Ending ended = settleOn(answer, spec, giveUpAt);
      if (ended != null) {
        return ended;
      }
    }
  }

  /** What a check's verdict leads to: an ending, a review (checks gave up), or null for the next check. */
  private Ending settleOn(VerifyAnswer answer, VerifySpec spec, long giveUpAt) {
    switch (answer.verdict()) {
      case VERIFIED -> {
        execution.verified("check " + execution.verification().checkCount() + ": " + answer.detail(), verifiedUntil(spec));
        return Ending.VERIFIED;
      }
      case NOT_APPLIED -> {
        Step step = policy.decide(replayClass(), Fact.NOT_APPLIED, execution.situation(false));
        if (step.action() != Action.CHECK_EFFECT) {
          return absent(step, "check " + execution.verification().checkCount() + ": " + answer.detail());
        }
        notBefore = Workflow.currentTimeMillis() + step.delay().toMillis();
      }
      case NOT_YET_KNOWN -> { }
    }
    if (Workflow.currentTimeMillis() >= giveUpAt) {
      execution.verificationGivenUp("no check confirmed it or found it absent within " + spec.giveUpAfter() + " ("
          + execution.verification().checkCount() + " checks; the last: " + answer.detail() + ")");
    }
    return null;
  }

  /** One check: its answer, or "not yet known" when the check could not be made (the next one is on schedule). */
  private VerifyAnswer check(ToolContract contract, Expectation[] expected) {
    int number = execution.verification().checkCount() + 1;
    ExecutionInput input = execution.input();
    VerifyRequest request = new VerifyRequest(execution.executionId(), input.fingerprint(), contract, input.arguments(), number,
        expected[0], expected[1]);
    Promise<VerifyAnswer> asked = Async.function(checks::verifyEffect, request);
    loop.waitUntil(Long.MAX_VALUE, asked::isCompleted);
    VerifyAnswer answer;
    try {
      answer = asked.get();
    } catch (ActivityFailure failure) {
      answer = VerifyAnswer.noAnswer("not yet known: the check could not be made: " + MainLoop.rootMessage(failure));
    }
    execution.verificationChecked(answer);
    return answer;
  }

  /** Given up: waits for an operator's verdict (resolutions are refused meanwhile: the outcome is known). */
  private Ending awaitVerdictInReview() {
    loop.waitUntil(Long.MAX_VALUE, inbox::verificationWaiting);
    return consumeVerdict();
  }

  /**
   * An operator's verdict (the one place one is consumed): verified, or absent (a fact for the
   * policy, taken at once); null when its statement is refused (nothing changes).
   */
  private Ending consumeVerdict() {
    Inbox.Presentation<VerificationDecision> presentation = inbox.takeVerification();
    VerificationDecision presented = presentation.decision();
    DecisionVerdict v = decisions.verify(presented.signedDecision(), DecisionBinding.VERIFICATION, execution.executionId(),
        execution.input().fingerprint(), List.of(DecisionBinding.VERIFIED, DecisionBinding.NOT_APPLIED), presented.by(),
        "onceport executions verify, or onceport operator sign verification");
    if (!v.valid()) {
      decisions.refuse(DecisionBinding.VERIFICATION, v, presented.signedDecision(), presented.by());
      presentation.answer(v.refusal());
      return null;
    }
    VerificationDecision.Decision decision = VerificationDecision.Decision.valueOf(v.decision().toUpperCase(Locale.ROOT));
    String reason = v.reason().isBlank() ? "(no reason given)" : v.reason();
    execution.verificationDecided(decision, reason, v.operator());
    presentation.answer(null);
    String how = "by " + v.operator() + ": " + reason;
    if (decision == VerificationDecision.Decision.VERIFIED) {
      execution.verified("verified " + how, verifiedUntil(execution.input().contract().replay().verify()));
      return Ending.VERIFIED;
    }
    return absent(policy.decide(replayClass(), Fact.RESOLVED_NOT_APPLIED, execution.situation(false)), "found absent " + how);
  }

  private Ending absent(Step step, String how) {
    execution.notApplied(how);
    notApplied = step;
    notAppliedDetail = how;
    return Ending.NOT_APPLIED;
  }

  /** The verified window from now: the contract's, at least the late-arrival tail's floor ({@link ReplaySpec#verifiedWindow}). */
  private long verifiedUntil(VerifySpec spec) {
    return Workflow.currentTimeMillis() + execution.input().contract().replay().verifiedWindow().toMillis();
  }

  private ReplayClass replayClass() {
    return execution.input().contract().replayClass();
  }

  /**
   * When the last check of this round was made (or the round began): the next one is due an
   * interval after it. Workflow time, from the record's ISO times.
   */
  private long lastCheckMillis() {
    ExecutionRecord.Verification v = execution.record().verification();
    long since = Instant.parse(v.since()).toEpochMilli();
    List<ExecutionRecord.VerificationCheck> made = v.checks();
    if (made.isEmpty()) {
      return since;
    }
    long at = Instant.parse(made.get(made.size() - 1).at()).toEpochMilli();
    return Math.max(since, at);
  }

  /** The checks made before this round began (the schedule restarts with each round). */
  private int roundStartChecks() {
    return execution.verification().roundStartChecks();
  }

  /** What each condition's pointer must equal: resolved once per round from the stored result and the arguments. */
  private Expectation[] expectations(VerifySpec spec) {
    boolean mcp = execution.input().contract().channel() == ToolContract.Channel.MCP;
    DispatchResult stored = execution.storedResult();
    JsonNode result = stored == null ? null : VerifyEvaluator.parse(stored.body());
    if (mcp && result != null) {
      result = result.path("structuredContent").isMissingNode() ? null : result.get("structuredContent");
    }
    JsonNode arguments = VerifyEvaluator.parse(execution.input().arguments());
    return new Expectation[] {VerifyEvaluator.expectation(spec.verifiedWhen(), result, arguments),
        VerifyEvaluator.expectation(spec.notAppliedWhen(), result, arguments)};
  }
}
